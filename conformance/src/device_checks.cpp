// The device-API checks of the conformance suite: each one drives a device's raw C table
// (bp_device_api, as its plugin registered it) with no dispatcher, tensor or caching
// allocator in between, and says which call, with which arguments, went wrong.
//
// How results are observed: on a device whose memory the host may access
// (BP_DEVICE_HOST_ACCESSIBLE), buffers are filled and read back with plain memcpy, so a
// check of one copy direction does not depend on the other direction being right; on other
// devices they go through host-to-device and device-to-host copies, and a broken copy shows
// up in every check that reads memory back. Device pointers are offset with byte arithmetic,
// as the runtime does for tensors (data_ptr() + offset is passed to copy).
//
// Decisions on what the ABI (plugin.h) leaves open:
//   - free(NULL): the ABI does not define it; any status is accepted, only a crash fails.
//   - alloc with an alignment that is not a power of two: plugin.h states the alignment
//     *is* a power of two, a precondition on the caller (the runtime never passes another),
//     not an input the plugin must validate. So rejecting it with an error status passes,
//     and so does accepting it, provided the memory is usable and freeable; returning OK
//     with a NULL pointer for a non-zero size fails, as does a crash.
//   - streams: stream_create and stream_destroy are optional but come as a pair; a device
//     with neither passes the stream checks on its default stream alone. synchronize is
//     optional (work is then synchronous).
//   - a check that does not apply to a device (256 MiB on a device with less memory)
//     passes.
#include "backplane/conformance/device_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bp::conformance {
namespace {

using Bytes = std::vector<unsigned char>;

constexpr size_t kMiB = size_t{1} << 20;

// Thrown by the helpers below with the check's failure message; caught by run_check.
struct CheckFailure {
  std::string message;
};

[[noreturn]] void fail(std::string message) {
  throw CheckFailure{std::move(message)};
}

const char* status_name(bp_status s) {
  switch (s) {
    case BP_OK:
      return "BP_OK";
    case BP_ERR_INVALID_ARGUMENT:
      return "BP_ERR_INVALID_ARGUMENT";
    case BP_ERR_UNSUPPORTED:
      return "BP_ERR_UNSUPPORTED";
    case BP_ERR_OUT_OF_MEMORY:
      return "BP_ERR_OUT_OF_MEMORY";
    case BP_ERR_DEVICE:
      return "BP_ERR_DEVICE";
    case BP_ERR_INDEX:
      return "BP_ERR_INDEX";
    case BP_ERR_INTERNAL:
      return "BP_ERR_INTERNAL";
    case BP_ERR_NOT_FOUND:
      return "BP_ERR_NOT_FOUND";
    case BP_ERR_NO_DEVICE:
      return "BP_ERR_NO_DEVICE";
    default:
      return "unknown status";
  }
}

std::string status_str(bp_status s) {
  return fmt::format("status {} ({})", s, status_name(s));
}

const char* kind_name(bp_copy_kind kind) {
  switch (kind) {
    case BP_COPY_HOST_TO_DEVICE:
      return "host-to-device";
    case BP_COPY_DEVICE_TO_HOST:
      return "device-to-host";
    default:
      return "device-to-device";
  }
}

// Deterministic bytes that differ from their neighbours and between seeds.
Bytes pattern(size_t n, uint32_t seed) {
  Bytes out(n);
  uint32_t x = seed * 2654435761u + 0x9E3779B9u;
  for (size_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    out[i] = static_cast<unsigned char>(x >> 11);
  }
  return out;
}

// Every byte differs from `b`'s at the same position: what surrounds a copied range, so
// a byte that is not written (or written where it must not be) is always seen.
Bytes complement(const Bytes& b) {
  Bytes out(b.size());
  for (size_t i = 0; i < b.size(); ++i) out[i] = static_cast<unsigned char>(~b[i]);
  return out;
}

std::string stream_str(void* stream) {
  return stream ? fmt::format("stream {}", fmt::ptr(stream)) : std::string("default stream");
}

// The device under test through its raw table. Every helper fails the check (throws
// CheckFailure) with a message naming the call when the device misbehaves.
class Dev {
 public:
  explicit Dev(const RawDeviceApi& raw) : api_(*raw.api), ctx_(raw.ctx), index_(raw.index) {
    props_.struct_size = sizeof props_;
    const bp_status s = api_.device_properties(ctx_, index_, &props_);
    if (s != BP_OK)
      fail(fmt::format("device_properties(index {}) returned {}", index_, status_str(s)));
    host_accessible_ = (props_.flags & BP_DEVICE_HOST_ACCESSIBLE) != 0;
  }

