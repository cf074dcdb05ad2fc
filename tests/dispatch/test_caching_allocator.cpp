// The caching allocator (dispatch/src/caching_allocator.cpp) on the testdev fixture device,
// the CPU plugin and the reference backend: size classes, reuse over a loop of ops (the
// plugin's alloc count stays flat), the out-of-memory retry and its message, stream-ordered
// reuse, blocks returned when a plugin is unregistered, and threads allocating and freeing
// together. The public API (statistics, empty_cache, direct mode) is test_memory.cpp's.
#include "fixture_plugin.hpp"

#include "../../dispatch/src/runtime_impl.hpp"
#include "../cpu/cpu_checks.hpp"
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

using bp::test::error_of;

namespace {

constexpr size_t kKiB = 1024;
constexpr size_t kMiB = 1024 * kKiB;

struct TestDevice {
  bp::Device device;
  bp::testing::TestPluginState& state = bp::testing::test_plugin_state();
  TestDevice() {
    state.budget = 0;
    // The budget counts every block of the fixture's device: none may be left from before.
    REQUIRE_MESSAGE(state.bytes_in_use == 0, "an earlier test left blocks on test_dev");
    const bp::PluginLoadReport r =
        bp::register_plugin(bp::testing::test_plugin_descriptor(), "test");
    REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
    device = bp::Device::parse("test_dev:0");
  }
  ~TestDevice() {
    bp::unregister_plugin("testdev");
    state.budget = 0;
  }
  TestDevice(const TestDevice&) = delete;
  TestDevice& operator=(const TestDevice&) = delete;
};

// The block size the cache hands out for a tensor of `bytes` bytes.
size_t block_for(bp::Device device, size_t bytes) {
  bp::empty_cache(device);  // a cached block a quarter larger would serve it
  const uint64_t before = bp::memory_stats(device).allocated_bytes;
  bp::Tensor t = bp::empty({static_cast<int64_t>(bytes)}, bp::ScalarType::UInt8, device);
  return bp::memory_stats(device).allocated_bytes - before;
}

}  // namespace

TEST_CASE("size classes: 512-byte steps to 1 MiB, quarter powers of two to 8 MiB, 2 MiB above") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  const bp::Device d = t.device;
  CHECK(block_for(d, 0) == 512);
  CHECK(block_for(d, 1) == 512);
  CHECK(block_for(d, 512) == 512);
  CHECK(block_for(d, 513) == 1024);
  CHECK(block_for(d, kMiB) == kMiB);
  CHECK(block_for(d, kMiB + 1) == kMiB + 256 * kKiB);
  CHECK(block_for(d, 3 * kMiB) == 3 * kMiB);
  CHECK(block_for(d, 5 * kMiB + 1) == 6 * kMiB);
  CHECK(block_for(d, 8 * kMiB - 1) == 8 * kMiB);
  CHECK(block_for(d, 9 * kMiB) == 10 * kMiB);
  CHECK(block_for(d, 100 * kMiB + 1) == 102 * kMiB);
  // The same values straight from the function.
  using bp::detail::CachingAllocator;
  CHECK(CachingAllocator::round_size(2 * kMiB + 1) == 2 * kMiB + 512 * kKiB);
  CHECK(CachingAllocator::round_size(64 * kMiB) == 64 * kMiB);
  // A cached block serves a request at most a quarter smaller than itself.
  CHECK(CachingAllocator::fits(1280, 1024));
  CHECK_FALSE(CachingAllocator::fits(1536, 1024));
  CHECK_FALSE(CachingAllocator::fits(512, 1024));
}

TEST_CASE("a loop of same-size ops reuses one block: the plugin's alloc count stays flat") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  bp::Tensor a = bp::full({64}, 1.0, bp::ScalarType::Float32, t.device);
  bp::Tensor b = bp::full({64}, 2.0, bp::ScalarType::Float32, t.device);
  { bp::Tensor warm = bp::add(a, b); }
  const int allocs = t.state.allocs;
  const bp::MemoryStats before = bp::memory_stats(t.device);
  for (int i = 0; i < 100; ++i) {
    bp::Tensor c = bp::add(a, b);
    CHECK(bp::to_vector<float>(c)[63] == 3.0f);
  }
  CHECK(t.state.allocs == allocs);
  const bp::MemoryStats after = bp::memory_stats(t.device);
  CHECK(after.plugin_allocs == before.plugin_allocs);
  CHECK(after.cache_hits - before.cache_hits >= 100);
  CHECK(after.cache_misses == before.cache_misses);
  CHECK(after.reserved_bytes == before.reserved_bytes);
}

