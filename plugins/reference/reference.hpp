// Internal header of the reference backend: strided element access, dtype visiting and
// error reporting shared by its kernel files. The reference backend is written for
// clarity, not speed: floating results are computed in double and rounded once to the
// output dtype; integer results are exact (two's-complement wrap-around like PyTorch).
// It sees only plugin-sdk/ (backplane/plugin.h and backplane/sdk/).
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/half.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace bp::reference {

using sdk::BFloat16;
using sdk::Half;

// The host API received at init; valid until shutdown.
extern const bp_host_api* g_host;

// Reports `message` through the host and returns `code`, so kernels can write
//   return fail(BP_ERR_INDEX, "index 7 is out of range for dimension 0 of size 3");
bp_status fail(bp_status code, const std::string& message);

// ---- dtypes --------------------------------------------------------------------------
using sdk::TypeTag;

size_t dtype_size(bp_dtype dtype);
const char* dtype_name(bp_dtype dtype);
inline bool is_floating(bp_dtype d) {
  return d == BP_DTYPE_F16 || d == BP_DTYPE_BF16 || d == BP_DTYPE_F32 || d == BP_DTYPE_F64;
}

// visit_dtype(dtype, f) calls f(TypeTag<T>{}) with the C++ storage type of `dtype` (bool,
// int8_t, uint8_t, int16_t, int32_t, int64_t, Half, BFloat16, float, double).
using sdk::visit_dtype;

template <typename T>
inline constexpr bool kIsFloating =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16> || std::is_floating_point_v<T>;

// Every value of every dtype as double (exact for all but int64 beyond 2^53).
template <typename T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? 1.0 : 0.0;
  else
    return static_cast<double>(v);
}

// Rounds a double once into T. For integral T the value must already be integral and in
// range (callers convert with to_integral_like_pytorch first when it may not be).
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0.0;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(v);
  else
    return static_cast<T>(v);
}

// Integer arithmetic with PyTorch's wrap-around: compute in uint64 and truncate.
template <typename T>
T wrap_int(uint64_t v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0;
  else
    return static_cast<T>(v);  // modular since C++20
}

// ---- strided tensors -----------------------------------------------------------------
// A typed view of a bp_tensor: at(idx) addresses element idx (a multi-index of ndim).
struct View {
  char* base = nullptr;  // first element
  int32_t ndim = 0;
  const int64_t* shape = nullptr;
  const int64_t* strides = nullptr;  // elements
  bp_dtype dtype = BP_DTYPE_F32;
  size_t itemsize = 0;

  explicit View(const bp_tensor* t);
  int64_t numel() const;
  int64_t offset_of(const int64_t* idx) const {  // in elements
    int64_t off = 0;
    for (int32_t d = 0; d < ndim; ++d) off += idx[d] * strides[d];
    return off;
  }
  template <typename T>
  T& at(const int64_t* idx) const {
    return *reinterpret_cast<T*>(base + offset_of(idx) * static_cast<int64_t>(itemsize));
  }
  template <typename T>
  T& at_offset(int64_t element_offset) const {
    return *reinterpret_cast<T*>(base + element_offset * static_cast<int64_t>(itemsize));
  }
};

// Calls f(idx) for every multi-index of `shape` in row-major order (once for ndim 0,
// never when some size is 0).
template <typename F>
void for_each_index(int32_t ndim, const int64_t* shape, F&& f) {
  for (int32_t d = 0; d < ndim; ++d)
    if (shape[d] == 0) return;
  std::vector<int64_t> idx(static_cast<size_t>(ndim), 0);
  while (true) {
    f(static_cast<const int64_t*>(idx.data()));
    int32_t d = ndim - 1;
    for (; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < shape[d]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
    if (d < 0) return;
  }
}

// ---- arguments -----------------------------------------------------------------------
inline const bp_tensor* arg_tensor(const bp_call* c, size_t i) {
  return c->args[i].u.tensor;
}
inline const bp_tensor* out_tensor(const bp_call* c, size_t k = 0) {
  return c->args[c->nargs - c->noutputs + k].u.tensor;
}
// "[2, 3]": a view's shape, for messages.
inline std::string shape_text(const View& v) {
  std::string s = "[";
  for (int32_t d = 0; d < v.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
  return s + "]";
}
// A Scalar/int/float/bool argument as double / int64 (NONE gives `fallback`).
double arg_double(const bp_call* c, size_t i, double fallback = 0.0);
int64_t arg_int(const bp_call* c, size_t i, int64_t fallback = 0);

// ---- registration --------------------------------------------------------------------
struct KernelEntry {
  const char* op_name;
  bp_dtype_mask dtypes;
  bp_kernel_fn fn;
};
// Registers entries; returns the first failure.
bp_status register_kernels(uint32_t backend_id, const KernelEntry* entries, size_t count);

// One function per kernel file; each registers that file's kernels.
bp_status register_copy_kernels(uint32_t backend_id);       // copy_, fill_, arange
bp_status register_unary_kernels(uint32_t backend_id);      // neg ... logical_not, gelu
bp_status register_binary_kernels(uint32_t backend_id);     // add ... logical_or, where, clamp
bp_status register_reduction_kernels(uint32_t backend_id);  // sum prod amax amin argmax ...
bp_status register_indexing_kernels(uint32_t backend_id);   // cat index_select gather
bp_status register_linalg_kernels(uint32_t backend_id);     // matmul

}  // namespace bp::reference
