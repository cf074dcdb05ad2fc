// PyTorch's integer arithmetic for plugin authors, without undefined behaviour: results wrap
// modulo 2^bits as PyTorch's do (abs(INT8_MIN) == INT8_MIN), computed in uint64, whose
// arithmetic is defined, and truncated to the element type. For every integral element
// type (bool excluded). Header-only.
#pragma once

#include <cstdint>
#include <type_traits>

namespace bp::sdk {

// -v, wrapping: -INT_MIN == INT_MIN.
template <typename T>
T wrapping_neg(T v) {
  return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(v));  // modular since C++20
}

// |v|, wrapping: abs(INT_MIN) == INT_MIN, as in PyTorch.
template <typename T>
T wrapping_abs(T v) {
  if constexpr (std::is_signed_v<T>)
    return v < 0 ? wrapping_neg(v) : v;
  else
    return v;
}

// base^exponent by squaring, wrapping. A negative exponent gives PyTorch's values for
// tensor exponents: 1 for a base of 1, +-1 for -1, 0 for any other base (0 included).
template <typename T>
T wrapping_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return T{1};
      if (base == -1) return (static_cast<uint64_t>(exponent) & 1u) ? T{-1} : T{1};
      return T{0};
    }
  }
  uint64_t b = static_cast<uint64_t>(base), e = static_cast<uint64_t>(exponent), result = 1;
  for (; e != 0; e >>= 1, b *= b)
    if (e & 1u) result *= b;
  return static_cast<T>(result);
}

}  // namespace bp::sdk