TEST_CASE("reuse on the CPU plugin and the reference backend") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  for (const bp::Device device : {bp::test::cpu_device(), bp::test::kRefDevice}) {
    CAPTURE(device.str());
    bp::Tensor a = bp::full({1000}, 1.0, bp::ScalarType::Float32, device);
    { bp::Tensor warm = bp::add(a, a); }
    const uint64_t allocs = bp::memory_stats(device).plugin_allocs;
    for (int i = 0; i < 50; ++i) bp::Tensor c = bp::add(a, a);
    CHECK(bp::memory_stats(device).plugin_allocs == allocs);
  }
}

TEST_CASE("out of memory: the cache is emptied and the allocation retried once") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  t.state.budget = 64 * kKiB;
  { bp::Tensor held = bp::empty({32 * kKiB}, bp::ScalarType::UInt8, t.device); }
  CHECK(bp::memory_stats(t.device).cached_bytes == 32 * kKiB);
  const int frees = t.state.frees;
  const int syncs = t.state.synchronizes;
  // 32 KiB cached + 48 KiB does not fit in 64 KiB: the retry after emptying the cache does.
  bp::Tensor big = bp::empty({48 * kKiB}, bp::ScalarType::UInt8, t.device);
  const bp::MemoryStats s = bp::memory_stats(t.device);
  CHECK(s.oom_retries == 1);
  CHECK(s.cached_bytes == 0);
  CHECK(s.reserved_bytes == 48 * kKiB);
  CHECK(t.state.frees == frees + 1);
  CHECK(t.state.synchronizes == syncs + 1);  // before the cached block went back

  // Still too big after the retry: the error names the device, the size, the memory and
  // what the cache held.
  { bp::Tensor cached = bp::empty({8 * kKiB}, bp::ScalarType::UInt8, t.device); }
  const std::string message = error_of(
      [&] { bp::empty({40 * kKiB}, bp::ScalarType::UInt8, t.device); }, bp::ErrorCode::OutOfMemory);
  CHECK(message ==
        "out of memory on test_dev:0 allocating 40960 bytes (device memory: 65536 bytes total, "
        "16384 free; the caching allocator held 8192 bytes of cached blocks, returned to the "
        "device before one retry, and 49152 bytes in live tensors): test_dev: 40960 bytes "
        "asked, 49152 of 65536 in use");
  CHECK(bp::memory_stats(t.device).oom_retries == 2);
  // Nothing cached: no retry, and the message says so.
  const std::string plain = error_of(
      [&] { bp::empty({40 * kKiB}, bp::ScalarType::UInt8, t.device); }, bp::ErrorCode::OutOfMemory);
  CHECK(plain.find("the caching allocator held no cached blocks and 49152 bytes in live tensors") !=
        std::string::npos);
  CHECK(bp::memory_stats(t.device).oom_retries == 2);
  // The failed allocations left the books balanced.
  big = bp::Tensor();
  const bp::MemoryStats end = bp::memory_stats(t.device);
  CHECK(end.allocated_bytes == 0);
  CHECK(end.live_blocks == 0);
  CHECK(end.reserved_bytes == t.state.bytes_in_use);
}

TEST_CASE("a block is reused only on the stream it was freed on") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  bp::detail::CachingAllocator& alloc = bp::detail::Runtime::get().allocator(t.device);
  int stream_a = 0, stream_b = 0;  // two distinct handles; the fixture ignores them
  const int allocs = t.state.allocs;
  { bp::DataPtr p = alloc.allocate(1000, &stream_a); }
  CHECK(t.state.allocs == allocs + 1);
  { bp::DataPtr p = alloc.allocate(1000, &stream_b); }  // another stream: a new block
  CHECK(t.state.allocs == allocs + 2);
  { bp::DataPtr p = alloc.allocate(1000, &stream_a); }  // its own stream's block again
  { bp::DataPtr p = alloc.allocate(1000, &stream_b); }
  CHECK(t.state.allocs == allocs + 2);
  // Emptying synchronises each stream that had cached blocks before freeing them.
  const int syncs = t.state.synchronizes;
  alloc.empty_cache();
  CHECK(t.state.synchronizes == syncs + 2);
  CHECK(alloc.stats().cached_blocks == 0);
}

