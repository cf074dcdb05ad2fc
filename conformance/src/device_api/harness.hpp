// The harness of the device-API checks (device_checks.cpp): the device under test through
// its raw C table (Dev), an allocation and a stream that clean up after a failed check, the
// byte patterns written and the comparison that says which byte went wrong. Every helper
// fails the check by throwing CheckFailure with a message naming the call.
#pragma once

#include "backplane/conformance/device_checks.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bp::conformance::device_api {

using Bytes = std::vector<unsigned char>;

constexpr size_t kMiB = size_t{1} << 20;

// Thrown by the helpers below with the check's failure message; caught by the check's
// wrapper in device_checks.cpp.
struct CheckFailure {
  std::string message;
};

[[noreturn]] inline void fail(std::string message) {
  throw CheckFailure{std::move(message)};
}

// "BP_ERR_DEVICE", ... and "status 4 (BP_ERR_DEVICE)" for messages.
const char* status_name(bp_status s);
std::string status_str(bp_status s);
const char* kind_name(bp_copy_kind kind);
std::string stream_str(void* stream);

// Deterministic bytes that differ from their neighbours and between seeds.
Bytes pattern(size_t n, uint32_t seed);
// Every byte differs from `b`'s at the same position: what surrounds a copied range, so
// a byte that is not written (or written where it must not be) is always seen.
Bytes complement(const Bytes& b);

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
                  std::string_view after, std::string_view what);

}  // namespace bp::conformance::device_api