  const bp_device_api& api() const { return api_; }
  void* ctx() const { return ctx_; }
  int32_t index() const { return index_; }
  const bp_device_props& props() const { return props_; }
  bool has_streams() const { return api_.stream_create != nullptr; }

  std::string alloc_call(size_t bytes, size_t alignment) const {
    return fmt::format("alloc(index {}, {} bytes, alignment {})", index_, bytes, alignment);
  }

  bp_status try_alloc(size_t bytes, size_t alignment, void** out) const {
    *out = nullptr;
    return api_.alloc(ctx_, index_, bytes, alignment, out);
  }

  // A usable allocation: OK status, non-NULL for a non-zero size.
  void* alloc(size_t bytes, size_t alignment) const {
    void* p = nullptr;
    const bp_status s = try_alloc(bytes, alignment, &p);
    if (s != BP_OK)
      fail(fmt::format("{} returned {}", alloc_call(bytes, alignment), status_str(s)));
    if (p == nullptr && bytes > 0)
      fail(fmt::format("{} returned BP_OK and a NULL pointer", alloc_call(bytes, alignment)));
    return p;
  }

  void free(void* p) const {
    const bp_status s = api_.free(ctx_, index_, p);
    if (s != BP_OK)
      fail(fmt::format("free(index {}, {}) returned {}", index_, fmt::ptr(p), status_str(s)));
  }

  // `what` describes dst and src for the message, e.g. "dst device+3, src host+0".
  void copy(bp_copy_kind kind, void* dst, const void* src, size_t bytes, void* stream,
            std::string_view what) const {
    const bp_status s = api_.copy(ctx_, index_, kind, dst, src, bytes, stream);
    if (s != BP_OK)
      fail(fmt::format("{} returned {}", copy_call(kind, bytes, stream, what), status_str(s)));
  }

  std::string copy_call(bp_copy_kind kind, size_t bytes, void* stream,
                        std::string_view what) const {
    return fmt::format("copy(index {}, {}, {}, {} bytes, {})", index_, kind_name(kind), what, bytes,
                       stream_str(stream));
  }

  void synchronize(void* stream) const {
    if (api_.synchronize == nullptr) return;  // optional: work is synchronous
    const bp_status s = api_.synchronize(ctx_, index_, stream);
    if (s != BP_OK)
      fail(fmt::format("synchronize(index {}, {}) returned {}", index_, stream_str(stream),
                       status_str(s)));
  }

  // Writes `bytes` into device memory at `dst`: directly when the host may access it,
  // else with a host-to-device copy on the default stream.
  void fill(void* dst, const Bytes& bytes) const {
    if (bytes.empty()) return;
    if (host_accessible_) {
      std::memcpy(dst, bytes.data(), bytes.size());
      return;
    }
    copy(BP_COPY_HOST_TO_DEVICE, dst, bytes.data(), bytes.size(), nullptr,
         "dst device buffer, src host buffer (filling the buffer)");
    synchronize(nullptr);
  }

  // Reads `n` bytes of device memory at `src` (directly, or with a device-to-host copy).
  Bytes read(const void* src, size_t n) const {
    Bytes out(n);
    if (n == 0) return out;
    if (host_accessible_) {
      std::memcpy(out.data(), src, n);
      return out;
    }
    copy(BP_COPY_DEVICE_TO_HOST, out.data(), src, n, nullptr,
         "dst host buffer, src device buffer (reading the buffer back)");
    synchronize(nullptr);
    return out;
  }

