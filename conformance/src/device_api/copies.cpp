// The device-API checks of copy: each direction, at offsets, and of 0 bytes; the bytes
// around the copied range must stay untouched.
#include "checks.hpp"

#include <algorithm>

namespace bp::conformance::device_api {
namespace {

// One copy: how many bytes, and where in the source and destination buffers.
struct CopyShape {
  size_t bytes, src_offset, dst_offset;
};

std::vector<CopyShape> copy_shapes() {
  constexpr size_t kSizes[] = {1, 2, 3, 7, 64, 255, 4096, 4099, 65537, kMiB + 3};
  // (source offset, destination offset): both aligned, each one odd, both odd and unequal.
  constexpr size_t kOffsets[][2] = {{0, 0}, {1, 0}, {0, 1}, {3, 7}, {64, 13}};
  std::vector<CopyShape> out;
  for (const size_t bytes : kSizes)
    for (const auto& off : kOffsets) out.push_back({bytes, off[0], off[1]});
  return out;
}

constexpr size_t kTail = 61;  // bytes after the copied range that must stay untouched

// What a destination must hold after copy `c`: its background with the source range in place.
Bytes expected_after(const Bytes& background, const Bytes& src, const CopyShape& c) {
  Bytes want = background;
  std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(c.src_offset), c.bytes,
              want.begin() + static_cast<std::ptrdiff_t>(c.dst_offset));
  return want;
}

}  // namespace

void check_copy_host_to_device(const Dev& dev) {
  uint32_t seed = 1;
  for (const CopyShape& c : copy_shapes()) {
    const size_t n = c.dst_offset + c.bytes + kTail;
    const Bytes src = pattern(c.src_offset + c.bytes + 3, seed++);
    const Bytes background = complement(pattern(n, seed++));
    Allocation d(dev, n);
    dev.fill(d.get(), background);
    const std::string what = fmt::format("dst device+{}, src host+{}", c.dst_offset, c.src_offset);
    dev.copy(BP_COPY_HOST_TO_DEVICE, d.get() + c.dst_offset, src.data() + c.src_offset, c.bytes,
             nullptr, what);
    dev.synchronize(nullptr);
    const Bytes want = expected_after(background, src, c);
    expect_bytes(dev.read(d.get(), n), want, c.dst_offset, c.dst_offset + c.bytes,
                 dev.copy_call(BP_COPY_HOST_TO_DEVICE, c.bytes, nullptr, what),
                 fmt::format("device buffer ({} bytes, {})", n, dev.observed()));
    d.release();
  }
}

void check_copy_device_to_host(const Dev& dev) {
  uint32_t seed = 1;
  for (const CopyShape& c : copy_shapes()) {
    const size_t n = c.dst_offset + c.bytes + kTail;
    const Bytes src = pattern(c.src_offset + c.bytes + 3, seed++);
    Allocation d(dev, src.size());
    dev.fill(d.get(), src);
    const Bytes background = complement(pattern(n, seed++));
    Bytes host = background;
    const std::string what = fmt::format("dst host+{}, src device+{}", c.dst_offset, c.src_offset);
    dev.copy(BP_COPY_DEVICE_TO_HOST, host.data() + c.dst_offset, d.get() + c.src_offset, c.bytes,
             nullptr, what);
    dev.synchronize(nullptr);
    const Bytes want = expected_after(background, src, c);
    expect_bytes(host, want, c.dst_offset, c.dst_offset + c.bytes,
                 dev.copy_call(BP_COPY_DEVICE_TO_HOST, c.bytes, nullptr, what),
                 fmt::format("host buffer ({} bytes)", n));
    d.release();
  }
}

void check_copy_device_to_device(const Dev& dev) {
  uint32_t seed = 1;
  for (const CopyShape& c : copy_shapes()) {
    const size_t n = c.dst_offset + c.bytes + kTail;
    const Bytes src = pattern(c.src_offset + c.bytes + 3, seed++);
    const Bytes background = complement(pattern(n, seed++));
    Allocation s(dev, src.size());
    Allocation d(dev, n);
    dev.fill(s.get(), src);
    dev.fill(d.get(), background);
    const std::string what =
        fmt::format("dst device+{}, src device+{}", c.dst_offset, c.src_offset);
    const std::string call = dev.copy_call(BP_COPY_DEVICE_TO_DEVICE, c.bytes, nullptr, what);
    dev.copy(BP_COPY_DEVICE_TO_DEVICE, d.get() + c.dst_offset, s.get() + c.src_offset, c.bytes,
             nullptr, what);
    dev.synchronize(nullptr);
    const Bytes want = expected_after(background, src, c);
    expect_bytes(dev.read(d.get(), n), want, c.dst_offset, c.dst_offset + c.bytes, call,
                 fmt::format("destination buffer ({} bytes, {})", n, dev.observed()));
    expect_bytes(dev.read(s.get(), src.size()), src, 0, 0, call,
                 fmt::format("source buffer ({} bytes, must be unchanged)", src.size()));
    s.release();
    d.release();
  }
}

void check_copy_zero_bytes(const Dev& dev) {
  const Bytes want = pattern(32, 5);
  Allocation a(dev, 32);
  Allocation b(dev, 32);
  dev.fill(a.get(), want);
  dev.fill(b.get(), want);
  Bytes host = complement(want);
  const Bytes host_before = host;
  dev.copy(BP_COPY_HOST_TO_DEVICE, a.get() + 4, host.data(), 0, nullptr,
           "dst device+4, src host+0");
  dev.copy(BP_COPY_DEVICE_TO_HOST, host.data() + 4, b.get(), 0, nullptr,
           "dst host+4, src device+0");
  dev.copy(BP_COPY_DEVICE_TO_DEVICE, b.get() + 4, a.get(), 0, nullptr,
           "dst device+4, src device+0");
  dev.synchronize(nullptr);
  const char* after = "copies of 0 bytes in each direction";
  expect_bytes(dev.read(a.get(), 32), want, 4, 4, after, "device buffer a");
  expect_bytes(dev.read(b.get(), 32), want, 4, 4, after, "device buffer b");
  expect_bytes(host, host_before, 4, 4, after, "host buffer");
  a.release();
  b.release();
}

}  // namespace bp::conformance::device_api
