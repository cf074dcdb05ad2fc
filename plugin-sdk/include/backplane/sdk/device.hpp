// A device-API base for plugin authors: derive from sdk::Device, override what your
// hardware does, and sdk::device_api() turns it into the C table (bp_device_api) the
// runtime calls, with every exception caught at the boundary. sdk::HostMemoryDevice is a
// complete device whose memory is host memory (a CPU-like backend, or a starting point).
// The Device object is owned by the plugin and must outlive its registration (until
// shutdown); the runtime may call it from any thread, so overrides must be thread-safe.
// Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/host_allocation.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace bp::sdk {

// Copies `text` into a C buffer of `capacity` (>= 1) bytes, truncated to fit, always
// NUL-terminated: how a plugin answers the ABI's "write into out" calls.
inline void copy_text(std::string_view text, char* out, size_t capacity) {
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

class Device {
 public:
  virtual ~Device() = default;

  // Number of usable devices; when 0, set *reason to a static string saying why.
  virtual int32_t device_count(const char** reason) = 0;
  // Fill `out` (zeroed, with this SDK's struct_size: every member exists) for device `index`.
  virtual void properties(int32_t index, bp_device_props& out) = 0;
  virtual void* allocate(int32_t index, size_t bytes, size_t alignment) = 0;
  virtual void deallocate(int32_t index, void* ptr) = 0;
  virtual void copy(int32_t index, bp_copy_kind kind, void* dst, const void* src, size_t bytes,
                    void* stream) = 0;
  // Streams: a device that has them returns true from has_streams() and overrides the
  // three functions below; otherwise work is synchronous and they are never called.
  virtual bool has_streams() const { return false; }
  virtual void* create_stream(int32_t) { throw Error(BP_ERR_UNSUPPORTED, "no streams"); }
  virtual void destroy_stream(int32_t, void*) {}
  virtual void synchronize(int32_t, void*) {}
  // ABI 1.2: what decides this device's results beyond its properties, as space-separated
  // key=value pairs ("isa=avx2 highway=AVX2"); "" says nothing. Reports print it
  // (bp_device_api::device_attributes); it is asked on demand, never while loading.
  virtual std::string attributes(int32_t) { return {}; }

  // The host API, set by sdk::Host::register_backend; errors are reported through it.
  const bp_host_api* host = nullptr;

  // Copies a C string into a fixed-size props field, always NUL-terminated.
  template <size_t N>
  static void set_text(char (&field)[N], const std::string& text) {
    copy_text(text, field, N);
  }
};

// One device whose memory is ordinary host memory: alloc is aligned_alloc (refusing what
// host_allocation.hpp refuses), copies are memmove, no streams. Derive to add properties
// (memory sizes, compute units) or attributes; the setters below change the rest.
class HostMemoryDevice : public Device {
 public:
  HostMemoryDevice(std::string name, std::string vendor, bp_dtype_mask dtypes = BP_DTYPES_ALL)
      : name_(std::move(name)), who_(name_), vendor_(std::move(vendor)), dtypes_(dtypes) {}

  // The name messages start with ("cpu: cannot allocate ..."): the backend's, where the
  // device's name is a description. The device name by default.
  HostMemoryDevice& named_in_messages(std::string who) {
    who_ = std::move(who);
    return *this;
  }
  // The least alignment of every allocation (SIMD kernels may want a cache line).
  HostMemoryDevice& min_alignment(size_t alignment) {
    min_alignment_ = alignment;
    return *this;
  }

  int32_t device_count(const char** reason) override {
    *reason = nullptr;
    return 1;
  }
  void properties(int32_t index, bp_device_props& out) override {
    check_index(index);
    set_text(out.name, name_);
    set_text(out.vendor, vendor_);
    out.compute_units = 1;
    out.flags = BP_DEVICE_HOST_ACCESSIBLE;
    out.dtypes = dtypes_;
  }
  void* allocate(int32_t index, size_t bytes, size_t alignment) override {
    check_index(index);
    for (const HostAllocationRefusal& r :
         {check_host_alignment(who_, alignment), check_host_memory(who_, bytes)})
      if (r.status != BP_OK) throw Error(r.status, r.message);
    alignment = std::max(alignment, min_alignment_);
    // aligned_alloc wants a non-zero multiple of the alignment.
    const size_t rounded = bytes == 0 ? alignment : (bytes + alignment - 1) / alignment * alignment;
    void* p = std::aligned_alloc(alignment, rounded);
    if (!p)
      throw Error(BP_ERR_OUT_OF_MEMORY, who_ + ": cannot allocate " + std::to_string(bytes) +
                                            " bytes aligned to " + std::to_string(alignment));
    return p;
  }
  void deallocate(int32_t, void* ptr) override { std::free(ptr); }
  void copy(int32_t index, bp_copy_kind, void* dst, const void* src, size_t bytes, void*) override {
    check_index(index);
    if (bytes) std::memmove(dst, src, bytes);
  }

 protected:
  void check_index(int32_t index) const {
    if (index != 0)
      throw Error(BP_ERR_INVALID_ARGUMENT,
                  who_ + " has one device (index 0), not " + std::to_string(index));
  }

 private:
  std::string name_;
  std::string who_;
  std::string vendor_;
  bp_dtype_mask dtypes_;
  size_t min_alignment_ = alignof(std::max_align_t);
};

namespace detail {

inline Device& device_of(void* ctx) {
  return *static_cast<Device*>(ctx);
}

inline bp_status device_count(void* ctx, int32_t* out_count, const char** out_reason) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] {
    const char* reason = nullptr;
    *out_count = d.device_count(&reason);
    if (out_reason) *out_reason = reason;
  });
}
inline bp_status device_properties(void* ctx, int32_t index, bp_device_props* out) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] {
    // Filled whole here, then copied as far as the caller's struct reaches: a runtime of an
    // older minor passes a smaller struct without the later members. struct_size stays the
    // caller's (plugin.h): a runtime of a newer minor passes a larger one.
    bp_device_props full{};
    full.struct_size = sizeof full;
    d.properties(index, full);
    const size_t caller_size = out->struct_size;
    std::memcpy(out, &full, std::min(caller_size, sizeof full));
    out->struct_size = caller_size;
  });
}
inline bp_status device_alloc(void* ctx, int32_t index, size_t bytes, size_t alignment,
                              void** out) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] { *out = d.allocate(index, bytes, alignment); });
}
inline bp_status device_free(void* ctx, int32_t index, void* ptr) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] { d.deallocate(index, ptr); });
}
inline bp_status device_copy(void* ctx, int32_t index, bp_copy_kind kind, void* dst,
                             const void* src, size_t bytes, void* stream) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] { d.copy(index, kind, dst, src, bytes, stream); });
}
inline bp_status stream_create(void* ctx, int32_t index, void** out) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] { *out = d.create_stream(index); });
}
inline bp_status stream_destroy(void* ctx, int32_t index, void* stream) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] { d.destroy_stream(index, stream); });
}
inline bp_status synchronize(void* ctx, int32_t index, void* stream) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] { d.synchronize(index, stream); });
}
inline bp_status device_attributes(void* ctx, int32_t index, char* out, size_t capacity) {
  Device& d = device_of(ctx);
  return guard(d.host, [&] {
    if (!out || capacity == 0) throw Error(BP_ERR_INVALID_ARGUMENT, "no attributes buffer");
    copy_text(d.attributes(index), out, capacity);
  });
}

}  // namespace detail

// The C device table over a Device (pass the Device* as the backend's ctx). Two static
// tables: with stream slots for devices that have streams, without (NULL) otherwise.
// device_attributes is ABI 1.2: built against an older plugin.h (a vendor targeting an
// older runtime, tests/abi), the table ends before it and Device::attributes goes unasked.
inline const bp_device_api& device_api(const Device& device) {
  static const bp_device_api with_streams = {
    sizeof(bp_device_api),
    detail::device_count,
    detail::device_properties,
    detail::device_alloc,
    detail::device_free,
    detail::device_copy,
    detail::stream_create,
    detail::stream_destroy,
    detail::synchronize,
#if BP_ABI_MINOR >= 2
    detail::device_attributes
#endif
  };
  static const bp_device_api without_streams = {
    sizeof(bp_device_api),
    detail::device_count,
    detail::device_properties,
    detail::device_alloc,
    detail::device_free,
    detail::device_copy,
    nullptr,
    nullptr,
    detail::synchronize,
#if BP_ABI_MINOR >= 2
    detail::device_attributes
#endif
  };
  return device.has_streams() ? with_streams : without_streams;
}

}  // namespace bp::sdk