  // How device memory is observed, for messages.
  const char* observed() const {
    return host_accessible_ ? "read directly (host-accessible device)"
                            : "read back with a device-to-host copy";
  }

 private:
  const bp_device_api& api_;
  void* ctx_;
  int32_t index_;
  bp_device_props props_{};
  bool host_accessible_ = false;
};

// One device allocation, freed when it goes out of scope (on a failure path, ignoring the
// status); release() frees it and checks the status.
class Allocation {
 public:
  Allocation(const Dev& dev, size_t bytes, size_t alignment = 16)
      : dev_(&dev), ptr_(dev.alloc(bytes, alignment)), bytes_(bytes) {}
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  Allocation(Allocation&& o) noexcept
      : dev_(o.dev_), ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_), live_(o.live_) {
    o.live_ = false;
  }
  Allocation& operator=(Allocation&&) = delete;
  ~Allocation() {
    if (live_) (void)dev_->api().free(dev_->ctx(), dev_->index(), ptr_);
  }

  char* get() const { return static_cast<char*>(ptr_); }
  size_t bytes() const { return bytes_; }
  void release() {
    live_ = false;
    dev_->free(ptr_);
  }

 private:
  const Dev* dev_;
  void* ptr_;
  size_t bytes_;
  bool live_ = true;
};

// A created stream (or the default stream when the device has none), destroyed on scope
// exit.
class Stream {
 public:
  explicit Stream(const Dev& dev) : dev_(dev) {
    if (!dev.has_streams()) return;
    const bp_status s = dev.api().stream_create(dev.ctx(), dev.index(), &stream_);
    if (s != BP_OK)
      fail(fmt::format("stream_create(index {}) returned {}", dev.index(), status_str(s)));
    if (stream_ == nullptr)
      fail(
          fmt::format("stream_create(index {}) returned BP_OK and a NULL stream (NULL means "
                      "the default stream)",
                      dev.index()));
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    if (stream_) (void)dev_.api().stream_destroy(dev_.ctx(), dev_.index(), stream_);
  }
  void* get() const { return stream_; }
  void destroy() {
    const bp_status s =
        dev_.api().stream_destroy(dev_.ctx(), dev_.index(), std::exchange(stream_, nullptr));
    if (s != BP_OK)
      fail(fmt::format("stream_destroy(index {}) returned {}", dev_.index(), status_str(s)));
  }

 private:
  const Dev& dev_;
  void* stream_ = nullptr;
};

// Fails with the first byte of `got` that differs from `want`, naming where it lies with
// respect to [begin, end) — the range the operation under test was meant to write.
void expect_bytes(const Bytes& got, const Bytes& want, size_t begin, size_t end,
                  std::string_view after, std::string_view what) {
  size_t bad = 0;
  size_t first = got.size();
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;
    if (bad++ == 0) first = i;
  }
  if (bad == 0) return;
  std::string where;
  if (first < begin) {
    where =
        fmt::format("{} bytes before the copied range (written, must be untouched)", begin - first);
  } else if (first >= end) {
    where = fmt::format("{} bytes after the end of the copied range (written, must be untouched)",
                        first - end);
  } else if (first == end - 1) {
    where = fmt::format("the last byte of the copied range (byte {} of {})", first - begin,
                        end - begin);
  } else {
    where = fmt::format("byte {} of the {}-byte copied range", first - begin, end - begin);
  }
  fail(fmt::format("after {}: {} byte {} is 0x{:02x}, expected 0x{:02x}: {}; {} of {} bytes wrong",
                   after, what, first, got[first], want[first], where, bad, got.size()));
}

// Runs a check body, turning its failure (or any exception) into the check's message.
template <typename Body>
std::function<std::string(const RawDeviceApi&)> check(Body body) {
  return [body](const RawDeviceApi& raw) -> std::string {
    if (raw.api == nullptr) return "the device has no device API table";
    try {
      const Dev dev(raw);
      body(dev);
      return {};
    } catch (const CheckFailure& f) {
      return f.message;
    } catch (const std::exception& e) {
      return fmt::format("the check threw: {}", e.what());
    }
  };
}