TEST_CASE("unregistering a plugin returns its cached blocks before its shutdown") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  auto& state = bp::testing::test_plugin_state();
  bp::Tensor live;
  {
    TestDevice t;
    { bp::Tensor cached = bp::empty({4096}, bp::ScalarType::UInt8, t.device); }
    live = bp::empty({1000}, bp::ScalarType::UInt8, t.device);
    CHECK(state.bytes_in_use >= 4096 + 1024);
  }
  // The cached block went back; the live one is the tensor's until it goes.
  CHECK(state.bytes_in_use == 1024);
  live = bp::Tensor();
  CHECK(state.bytes_in_use == 0);
}

TEST_CASE("threads allocating and freeing together keep the books balanced") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      std::vector<bp::Tensor> keep;
      for (int i = 0; i < 500; ++i) {
        const int64_t n = 64 + 64 * ((i * 7 + k) % 13);
        keep.push_back(bp::empty({n}, bp::ScalarType::Float32, t.device));
        if (keep.size() > 5) keep.erase(keep.begin());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  const bp::MemoryStats s = bp::memory_stats(t.device);
  CHECK(s.allocations == 2000);
  CHECK(s.cache_hits + s.cache_misses == 2000);
  CHECK(s.live_blocks == 0);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.requested_bytes == 0);
  CHECK(s.reserved_bytes == s.cached_bytes);
  CHECK(s.reserved_bytes == t.state.bytes_in_use);
  CHECK(s.plugin_allocs - s.plugin_frees == s.cached_blocks);
  // Far fewer plugin allocations than allocations: the threads reused each other's blocks.
  CHECK(s.plugin_allocs < 200);
}

// Note [Small-block bins]: the bins follow fits() as the maps do.
TEST_CASE("a small free block serves requests up to a quarter smaller, and no smaller") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  { bp::Tensor big = bp::empty({4096}, bp::ScalarType::UInt8, t.device); }
  const bp::MemoryStats before = bp::memory_stats(t.device);
  REQUIRE(before.cached_blocks == 1);
  {
    // 3,584 bytes round to 3,584: the cached 4,096-byte block is at most a quarter larger.
    bp::Tensor fits = bp::empty({3584}, bp::ScalarType::UInt8, t.device);
    const bp::MemoryStats s = bp::memory_stats(t.device);
    CHECK(s.cache_hits == before.cache_hits + 1);
    CHECK(s.plugin_allocs == before.plugin_allocs);
    CHECK(s.allocated_bytes == 4096);
    // 2,048 bytes would waste half of it: a new block, though 4,096 bytes are cached again
    // once `fits` goes.
  }
  bp::Tensor small = bp::empty({2048}, bp::ScalarType::UInt8, t.device);
  const bp::MemoryStats s = bp::memory_stats(t.device);
  CHECK(s.plugin_allocs == before.plugin_allocs + 1);
  CHECK(s.allocated_bytes == 2048);
  CHECK(s.cached_blocks == 1);
}

TEST_CASE("tensors made on threads that have ended are freed on another: the books balance") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  std::vector<bp::Tensor> handed_over;
  for (int k = 0; k < 3; ++k) {
    std::thread maker([&] {
      for (int i = 0; i < 100; ++i)
        handed_over.push_back(bp::full({16 + i}, 1.0, bp::ScalarType::Float32, t.device));
    });
    maker.join();
  }
  for (size_t i = 0; i < handed_over.size(); ++i)
    CHECK(bp::to_vector<float>(handed_over[i]).back() == 1.0f);
  handed_over.clear();  // this thread frees every Storage the ended threads made
  const bp::MemoryStats s = bp::memory_stats(t.device);
  CHECK(s.live_blocks == 0);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.reserved_bytes == s.cached_bytes);
  CHECK(s.reserved_bytes == t.state.bytes_in_use);
}
