// The public side of the caching allocator (dispatch/src/memory.cpp, memory.hpp): the
// statistics add up, empty_cache returns cached blocks to the plugin, direct mode bypasses
// the cache, and apply_config sets the mode.
#include "fixture_plugin.hpp"

#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/config.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace {

struct TestDevice {
  bp::Device device;
  bp::testing::TestPluginState& state = bp::testing::test_plugin_state();
  TestDevice() {
    const bp::PluginLoadReport r =
        bp::register_plugin(bp::testing::test_plugin_descriptor(), "test");
    REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
    device = bp::Device::parse("test_dev:0");
    REQUIRE_MESSAGE(state.bytes_in_use == 0, "an earlier test left blocks on test_dev");
  }
  ~TestDevice() { bp::unregister_plugin("testdev"); }
  TestDevice(const TestDevice&) = delete;
  TestDevice& operator=(const TestDevice&) = delete;
};

bp::Tensor bytes_on(bp::Device device, int64_t n) {
  return bp::empty({n}, bp::ScalarType::UInt8, device);
}

}  // namespace

TEST_CASE("allocator modes by name") {
  CHECK(bp::to_string(bp::AllocatorMode::Caching) == "caching");
  CHECK(bp::to_string(bp::AllocatorMode::Direct) == "direct");
  CHECK(bp::parse_allocator_mode("caching") == bp::AllocatorMode::Caching);
  CHECK(bp::parse_allocator_mode("direct") == bp::AllocatorMode::Direct);
  CHECK(bp::parse_allocator_mode("Direct") == std::nullopt);
}

TEST_CASE("the statistics add up: allocated, requested, reserved, cached, peaks, counts") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  const bp::Device d = t.device;
  CHECK(bp::memory_stats(d).reserved_bytes == 0);  // a fresh device's books are empty
  {
    bp::Tensor a = bytes_on(d, 100);   // block of 512
    bp::Tensor b = bytes_on(d, 1000);  // 1024
    bp::Tensor c = bytes_on(d, 5000);  // 5120
    const bp::MemoryStats s = bp::memory_stats(d);
    CHECK(s.allocated_bytes == 512 + 1024 + 5120);
    CHECK(s.requested_bytes == 100 + 1000 + 5000);
    CHECK(s.reserved_bytes == s.allocated_bytes);
    CHECK(s.cached_bytes == 0);
    CHECK(s.live_blocks == 3);
    CHECK(s.allocations == 3);
    CHECK(s.cache_misses == 3);
    CHECK(s.plugin_allocs == 3);
    CHECK(s.peak_allocated_bytes == s.allocated_bytes);
    CHECK(t.state.bytes_in_use == s.reserved_bytes);
  }
  bp::MemoryStats s = bp::memory_stats(d);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.requested_bytes == 0);
  CHECK(s.live_blocks == 0);
  CHECK(s.cached_blocks == 3);
  CHECK(s.cached_bytes == 512 + 1024 + 5120);
  CHECK(s.reserved_bytes == s.cached_bytes);
  CHECK(s.peak_allocated_bytes == 512 + 1024 + 5120);
  CHECK(s.plugin_frees == 0);

  // A later allocation takes the cached block; the peak stays until reset.
  bp::Tensor again = bytes_on(d, 900);  // rounds to 1024: the cached 1024 block
  s = bp::memory_stats(d);
  CHECK(s.cache_hits == 1);
  CHECK(s.plugin_allocs == 3);
  CHECK(s.allocated_bytes == 1024);
  CHECK(s.requested_bytes == 900);
  CHECK(s.reserved_bytes == s.allocated_bytes + s.cached_bytes);
  bp::reset_peak_memory_stats(d);
  s = bp::memory_stats(d);
  CHECK(s.peak_allocated_bytes == 1024);
  CHECK(s.peak_reserved_bytes == s.reserved_bytes);
}

TEST_CASE("empty_cache returns cached blocks to the plugin and leaves live ones") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  bp::Tensor live = bytes_on(t.device, 2048);
  { std::vector<bp::Tensor> gone{bytes_on(t.device, 4096), bytes_on(t.device, 8192)}; }
  CHECK(t.state.bytes_in_use == 2048 + 4096 + 8192);
  const int frees = t.state.frees;
  const int syncs = t.state.synchronizes;
  bp::empty_cache(t.device);
  CHECK(t.state.bytes_in_use == 2048);
  CHECK(t.state.frees == frees + 2);
  CHECK(t.state.synchronizes == syncs + 1);  // the stream the blocks were freed on
  bp::MemoryStats s = bp::memory_stats(t.device);
  CHECK(s.reserved_bytes == 2048);
  CHECK(s.allocated_bytes == 2048);
  CHECK(s.plugin_frees == 2);
  // Nothing cached: nothing to synchronise or free.
  bp::empty_cache(t.device);
  CHECK(t.state.synchronizes == syncs + 1);
  // The all-devices form reaches this device too.
  live = bp::Tensor();
  CHECK(t.state.bytes_in_use == 2048);
  bp::empty_cache();
  CHECK(t.state.bytes_in_use == 0);
  CHECK(bp::memory_stats(t.device).reserved_bytes == 0);
  CHECK(bp::test::error_of([] { bp::empty_cache(bp::Device::parse("test_dev:5")); },
                           bp::ErrorCode::Device)
            .starts_with("device test_dev:5 does not exist"));
}

TEST_CASE("direct mode: one plugin alloc and free per tensor, exact sizes, nothing cached") {
  bp::test::AllocatorModeGuard caching(bp::AllocatorMode::Caching);
  TestDevice t;
  { bp::Tensor cached = bytes_on(t.device, 3000); }
  CHECK(t.state.bytes_in_use == 3072);
  {
    bp::test::AllocatorModeGuard direct(bp::AllocatorMode::Direct);
    CHECK(t.state.bytes_in_use == 0);  // switching to direct emptied the cache
    const bp::MemoryStats before = bp::memory_stats(t.device);
    const int allocs = t.state.allocs;
    const int frees = t.state.frees;
    bp::Tensor a = bp::full({3}, 1.0, bp::ScalarType::Float32, t.device);
    for (int i = 0; i < 10; ++i) {
      bp::Tensor c = bp::add(a, a);
      CHECK(t.state.bytes_in_use == 24);  // exactly 12 bytes each: no rounding
      CHECK(bp::memory_stats(t.device).allocated_bytes == 24);
    }
    CHECK(t.state.allocs == allocs + 11);
    CHECK(t.state.frees == frees + 10);
    const bp::MemoryStats after = bp::memory_stats(t.device);
    CHECK(after.cache_hits == before.cache_hits);
    CHECK(after.cache_misses == before.cache_misses);
    CHECK(after.cached_bytes == 0);
    CHECK(after.reserved_bytes == after.allocated_bytes);
  }
  // A block allocated while caching and freed in direct mode goes straight to the plugin.
  bp::Tensor kept = bytes_on(t.device, 100);
  {
    bp::test::AllocatorModeGuard direct(bp::AllocatorMode::Direct);
    kept = bp::Tensor();
    CHECK(t.state.bytes_in_use == 0);
  }
}

TEST_CASE("apply_config sets the allocator mode from memory.allocator") {
  const bp::AllocatorMode saved = bp::allocator_mode();
  bp::apply_config(bp::Config::parse("[memory]\nallocator = \"direct\"\n", "m.toml"));
  CHECK(bp::allocator_mode() == bp::AllocatorMode::Direct);
  bp::apply_config(bp::Config{});
  CHECK(bp::allocator_mode() == bp::AllocatorMode::Caching);
  bp::set_allocator_mode(saved);
}
