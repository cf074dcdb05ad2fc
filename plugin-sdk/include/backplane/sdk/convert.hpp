// PyTorch's element conversions for plugin authors, written without undefined behaviour:
// convert<To>(v) between any two element types (what copy_ and out= of another dtype do),
// and checked_convert<T>(scalar, &out), PyTorch's overflow-checked conversion of a Scalar
// argument (fill_ values, alpha, clamp bounds). Every conversion into a floating type
// rounds once; the reference backend and the CPU plugin use these, so their conversions
// agree bit for bit. docs/reference.md lists where they differ from PyTorch. Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/half.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>

namespace bp::sdk {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsFloating = kIsHalf<T> || std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kNotBool = !std::is_same_v<T, bool>;

// Registration mask of the ops PyTorch does not define on bool (neg, sub, pow, clamp...).
inline constexpr bp_dtype_mask kAllButBool = BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL);

// ---- floating -> integral ------------------------------------------------------------
// PyTorch converts with a plain static_cast, which is undefined for NaN and out-of-range
// values; on x86-64 the hardware's truncating conversions give the "integer indefinite"
// value (the minimum of the 32- or 64-bit type) for them. These reproduce the results of
// PyTorch's x86-64 CPU build deterministically: int64 and uint8 go through a 64-bit
// conversion, int8/int16/int32 through a 32-bit one, and the result wraps into the target.
inline int64_t trunc_to_i64_x86(double d) {
  if (d >= -0x1p63 && d < 0x1p63) return static_cast<int64_t>(d);  // false for NaN
  return std::numeric_limits<int64_t>::min();
}
inline int32_t trunc_to_i32_x86(double d) {
  if (d > -2147483649.0 && d < 2147483648.0) return static_cast<int32_t>(d);
  return std::numeric_limits<int32_t>::min();
}
template <typename To>
To float_to_int(double d) {
  if constexpr (std::is_same_v<To, int64_t> || std::is_same_v<To, uint8_t>)
    return static_cast<To>(trunc_to_i64_x86(d));  // modular since C++20
  else
    return static_cast<To>(trunc_to_i32_x86(d));
}

// ---- integral -> floating ------------------------------------------------------------
// int64 -> double rounded to odd: exact below 2^53, otherwise the 53 leading bits with the
// last one set when any discarded bit was. A later round-to-nearest into a format of at
// most 51 significant bits (f32, f16, bf16) is then correctly rounded: the conversion
// rounds once, where going through a nearest-rounded double could round twice.
inline double int64_to_double_round_odd(int64_t v) {
  const uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const int bits = 64 - std::countl_zero(mag);
  if (bits <= 53) return static_cast<double>(v);
  const int shift = bits - 53;
  uint64_t top = mag >> shift;
  if (mag & ((uint64_t{1} << shift) - 1)) top |= 1u;
  const double d = std::ldexp(static_cast<double>(top), shift);
  return v < 0 ? -d : d;
}

// ---- any element type -> any element type (copy_ semantics) --------------------------
namespace detail {
template <typename To, typename From>
To convert_element(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kIsHalf<From>)
      return (v.bits & 0x7fffu) != 0;  // +-0 is false, everything else (NaN too) true
    else
      return v != From{0};
  } else if constexpr (std::is_same_v<From, bool>) {
    if constexpr (kIsHalf<To>)
      return To(v ? 1.0f : 0.0f);
    else
      return static_cast<To>(v ? 1 : 0);
  } else if constexpr (kIsHalf<From>) {
    return convert_element<To>(static_cast<float>(v));  // exact widening
  } else if constexpr (std::is_floating_point_v<From>) {
    if constexpr (kIsFloating<To>)
      return To(v);  // one rounding (Half(double) and BFloat16(double) round once)
    else
      return float_to_int<To>(static_cast<double>(v));
  } else if constexpr (kIsHalf<To>) {
    if constexpr (sizeof(From) <= 2)
      return To(static_cast<float>(v));  // exact in float
    else  // i32 beyond 2^24 would round twice through float (bf16 keeps its range)
      return To(int64_to_double_round_odd(static_cast<int64_t>(v)));
  } else {
    return static_cast<To>(v);  // into f32/f64 the hardware rounds once; int -> int wraps
  }
}

