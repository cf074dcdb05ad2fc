// The reference backend's entry point, device API (plain host memory) and the small
// helpers its kernel files share. Built into the runtime, it is still a plugin: the
// runtime reaches it only through bp_reference_plugin_query() and the C ABI.
#include "reference.hpp"

#include <backplane/sdk/host_allocation.hpp>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace bp::reference {

const bp_host_api* g_host = nullptr;

bp_status fail(bp_status code, const std::string& message) {
  if (g_host) g_host->set_error(g_host->host, code, message.c_str());
  return code;
}

size_t dtype_size(bp_dtype dtype) {
  return visit_dtype(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

const char* dtype_name(bp_dtype dtype) {
  static const char* const names[] = {"bool", "i8",  "u8",   "i16", "i32",
                                      "i64",  "f16", "bf16", "f32", "f64"};
  return dtype < BP_DTYPE_COUNT ? names[dtype] : "?";
}

View::View(const bp_tensor* t)
    : base(static_cast<char*>(t->data) + t->byte_offset),
      ndim(t->ndim),
      shape(t->shape),
      strides(t->strides),
      dtype(t->dtype),
      itemsize(dtype_size(t->dtype)) {}

int64_t View::numel() const {
  int64_t n = 1;
  for (int32_t d = 0; d < ndim; ++d) n *= shape[d];
  return n;
}

double arg_double(const bp_call* c, size_t i, double fallback) {
  const bp_value& v = c->args[i];
  switch (v.tag) {
    case BP_VALUE_FLOAT:
      return v.u.f;
    case BP_VALUE_INT:
      return static_cast<double>(v.u.i);
    case BP_VALUE_BOOL:
      return v.u.b ? 1.0 : 0.0;
    default:
      return fallback;
  }
}

int64_t arg_int(const bp_call* c, size_t i, int64_t fallback) {
  const bp_value& v = c->args[i];
  switch (v.tag) {
    case BP_VALUE_INT:
      return v.u.i;
    case BP_VALUE_BOOL:
      return v.u.b ? 1 : 0;
    case BP_VALUE_FLOAT:  // truncate; NaN and out-of-range values are not integers
      if (!(v.u.f > -9223372036854775808.0 && v.u.f < 9223372036854775808.0)) return fallback;
      return static_cast<int64_t>(v.u.f);
    default:
      return fallback;
  }
}

bp_status register_kernels(uint32_t backend_id, const KernelEntry* entries, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    bp_status s = g_host->register_kernel(g_host->host, backend_id, entries[i].op_name,
                                          entries[i].dtypes, entries[i].fn, nullptr);
    if (s != BP_OK) return s;
  }
  return BP_OK;
}

namespace {

// ---- device API: one device whose memory is ordinary host memory ----------------------
bp_status device_count(void*, int32_t* out_count, const char** out_reason) {
  *out_count = 1;
  if (out_reason) *out_reason = nullptr;
  return BP_OK;
}

bp_status device_properties(void*, int32_t index, bp_device_props* out) {
  if (index != 0) return fail(BP_ERR_INVALID_ARGUMENT, "reference has one device (index 0)");
  const size_t size = out->struct_size;
  std::memset(out, 0, size);
  out->struct_size = size;
  std::strncpy(out->name, "Backplane reference (host, double-precision oracle)",
               sizeof out->name - 1);
  std::strncpy(out->vendor, "Backplane", sizeof out->vendor - 1);
  out->compute_units = 1;
  out->flags = BP_DEVICE_HOST_ACCESSIBLE;
  out->dtypes = BP_DTYPES_ALL;
  return BP_OK;
}

bp_status device_alloc(void*, int32_t, size_t bytes, size_t alignment, void** out) {
  for (const auto& refusal : {bp::sdk::check_host_alignment("reference", alignment),
                              bp::sdk::check_host_memory("reference", bytes)})
    if (refusal.status != BP_OK) return fail(refusal.status, refusal.message);
  if (alignment < alignof(std::max_align_t)) alignment = alignof(std::max_align_t);
  // aligned_alloc needs a size that is a multiple of the alignment (and non-zero).
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  void* p = std::aligned_alloc(alignment, rounded);
  if (!p)
    return fail(BP_ERR_OUT_OF_MEMORY,
                "reference: cannot allocate " + std::to_string(bytes) + " bytes");
  *out = p;
  return BP_OK;
}

bp_status device_free(void*, int32_t, void* ptr) {
  std::free(ptr);
  return BP_OK;
}

bp_status device_copy(void*, int32_t, bp_copy_kind, void* dst, const void* src, size_t bytes,
                      void*) {
  if (bytes) std::memmove(dst, src, bytes);
  return BP_OK;
}

bp_status device_synchronize(void*, int32_t, void*) {
  return BP_OK;
}

const bp_device_api kDeviceApi = {
    sizeof(bp_device_api), device_count, device_properties, device_alloc,       device_free,
    device_copy,           nullptr,      nullptr,           device_synchronize, nullptr};

bp_status init(const bp_host_api* host, const char*) {
  g_host = host;
  uint32_t backend = 0;
  bp_status s = host->register_backend(host->host, "reference", &kDeviceApi, nullptr, &backend);
  if (s != BP_OK) return s;
  for (auto reg :
       {register_copy_kernels, register_unary_kernels, register_binary_kernels,
        register_reduction_kernels, register_indexing_kernels, register_linalg_kernels}) {
    s = reg(backend);
    if (s != BP_OK) return s;
  }
  return BP_OK;
}

void shutdown() {
  g_host = nullptr;
}

const bp_plugin_descriptor kDescriptor = {
    sizeof(bp_plugin_descriptor),
    BP_ABI_MAJOR,
    BP_ABI_MINOR,
    "reference",
    "0.1.0",
    "Backplane",
    init,
    shutdown,
};

}  // namespace
}  // namespace bp::reference

// Built into the runtime under this name; a shared-library build exports bp_plugin_query.
extern "C" const bp_plugin_descriptor* bp_reference_plugin_query(void) {
  return &bp::reference::kDescriptor;
}
#ifdef BP_REFERENCE_AS_MODULE
extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &bp::reference::kDescriptor;
}
#endif
