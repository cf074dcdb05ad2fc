// Private header of the reference backend's elementwise kernels (copy.cpp, unary.cpp,
// binary.cpp): PyTorch's dtype conversions written without undefined behaviour, checked
// conversion of Scalar arguments, and the store/shape helpers the kernels share.
// docs/reference.md describes the conversion rules and where they differ from PyTorch.
#pragma once

#include "reference.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

namespace bp::reference {

// Registration mask of the ops PyTorch does not define on bool (neg, sub, pow, clamp...).
inline constexpr bp_dtype_mask kAllButBool = BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL);

// ---- floating -> integral ------------------------------------------------------------
// PyTorch converts with a plain static_cast, which is undefined for NaN and out-of-range
// values; on x86-64 the hardware's truncating conversions give the "integer indefinite"
// value (the minimum of the 32- or 64-bit type) for them. We reproduce the results of
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
    return wrap_int<To>(static_cast<uint64_t>(trunc_to_i64_x86(d)));
  else
    return wrap_int<To>(static_cast<uint64_t>(static_cast<int64_t>(trunc_to_i32_x86(d))));
}

// ---- integral -> floating ------------------------------------------------------------
// int64 -> double rounded to odd: exact below 2^53, otherwise the 53 leading bits with the
// last one set when any discarded bit was. A later round-to-nearest into a format of at
// most 51 significant bits (f32, f16, bf16) is then correctly rounded: the conversion
// rounds once, where going through a nearest-rounded double could round twice.
inline double int64_to_double_round_odd(int64_t v) {
  const uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  const int bits = 64 - std::countl_zero(mag);
  double d;
  if (bits <= 53) {
    d = static_cast<double>(mag);
  } else {
    const int shift = bits - 53;
    uint64_t top = mag >> shift;
    if (mag & ((uint64_t{1} << shift) - 1)) top |= 1u;
    d = std::ldexp(static_cast<double>(top), shift);
  }
  return v < 0 ? -d : d;
}

template <typename To>
To int_to_float(int64_t v) {
  if constexpr (std::is_same_v<To, double>)
    return static_cast<double>(v);
  else
    return from_double<To>(int64_to_double_round_odd(v));
}

// ---- any dtype -> any dtype (copy_ semantics) ----------------------------------------
// float -> int truncates toward zero (float_to_int above); anything -> bool is != 0 (NaN is
// true); bool -> anything is 0/1; int -> int wraps modulo 2^bits; every conversion into a
// floating type rounds once to nearest-even.
template <typename To, typename From>
To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (kIsFloating<From>)
      return to_double(v) != 0.0;
    else
      return v != 0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return from_double<To>(v ? 1.0 : 0.0);
  } else if constexpr (kIsFloating<From>) {
    if constexpr (kIsFloating<To>)
      return from_double<To>(to_double(v));
    else
      return float_to_int<To>(to_double(v));
  } else if constexpr (kIsFloating<To>) {
    return int_to_float<To>(static_cast<int64_t>(v));
  } else {
    return wrap_int<To>(static_cast<uint64_t>(v));
  }
}

// Writes `v` (a value of the kernel's compute type T) into element `idx` of `out`,
// converting to out's dtype when an out= tensor of another dtype was passed.
template <typename T>
void store(const View& out, const int64_t* idx, T v) {
  visit_dtype(out.dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    out.at<O>(idx) = convert<O>(v);
  });
}

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