// ---- device enumeration --------------------------------------------------------------

void check_properties(const Dev& dev) {
  int32_t count = -1;
  const char* reason = nullptr;
  const bp_status s = dev.api().device_count(dev.ctx(), &count, &reason);
  if (s != BP_OK) fail(fmt::format("device_count returned {}", status_str(s)));
  if (count < dev.index() + 1)
    fail(fmt::format("device_count returned {} devices, but device index {} is in use", count,
                     dev.index()));
  bp_device_props props{};
  props.struct_size = sizeof props;
  const bp_status ps = dev.api().device_properties(dev.ctx(), dev.index(), &props);
  const std::string call = fmt::format("device_properties(index {})", dev.index());
  if (ps != BP_OK) fail(fmt::format("{} returned {}", call, status_str(ps)));
  if (props.struct_size != sizeof props)
    fail(fmt::format("{} changed struct_size from {} to {} (it belongs to the caller)", call,
                     sizeof props, props.struct_size));
  if (std::memchr(props.name, '\0', sizeof props.name) == nullptr)
    fail(
        fmt::format("{}: name is not NUL-terminated within its {} bytes", call, sizeof props.name));
  if (props.name[0] == '\0') fail(fmt::format("{}: name is empty", call));
  if (std::memchr(props.vendor, '\0', sizeof props.vendor) == nullptr)
    fail(fmt::format("{}: vendor is not NUL-terminated within its {} bytes", call,
                     sizeof props.vendor));
  if (props.dtypes == 0) fail(fmt::format("{}: dtypes mask is 0 (no dtype supported)", call));
  if ((props.dtypes & ~BP_DTYPES_ALL) != 0)
    fail(fmt::format("{}: dtypes mask 0x{:x} has bits beyond BP_DTYPES_ALL (0x{:x})", call,
                     props.dtypes, BP_DTYPES_ALL));
  if (props.total_memory != 0 && props.free_memory > props.total_memory)
    fail(fmt::format("{}: free_memory {} exceeds total_memory {}", call, props.free_memory,
                     props.total_memory));
}

void check_properties_bad_index(const Dev& dev) {
  int32_t count = 0;
  const char* reason = nullptr;
  const bp_status s = dev.api().device_count(dev.ctx(), &count, &reason);
  if (s != BP_OK) fail(fmt::format("device_count returned {}", status_str(s)));
  for (const int32_t bad : {count, count + 7, int32_t{-1}}) {
    bp_device_props props{};
    props.struct_size = sizeof props;
    const bp_status ps = dev.api().device_properties(dev.ctx(), bad, &props);
    if (ps == BP_OK)
      fail(
          fmt::format("device_properties(index {}) returned BP_OK for an index out of range "
                      "(device_count is {})",
                      bad, count));
  }
}

// ---- allocation ----------------------------------------------------------------------

// Writes a pattern over the whole allocation and reads it back.
void expect_usable(const Dev& dev, const Allocation& a, uint32_t seed, std::string_view call) {
  const Bytes want = pattern(a.bytes(), seed);
  dev.fill(a.get(), want);
  expect_bytes(dev.read(a.get(), a.bytes()), want, 0, a.bytes(),
               fmt::format("{} and writing all {} bytes", call, a.bytes()),
               fmt::format("the allocation ({})", dev.observed()));
}

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

// ---- copies --------------------------------------------------------------------------

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
    Bytes want = background;
    std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(c.src_offset), c.bytes,
                want.begin() + static_cast<std::ptrdiff_t>(c.dst_offset));
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
    Bytes want = background;
    std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(c.src_offset), c.bytes,
                want.begin() + static_cast<std::ptrdiff_t>(c.dst_offset));
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
    Bytes want = background;
    std::copy_n(src.begin() + static_cast<std::ptrdiff_t>(c.src_offset), c.bytes,
                want.begin() + static_cast<std::ptrdiff_t>(c.dst_offset));
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

// ---- streams ---------------------------------------------------------------------------

