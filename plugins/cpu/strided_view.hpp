// Internal header of the CPU backend's reduction, indexing and matmul kernels: a typed view
// of a kernel argument (bp_tensor), reading the boxed arguments of a bp_call, the C++ type of
// each dtype, and f16/bf16 <-> f32 conversions. Kept small and dependency-free so that each
// kernel file can specialise its own loops.
#pragma once

#include "cpu.hpp"

#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/half.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace bp::cpu {

using sdk::BFloat16;
using sdk::Half;

using sdk::dtype_size;

inline const char* dtype_str(bp_dtype d) {
  return sdk::dtype_name(d);
}

// A strided view of one tensor argument: `base` points at the first element (byte offset
// applied); strides are in elements.
struct StridedView {
  char* base = nullptr;
  int32_t ndim = 0;
  const int64_t* shape = nullptr;
  const int64_t* strides = nullptr;
  bp_dtype dtype = BP_DTYPE_F32;
  size_t itemsize = 4;

  explicit StridedView(const bp_tensor* t)
      : base(static_cast<char*>(t->data) + t->byte_offset),
        ndim(t->ndim),
        shape(t->shape),
        strides(t->strides),
        dtype(t->dtype),
        itemsize(dtype_size(t->dtype)) {}

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
  // True when the elements are laid out row-major without gaps (size-1 dims ignored).
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      if (shape[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= shape[d];
    }
    return true;
  }
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(base);
  }
};

inline std::string shape_string(const StridedView& v) {
  std::string s = "[";
  for (int32_t d = 0; d < v.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
  return s + "]";
}

// ---- arguments of a call --------------------------------------------------------------------
inline const bp_tensor* arg_tensor(const bp_call* c, size_t i) {
  return c->args[i].tag == BP_VALUE_TENSOR ? c->args[i].u.tensor : nullptr;
}
inline const bp_tensor* out_tensor(const bp_call* c, size_t k = 0) {
  return c->args[c->nargs - c->noutputs + k].u.tensor;
}

// ---- dtypes as C++ types --------------------------------------------------------------------
// visit_dtype(dtype, f) calls f(TypeTag<T>{}) with the C++ type of `dtype` (the SDK's).
using sdk::TypeTag;
using sdk::visit_dtype;

template <typename T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsFloat = kIsHalfLike<T> || std::is_floating_point_v<T>;

// f16/bf16 read and written through f32 (exact widening, one rounding back); other types
// unchanged.
template <typename T>
inline auto widen(T v) {
  if constexpr (kIsHalfLike<T>)
    return static_cast<float>(v);
  else
    return v;
}
template <typename T, typename A>
inline T narrow(A v) {
  if constexpr (kIsHalfLike<T>)
    return T(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != A(0);
  else
    return static_cast<T>(v);
}

}  // namespace bp::cpu
