// The device-API checks of alloc and free: sizes from 0 bytes to 256 MiB, alignment, free(NULL),
// and allocations that must not overlap.
#include "checks.hpp"

#include <algorithm>
#include <initializer_list>

namespace bp::conformance::device_api {
namespace {

// Writes a pattern over the whole allocation and reads it back.
void expect_usable(const Dev& dev, const Allocation& a, uint32_t seed, std::string_view call) {
  const Bytes want = pattern(a.bytes(), seed);
  dev.fill(a.get(), want);
  expect_bytes(dev.read(a.get(), a.bytes()), want, 0, a.bytes(),
               fmt::format("{} and writing all {} bytes", call, a.bytes()),
               fmt::format("the allocation ({})", dev.observed()));
}

}  // namespace

void check_alloc_zero(const Dev& dev) {
  // Two at once: non-NULL pointers must be unique (ABI: "a unique non-NULL or NULL pointer").
  void* a = dev.alloc(0, 16);
  void* b = nullptr;
  try {
    b = dev.alloc(0, 16);
  } catch (const CheckFailure&) {
    (void)dev.api().free(dev.ctx(), dev.index(), a);
    throw;
  }
  if (a != nullptr && a == b) {
    (void)dev.api().free(dev.ctx(), dev.index(), a);
    fail(fmt::format("{} twice returned the same non-NULL pointer {} (must be unique or NULL)",
                     dev.alloc_call(0, 16), fmt::ptr(a)));
  }
  dev.free(a);
  dev.free(b);
}

void check_alloc_sizes(const Dev& dev, std::initializer_list<size_t> sizes) {
  uint32_t seed = 1;
  for (const size_t bytes : sizes) {
    Allocation a(dev, bytes);
    expect_usable(dev, a, seed++, dev.alloc_call(bytes, 16));
    a.release();
  }
}

// Large allocations: four 1 MiB probes (start, odd offsets inside, the very end) rather than
// a full host copy, so a 256 MiB check does not need twice that much host memory.
void check_alloc_large(const Dev& dev, size_t bytes) {
  Allocation a(dev, bytes, 256);
  const size_t probe = kMiB;
  const size_t offsets[] = {0, bytes / 3 + 1, 2 * (bytes / 3) + 5, bytes - probe};
  uint32_t seed = 100;
  for (const size_t off : offsets) {
    const Bytes want = pattern(probe, seed++);
    dev.fill(a.get() + off, want);
  }
  seed = 100;
  for (const size_t off : offsets) {
    const Bytes want = pattern(probe, seed++);
    expect_bytes(
        dev.read(a.get() + off, probe), want, 0, probe,
        fmt::format("{} and writing 1 MiB at byte offset {}", dev.alloc_call(bytes, 256), off),
        fmt::format("the probe ({})", dev.observed()));
  }
  a.release();
}

void check_alloc_256mib(const Dev& dev) {
  constexpr size_t kBytes = 256 * kMiB;
  // Only where the device clearly has room (4x, and free memory when it is known).
  const bp_device_props& p = dev.props();
  if (p.total_memory < 4 * kBytes) return;
  if (p.free_memory != 0 && p.free_memory < 2 * kBytes) return;
  check_alloc_large(dev, kBytes);
}

void check_alignment(const Dev& dev) {
  constexpr size_t kSizes[] = {1, 24, 4099};
  uint32_t seed = 7;
  for (size_t alignment = 1; alignment <= 4096; alignment *= 2) {
    // Several at once, so a right answer is not a lucky one.
    std::vector<Allocation> live;
    for (int round = 0; round < 2; ++round) {
      for (const size_t bytes : kSizes) {
        live.emplace_back(dev, bytes, alignment);
        const auto addr = reinterpret_cast<uintptr_t>(live.back().get());
        if (addr % alignment != 0)
          fail(
              fmt::format("{} returned {}, which is not a multiple of the alignment {} "
                          "(address % alignment = {})",
                          dev.alloc_call(bytes, alignment), fmt::ptr(live.back().get()), alignment,
                          addr % alignment));
      }
    }
    expect_usable(dev, live.back(), seed++, dev.alloc_call(live.back().bytes(), alignment));
    for (Allocation& a : live) a.release();
  }
}

void check_alignment_not_power_of_two(const Dev& dev) {
  for (const size_t alignment : {size_t{3}, size_t{24}, size_t{96}}) {
    void* p = nullptr;
    const bp_status s = dev.try_alloc(100, alignment, &p);
    if (s != BP_OK) continue;  // rejecting a broken precondition is right
    if (p == nullptr)
      fail(
          fmt::format("{} returned BP_OK and a NULL pointer (reject the alignment, which is "
                      "not a power of two, or return usable memory)",
                      dev.alloc_call(100, alignment)));
    // Accepted: the memory must be usable and freeable like any other.
    const Bytes want = pattern(100, static_cast<uint32_t>(alignment));
    try {
      dev.fill(p, want);
      expect_bytes(
          dev.read(p, 100), want, 0, 100,
          fmt::format("{} (accepted) and writing 100 bytes", dev.alloc_call(100, alignment)),
          "the allocation");
    } catch (const CheckFailure&) {
      (void)dev.api().free(dev.ctx(), dev.index(), p);
      throw;
    }
    dev.free(p);
  }
}

void check_free_null(const Dev& dev) {
  // Any status passes (the ABI does not define free(NULL)); returning at all is the check.
  (void)dev.api().free(dev.ctx(), dev.index(), nullptr);
}

void check_allocations_disjoint(const Dev& dev) {
  constexpr int kCount = 48;
  std::vector<Allocation> live;
  live.reserve(kCount);
  for (int i = 0; i < kCount; ++i) {
    const size_t bytes = 1 + static_cast<size_t>(i) * 331 % 9001;  // odd and varied sizes
    live.emplace_back(dev, bytes, size_t{1} << (i % 8));
  }
  // Address ranges must not overlap...
  std::vector<size_t> order(live.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return reinterpret_cast<uintptr_t>(live[a].get()) < reinterpret_cast<uintptr_t>(live[b].get());
  });
  for (size_t k = 1; k < order.size(); ++k) {
    const Allocation& lo = live[order[k - 1]];
    const Allocation& hi = live[order[k]];
    if (lo.get() + lo.bytes() > hi.get())
      fail(fmt::format("{} live allocations overlap: {} bytes at {} and {} bytes at {}", kCount,
                       lo.bytes(), fmt::ptr(lo.get()), hi.bytes(), fmt::ptr(hi.get())));
  }
  // ...and each keeps its own bytes while all are alive.
  for (size_t i = 0; i < live.size(); ++i)
    dev.fill(live[i].get(), pattern(live[i].bytes(), 1000 + static_cast<uint32_t>(i)));
  for (size_t i = 0; i < live.size(); ++i) {
    const Bytes want = pattern(live[i].bytes(), 1000 + static_cast<uint32_t>(i));
    expect_bytes(
        dev.read(live[i].get(), live[i].bytes()), want, 0, want.size(),
        fmt::format("allocating {} buffers and writing a distinct pattern into each", kCount),
        fmt::format("allocation {} ({} bytes at {}, {})", i, live[i].bytes(),
                    fmt::ptr(live[i].get()), dev.observed()));
  }
  for (Allocation& a : live) a.release();
}

}  // namespace bp::conformance::device_api