void check_streams_create_destroy(const Dev& dev) {
  const bool create = dev.api().stream_create != nullptr;
  const bool destroy = dev.api().stream_destroy != nullptr;
  if (create != destroy)
    fail(fmt::format("stream_create is {} but stream_destroy is {}: the two come together",
                     create ? "set" : "NULL", destroy ? "set" : "NULL"));
  if (!create) return;  // no streams: work is synchronous on the default stream
  std::vector<void*> streams;
  auto cleanup = [&] {
    for (void* s : streams) (void)dev.api().stream_destroy(dev.ctx(), dev.index(), s);
  };
  for (int i = 0; i < 4; ++i) {
    void* s = nullptr;
    const bp_status st = dev.api().stream_create(dev.ctx(), dev.index(), &s);
    if (st != BP_OK) {
      cleanup();
      fail(fmt::format("stream_create(index {}) returned {} with {} other streams alive",
                       dev.index(), status_str(st), streams.size()));
    }
    if (s == nullptr || std::find(streams.begin(), streams.end(), s) != streams.end()) {
      cleanup();
      fail(
          fmt::format("stream_create(index {}) returned {} with {} other streams alive (must be "
                      "non-NULL and distinct)",
                      dev.index(), fmt::ptr(s), streams.size()));
    }
    streams.push_back(s);
  }
  try {
    for (void* s : streams) dev.synchronize(s);  // an idle stream
  } catch (const CheckFailure&) {
    cleanup();
    throw;
  }
  while (!streams.empty()) {
    void* s = streams.back();
    streams.pop_back();
    const bp_status st = dev.api().stream_destroy(dev.ctx(), dev.index(), s);
    if (st != BP_OK) {
      cleanup();
      fail(fmt::format("stream_destroy(index {}, {}) returned {}", dev.index(), fmt::ptr(s),
                       status_str(st)));
    }
  }
}

// Several copies enqueued on one stream with no synchronisation between them, each one
// depending on the previous: the stream must run them in order.
void check_stream_ordering(const Dev& dev) {
  constexpr size_t kBytes = 64 * 1024 + 13;
  constexpr size_t kChunks = 8;
  const Bytes first = pattern(kBytes, 31);
  const Bytes second = pattern(kBytes, 32);
  Bytes got_b(kBytes), got_a(kBytes);
  Allocation a(dev, kBytes);
  Allocation b(dev, kBytes);
  // Declared last, so on a failure it is destroyed (and its pending copies done) before the
  // memory they touch is freed.
  Stream stream(dev);
  void* s = stream.get();
  const size_t chunk = (kBytes + kChunks - 1) / kChunks;
  // 1. a = first, in chunks; 2. b = a; 3. a's first chunk = second's; 4. host <- b, host2 <- a.
  for (size_t off = 0; off < kBytes; off += chunk) {
    const size_t len = std::min(chunk, kBytes - off);
    dev.copy(BP_COPY_HOST_TO_DEVICE, a.get() + off, first.data() + off, len, s,
             fmt::format("dst device a+{}, src host+{}", off, off));
  }
  dev.copy(BP_COPY_DEVICE_TO_DEVICE, b.get(), a.get(), kBytes, s, "dst device b, src device a");
  dev.copy(BP_COPY_HOST_TO_DEVICE, a.get(), second.data(), chunk, s, "dst device a, src host");
  dev.copy(BP_COPY_DEVICE_TO_HOST, got_b.data(), b.get(), kBytes, s, "dst host, src device b");
  dev.copy(BP_COPY_DEVICE_TO_HOST, got_a.data(), a.get(), kBytes, s, "dst host, src device a");
  dev.synchronize(s);
  const std::string after = fmt::format(
      "{} host-to-device copies into a, a device-to-device copy a -> b, a host-to-device copy "
      "over a's first {} bytes, device-to-host copies of b and a, all on {}, then synchronize",
      kChunks, chunk, stream_str(s));
  expect_bytes(got_b, first, 0, kBytes, after, "b (as read back by the stream's last copies)");
  Bytes want_a = first;
  std::copy_n(second.begin(), chunk, want_a.begin());
  expect_bytes(got_a, want_a, 0, kBytes, after, "a (as read back by the stream's last copies)");
  a.release();
  b.release();
  if (s != nullptr) stream.destroy();
}

