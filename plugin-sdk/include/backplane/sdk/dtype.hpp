// Dtype helpers for plugin authors: the C++ type of each bp_dtype, its size and name, and
// visit_dtype() to write one templated kernel body for every dtype. Header-only, over
// backplane/plugin.h; f16/bf16 are the storage types of half.hpp (compute in float).
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/half.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace bp::sdk {

template <typename T>
struct TypeTag {
  using type = T;
};

// The bp_dtype of a C++ element type (bool, int8_t, ..., Half, BFloat16, float, double).
template <typename T>
constexpr bp_dtype dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return BP_DTYPE_BOOL;
  else if constexpr (std::is_same_v<T, int8_t>)
    return BP_DTYPE_I8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return BP_DTYPE_U8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return BP_DTYPE_I16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return BP_DTYPE_I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return BP_DTYPE_I64;
  else if constexpr (std::is_same_v<T, Half>)
    return BP_DTYPE_F16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return BP_DTYPE_BF16;
  else if constexpr (std::is_same_v<T, float>)
    return BP_DTYPE_F32;
  else {
    static_assert(std::is_same_v<T, double>, "not a Backplane element type");
    return BP_DTYPE_F64;
  }
}

namespace detail {
// At namespace scope, not in dtype_size: a constexpr function's local array is rebuilt on
// the stack at every call that the compiler cannot fold (kernels call this per call).
inline constexpr size_t kDtypeSizes[BP_DTYPE_COUNT] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
}  // namespace detail

constexpr size_t dtype_size(bp_dtype dtype) {
  return dtype < BP_DTYPE_COUNT ? detail::kDtypeSizes[dtype] : 0;
}

constexpr const char* dtype_name(bp_dtype dtype) {
  constexpr const char* names[BP_DTYPE_COUNT] = {"bool", "i8",  "u8",   "i16", "i32",
                                                 "i64",  "f16", "bf16", "f32", "f64"};
  return dtype < BP_DTYPE_COUNT ? names[dtype] : "unknown dtype";
}

constexpr bool is_floating(bp_dtype dtype) {
  return dtype == BP_DTYPE_F16 || dtype == BP_DTYPE_BF16 || dtype == BP_DTYPE_F32 ||
         dtype == BP_DTYPE_F64;
}

// Calls f(TypeTag<T>{}) with the element type of `dtype`. Every branch is instantiated, so
// f must compile for all ten types (use `if constexpr` for the ones it does not support).
// An out-of-range code takes the f64 branch: dtypes reaching a kernel were checked by the
// runtime against the mask the kernel was registered with.
template <typename F>
decltype(auto) visit_dtype(bp_dtype dtype, F&& f) {
  switch (dtype) {
    case BP_DTYPE_BOOL:
      return f(TypeTag<bool>{});
    case BP_DTYPE_I8:
      return f(TypeTag<int8_t>{});
    case BP_DTYPE_U8:
      return f(TypeTag<uint8_t>{});
    case BP_DTYPE_I16:
      return f(TypeTag<int16_t>{});
    case BP_DTYPE_I32:
      return f(TypeTag<int32_t>{});
    case BP_DTYPE_I64:
      return f(TypeTag<int64_t>{});
    case BP_DTYPE_F16:
      return f(TypeTag<Half>{});
    case BP_DTYPE_BF16:
      return f(TypeTag<BFloat16>{});
    case BP_DTYPE_F32:
      return f(TypeTag<float>{});
    default:
      return f(TypeTag<double>{});
  }
}

}  // namespace bp::sdk