// PyTorch's checked conversion of a Scalar (INT, FLOAT or BOOL) into T (c10::checked_convert,
// used by fill_, alpha and clamp bounds). Returns false when the value overflows T:
//   - into bool: never (nonzero is true, NaN included);
//   - into a floating type: a finite value outside [-max, max] (inf and NaN are kept);
//   - into an integral type from a float: NaN, inf, or a value outside [min, max] before
//     truncation (so 127.5 overflows int8); from an int: outside [min, max], except that an
//     unsigned type also accepts negatives down to -max (two's complement: -1 -> 255).
template <typename T>
bool scalar_to(const bp_value& v, T* out) {
  if (v.tag == BP_VALUE_BOOL) {
    *out = from_double<T>(v.u.b ? 1.0 : 0.0);
    return true;
  }
  if (v.tag == BP_VALUE_INT) {
    const int64_t i = v.u.i;
    if constexpr (std::is_same_v<T, bool>) {
      *out = i != 0;
      return true;
    } else if constexpr (kIsFloating<T>) {
      if (std::fabs(static_cast<double>(i)) > floating_max<T>()) return false;
      *out = int_to_float<T>(i);
      return true;
    } else {
      using L = std::numeric_limits<T>;
      if constexpr (std::is_unsigned_v<T>) {
        if (i > static_cast<int64_t>(L::max())) return false;
        if (i < 0 && uint64_t{0} - static_cast<uint64_t>(i) > L::max()) return false;
      } else {
        if (i < static_cast<int64_t>(L::min()) || i > static_cast<int64_t>(L::max())) return false;
      }
      *out = wrap_int<T>(static_cast<uint64_t>(i));
      return true;
    }
  }
  if (v.tag == BP_VALUE_FLOAT) {
    const double f = v.u.f;
    if constexpr (std::is_same_v<T, bool>) {
      *out = f != 0.0;
      return true;
    } else if constexpr (kIsFloating<T>) {
      if (std::isfinite(f) && std::fabs(f) > floating_max<T>()) return false;
      *out = from_double<T>(f);
      return true;
    } else {
      using L = std::numeric_limits<T>;
      // 2^63 itself is excluded for int64 (PyTorch's check lets it through into an
      // undefined cast).
      const double hi = std::is_same_v<T, int64_t> ? 0x1p63 : static_cast<double>(L::max());
      const bool over = std::is_same_v<T, int64_t> ? !(f < hi) : !(f <= hi);
      if (std::isnan(f) || over || f < static_cast<double>(L::min())) return false;
      *out = wrap_int<T>(static_cast<uint64_t>(static_cast<int64_t>(f)));
      return true;
    }
  }
  return false;  // NONE or a non-scalar tag
}

// Text of a Scalar argument for messages: "300", "0.5", "True", "None".
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

// Reports a Scalar that does not fit the compute dtype, in PyTorch's words.
inline bp_status fail_scalar_overflow(const bp_call* c, const char* arg_name, const bp_value& v,
                                      bp_dtype dtype) {
  return fail(BP_ERR_INVALID_ARGUMENT,
              std::string(c->op_name) + ": argument '" + arg_name + "' value " + scalar_text(v) +
                  " cannot be converted to type " + dtype_name(dtype) + " without overflow");
}

// ---- shape and dtype checks ---------------------------------------------------------------
// The host expands elementwise inputs to the output's shape and converts them to the
// compute dtype (docs/ops.md); a kernel handed anything else reports it instead of reading
// out of bounds.
inline bool same_shape(const View& a, const View& b) {
  if (a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

inline bp_status fail_shape(const bp_call* c, const char* arg_name, const View& arg,
                            const View& out) {
  return fail(BP_ERR_INVALID_ARGUMENT,
              std::string(c->op_name) + ": argument '" + arg_name + "' has shape " +
                  shape_text(arg) + " but the output has shape " + shape_text(out) +
                  "; the reference backend expects inputs expanded to the output shape");
}

inline bp_status fail_dtype(const bp_call* c, const char* arg_name, bp_dtype dtype) {
  return fail(BP_ERR_UNSUPPORTED, std::string(c->op_name) + ": argument '" + arg_name +
                                      "' has dtype " + dtype_name(dtype) +
                                      ", which the reference kernel does not support");
}

// a / b with IEEE 754 results, division by zero included (+-inf, or NaN for 0/0 and NaN/0),
// spelled out because C++ leaves floating division by zero undefined.
inline double ieee_div(double a, double b) {
  if (b != 0.0) return a / b;
  if (a == 0.0 || std::isnan(a)) return std::numeric_limits<double>::quiet_NaN();
  const bool negative = std::signbit(a) != std::signbit(b);
  return negative ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::infinity();
}

// Whether v is nonzero (NaN is nonzero), as logical ops and conversions to bool see it.
template <typename T>
bool nonzero(T v) {
  if constexpr (kIsFloating<T>)
    return to_double(v) != 0.0;
  else
    return v != 0;
}

}  // namespace bp::reference