// Data written on one stream and read on the other (each side synchronised first).
void check_stream_and_default_stream(const Dev& dev) {
  constexpr size_t kBytes = 4096 + 5;
  const Bytes first = pattern(kBytes, 41);
  const Bytes second = pattern(kBytes, 42);
  Bytes got(kBytes);
  Allocation a(dev, kBytes);
  Stream stream(dev);            // last: see check_stream_ordering
  void* created = stream.get();  // NULL when the device has no streams
  const std::pair<void*, void*> ways[] = {{created, nullptr}, {nullptr, created}};
  for (const auto& [writer, reader] : ways) {
    const Bytes& want = writer == created ? first : second;
    dev.copy(BP_COPY_HOST_TO_DEVICE, a.get(), want.data(), kBytes, writer, "dst device, src host");
    dev.synchronize(writer);
    dev.copy(BP_COPY_DEVICE_TO_HOST, got.data(), a.get(), kBytes, reader, "dst host, src device");
    dev.synchronize(reader);
    expect_bytes(got, want, 0, kBytes,
                 fmt::format("a host-to-device copy on {}, synchronize, a device-to-host copy on "
                             "{}, synchronize",
                             stream_str(writer), stream_str(reader)),
                 "host buffer");
  }
  a.release();
  if (created != nullptr) stream.destroy();
}

void check_synchronize_default(const Dev& dev) {
  if (dev.api().synchronize == nullptr) return;  // optional
  dev.synchronize(nullptr);                      // idle
  const Bytes want = pattern(1000, 51);
  Allocation a(dev, want.size());
  Bytes got(want.size());
  dev.copy(BP_COPY_HOST_TO_DEVICE, a.get(), want.data(), want.size(), nullptr,
           "dst device, src host");
  dev.copy(BP_COPY_DEVICE_TO_HOST, got.data(), a.get(), want.size(), nullptr,
           "dst host, src device");
  dev.synchronize(nullptr);
  expect_bytes(got, want, 0, want.size(),
               "host-to-device and device-to-host copies on the default stream, then "
               "synchronize(NULL)",
               "host buffer");
  dev.synchronize(nullptr);  // again, now idle
  a.release();
}

std::vector<DeviceCheck> make_checks() {
  std::vector<DeviceCheck> out;
  auto add = [&](const char* name, bool quick, auto body) {
    out.push_back(DeviceCheck{name, quick, check(body)});
  };
  add("properties", true, check_properties);
  add("properties_bad_index", true, check_properties_bad_index);
  add("alloc_zero_bytes", true, check_alloc_zero);
  add("alloc_one_byte", true, [](const Dev& d) { check_alloc_sizes(d, {1}); });
  add("alloc_odd_sizes", true, [](const Dev& d) {
    check_alloc_sizes(d, {3, 7, 13, 127, 1001, 4097, 65537, 1048579});
  });
  add("alloc_64mib", false, [](const Dev& d) { check_alloc_large(d, 64 * kMiB); });
  add("alloc_256mib", false, check_alloc_256mib);
  add("alignment", true, check_alignment);
  add("alignment_not_power_of_two", true, check_alignment_not_power_of_two);
  add("free_null", true, check_free_null);
  add("allocations_disjoint", true, check_allocations_disjoint);
  add("copy_host_to_device", true, check_copy_host_to_device);
  add("copy_device_to_host", true, check_copy_device_to_host);
  add("copy_device_to_device", true, check_copy_device_to_device);
  add("copy_zero_bytes", true, check_copy_zero_bytes);
  add("streams_create_destroy", true, check_streams_create_destroy);
  add("stream_ordering", true, check_stream_ordering);
  add("stream_and_default_stream", true, check_stream_and_default_stream);
  add("synchronize_default", true, check_synchronize_default);
  return out;
}

}  // namespace

const std::vector<DeviceCheck>& device_checks() {
  static const std::vector<DeviceCheck> checks = make_checks();
  return checks;
}

}  // namespace bp::conformance