template <typename To>
struct ConvertTo {
  template <typename From>
  To operator()(From v) const {
    return convert_element<To>(v);
  }
};
}  // namespace detail

// convert<To>(v): float -> int truncates toward zero (float_to_int above); anything -> bool
// is != 0 (NaN is true); bool -> anything is 0/1; int -> int wraps modulo 2^bits; every
// conversion into a floating type rounds once to nearest-even (f64 -> f16/bf16 and
// i32/i64 -> bf16 included). A function object, so argument-dependent lookup never
// finds it: a plugin's own unqualified convert<T>(half_value) stays unambiguous.
template <typename To>
inline constexpr detail::ConvertTo<To> convert{};

// ---- Scalar arguments ------------------------------------------------------------------
// Largest finite value of a floating T, as double.
template <typename T>
constexpr double floating_max() {
  if constexpr (std::is_same_v<T, Half>)
    return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return 0x1.fep127;
  else
    return static_cast<double>(std::numeric_limits<T>::max());
}

namespace detail {
template <typename T>
bool checked_int_to(int64_t i, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    *out = i != 0;
  } else if constexpr (kIsFloating<T>) {
    if (std::fabs(static_cast<double>(i)) > floating_max<T>()) return false;
    *out = convert_element<T>(i);
  } else {
    using L = std::numeric_limits<T>;
    if constexpr (std::is_unsigned_v<T>) {
      if (i > static_cast<int64_t>(L::max())) return false;
      if (i < 0 && uint64_t{0} - static_cast<uint64_t>(i) > L::max()) return false;
    } else {
      if (i < static_cast<int64_t>(L::min()) || i > static_cast<int64_t>(L::max())) return false;
    }
    *out = static_cast<T>(i);
  }
  return true;
}

template <typename T>
bool checked_float_to(double f, T* out) {
  if constexpr (std::is_same_v<T, bool>) {
    *out = f != 0.0;
  } else if constexpr (kIsFloating<T>) {
    if (std::isfinite(f) && std::fabs(f) > floating_max<T>()) return false;
    *out = convert_element<T>(f);
  } else {
    using L = std::numeric_limits<T>;
    // 2^63 itself is excluded for int64 (PyTorch's check lets it through into an
    // undefined cast).
    const double hi = std::is_same_v<T, int64_t> ? 0x1p63 : static_cast<double>(L::max());
    const bool over = std::is_same_v<T, int64_t> ? !(f < hi) : !(f <= hi);
    if (std::isnan(f) || over || f < static_cast<double>(L::min())) return false;
    *out = static_cast<T>(static_cast<int64_t>(f));
  }
  return true;
}
}  // namespace detail

// PyTorch's checked conversion of a Scalar (INT, FLOAT or BOOL) into T (c10::checked_convert,
// used by fill_, alpha and clamp bounds). Returns false when the value overflows T:
//   - into bool: never (nonzero is true, NaN included);
//   - into a floating type: a finite value outside [-max, max] (inf and NaN are kept);
//   - into an integral type from a float: NaN, inf, or a value outside [min, max] before
//     truncation (so 127.5 overflows int8); from an int: outside [min, max], except that an
//     unsigned type also accepts negatives down to -max (two's complement: -1 -> 255).
template <typename T>
bool checked_convert(const bp_value& v, T* out) {
  switch (v.tag) {
    case BP_VALUE_BOOL:
      *out = detail::convert_element<T>(v.u.b != 0);
      return true;
    case BP_VALUE_INT:
      return detail::checked_int_to(v.u.i, out);
    case BP_VALUE_FLOAT:
      return detail::checked_float_to(v.u.f, out);
    default:
      return false;  // NONE or a non-scalar tag
  }
}

// Text of a Scalar argument for messages, as Python prints it: "300", "0.5", "True", "None".
inline std::string scalar_text(const bp_value& v) {
  switch (v.tag) {
    case BP_VALUE_INT:
      return std::to_string(v.u.i);
    case BP_VALUE_BOOL:
      return v.u.b ? "True" : "False";
    case BP_VALUE_FLOAT: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", v.u.f);
      return buf;
    }
    case BP_VALUE_NONE:
      return "None";
    default:
      return "<not a Scalar>";
  }
}

}  // namespace bp::sdk
