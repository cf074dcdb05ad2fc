// Internal header of the CPU backend's elementwise kernels (copy.cpp, unary.cpp, binary.cpp):
// dtype visiting, the compute type of each storage type, PyTorch's dtype conversions
// written without undefined behaviour (bit-for-bit the reference backend's rules, so that
// copy_ and out= conversions compare exactly), checked conversion of Scalar arguments, and
// kernel registration. docs/cpu.md "Elementwise kernels" describes the design.
#pragma once

#include "cpu.hpp"
#include "simd.hpp"

#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/half.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>

namespace bp::cpu {

using sdk::BFloat16;
using sdk::Half;

// ---- dtypes --------------------------------------------------------------------------
using sdk::dtype_name;
using sdk::TypeTag;
using sdk::visit_dtype;  // f(TypeTag<T>{}) with the C++ storage type of a dtype

inline int64_t dtype_size(bp_dtype dtype) {
  return static_cast<int64_t>(sdk::dtype_size(dtype));
}

// The SIMD conversions read and write f16/bf16 storage as its 16 bits.
static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
inline constexpr bool kIsFloating = kIsHalf<T> || std::is_floating_point_v<T>;
template <typename T>
inline constexpr bool kNotBool = !std::is_same_v<T, bool>;

// The type arithmetic is done in: f16 and bf16 are computed in float (each result is
// rounded once back to the storage type), every other type in itself.
template <typename T>
using Compute = std::conditional_t<kIsHalf<T>, float, T>;

// Storage <-> compute values (the identity except for f16/bf16).
template <typename T>
inline Compute<T> to_compute(T v) {
  if constexpr (kIsHalf<T>)
    return static_cast<float>(v);
  else
    return v;
}
template <typename T>
inline T from_compute(Compute<T> v) {
  if constexpr (kIsHalf<T>)
    return T(v);
  else
    return v;
}

// Integer arithmetic with PyTorch's wrap-around: compute in the unsigned type of the same
// width (defined overflow) and convert back (modular since C++20).
template <typename T>
using Unsigned = std::make_unsigned_t<T>;
template <typename T>
inline T wrap_add(T a, T b) {
  return static_cast<T>(
      static_cast<Unsigned<T>>(static_cast<Unsigned<T>>(a) + static_cast<Unsigned<T>>(b)));
}
template <typename T>
inline T wrap_sub(T a, T b) {
  return static_cast<T>(
      static_cast<Unsigned<T>>(static_cast<Unsigned<T>>(a) - static_cast<Unsigned<T>>(b)));
}
// Multiplication promotes narrow unsigned types to int, where it could overflow: go
// through uint64 (the low bits of the product are the same).
template <typename T>
inline T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// ---- conversions (copy_ and out= semantics; docs/reference.md) -------------------------
// Floating -> integral truncates; NaN and out-of-range values give what PyTorch's x86-64
// build gives: int64 and uint8 through a 64-bit truncation, the others through a 32-bit
// one, where such values become the minimum of that width; the result then wraps.
inline int64_t trunc_to_i64_x86(double d) {
  if (d >= -0x1p63 && d < 0x1p63) return static_cast<int64_t>(d);  // false for NaN
  return std::numeric_limits<int64_t>::min();
}
inline int32_t trunc_to_i32_x86(double d) {
  if (d > -2147483649.0 && d < 2147483648.0) return static_cast<int32_t>(d);
  return std::numeric_limits<int32_t>::min();
}
template <typename To>
inline To float_to_int(double d) {
  if constexpr (std::is_same_v<To, int64_t> || std::is_same_v<To, uint8_t>)
    return static_cast<To>(trunc_to_i64_x86(d));
  else
    return static_cast<To>(trunc_to_i32_x86(d));
}

// int64 -> double rounded to odd, so a second rounding into f16/bf16 is correct (an exact
// conversion below 2^53).
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

// Any dtype -> any dtype, each conversion rounding once: float -> int truncates (above),
// anything -> bool is != 0 (NaN is true), int -> int wraps, into floating rounds to
// nearest even (f64 -> f16/bf16 and int64 -> f16/bf16 without double rounding).
template <typename To, typename From>
inline To convert(From v) {
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
    return convert<To>(static_cast<float>(v));  // exact widening
  } else if constexpr (std::is_floating_point_v<From>) {
    if constexpr (kIsFloating<To>)
      return To(v);  // float/double -> narrower: one rounding (Half(double) rounds once)
    else
      return float_to_int<To>(static_cast<double>(v));
  } else if constexpr (kIsHalf<To>) {  // integral -> f16/bf16
    if constexpr (sizeof(From) <= 4)
      return To(static_cast<float>(v));  // exact in float
    else
      return To(int64_to_double_round_odd(static_cast<int64_t>(v)));
  } else if constexpr (std::is_floating_point_v<To>) {
    return static_cast<To>(v);  // the hardware conversion rounds once
  } else {
    return static_cast<To>(v);  // integral -> integral wraps (C++20)
  }
}

// The bp_dtype of a storage type.
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
  else
    return BP_DTYPE_F64;
}

// ---- rows in blocks ----------------------------------------------------------------------
// Kernels compute on contiguous blocks of compute values (the SIMD loops' input): strided,
// broadcast or f16/bf16 operands are first gathered into a block of at most kBlock values
// on the stack, and results are scattered (converted) into the output.
inline constexpr int64_t kBlock = 512;

// The compute values of n elements of T at `src` (byte stride `stride`, 0 = broadcast):
// the memory itself when it already is a contiguous row of compute values, else `buf`.
template <typename T>
inline const Compute<T>* load_row(const char* src, int64_t stride, int64_t n, Compute<T>* buf) {
  if constexpr (!kIsHalf<T>)
    if (stride == static_cast<int64_t>(sizeof(T))) return reinterpret_cast<const T*>(src);
  if (stride == 0) {
    const Compute<T> v = to_compute(*reinterpret_cast<const T*>(src));
    for (int64_t i = 0; i < n; ++i) buf[i] = v;
  } else if (stride == static_cast<int64_t>(sizeof(T))) {
    if constexpr (kIsHalf<T>) {
      const uint16_t* bits = reinterpret_cast<const uint16_t*>(src);  // Half/BFloat16 are bits
      if constexpr (std::is_same_v<T, Half>)
        simd::half_to_float(bits, buf, n);
      else
        simd::bfloat16_to_float(bits, buf, n);
    } else {
      const T* p = reinterpret_cast<const T*>(src);
      for (int64_t i = 0; i < n; ++i) buf[i] = to_compute(p[i]);
    }
  } else {
    for (int64_t i = 0; i < n; ++i)
      buf[i] = to_compute(*reinterpret_cast<const T*>(src + i * stride));
  }
  return buf;
}

// Writes n results of dtype T, given as compute values, into `dst` (byte stride `stride`)
// of dtype `out_dtype`: each value is rounded once to T (f16/bf16), then converted to the
// output's dtype when an out= tensor of another dtype was passed (as the reference does).
template <typename T>
void store_row(const Compute<T>* src, char* dst, int64_t stride, int64_t n, bp_dtype out_dtype) {
  if (out_dtype == dtype_of<T>()) {
    if (stride == static_cast<int64_t>(sizeof(T))) {
      if constexpr (std::is_same_v<T, Half>) {
        simd::float_to_half(src, reinterpret_cast<uint16_t*>(dst), n);
      } else if constexpr (std::is_same_v<T, BFloat16>) {
        simd::float_to_bfloat16(src, reinterpret_cast<uint16_t*>(dst), n);
      } else {
        T* p = reinterpret_cast<T*>(dst);
        for (int64_t i = 0; i < n; ++i) p[i] = from_compute<T>(src[i]);
      }
    } else {
      for (int64_t i = 0; i < n; ++i)
        *reinterpret_cast<T*>(dst + i * stride) = from_compute<T>(src[i]);
    }
    return;
  }
  visit_dtype(out_dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<O*>(dst + i * stride) = convert<O>(from_compute<T>(src[i]));
  });
}

// ---- Scalar arguments ------------------------------------------------------------------
template <typename T>
constexpr double floating_max() {
  if constexpr (std::is_same_v<T, Half>)
    return 65504.0;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return 0x1.fep127;
  else
    return static_cast<double>(std::numeric_limits<T>::max());
}

// PyTorch's checked conversion of a Scalar (INT, FLOAT or BOOL) into T, as the reference
// backend's scalar_to: false when the value overflows T (the meta rule has normally
// rejected such values already; a kernel still never converts out of range).
template <typename T>
bool scalar_to(const bp_value& v, T* out) {
  if (v.tag == BP_VALUE_BOOL) {
    *out = convert<T>(v.u.b != 0);
    return true;
  }
  if (v.tag == BP_VALUE_INT) {
    const int64_t i = v.u.i;
    if constexpr (std::is_same_v<T, bool>) {
      *out = i != 0;
      return true;
    } else if constexpr (kIsFloating<T>) {
      if (std::fabs(static_cast<double>(i)) > floating_max<T>()) return false;
      *out = convert<T>(i);
      return true;
    } else {
      using L = std::numeric_limits<T>;
      if constexpr (std::is_unsigned_v<T>) {
        if (i > static_cast<int64_t>(L::max())) return false;
        if (i < 0 && uint64_t{0} - static_cast<uint64_t>(i) > L::max()) return false;
      } else {
        if (i < static_cast<int64_t>(L::min()) || i > static_cast<int64_t>(L::max())) return false;
      }
      *out = static_cast<T>(i);
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
      *out = convert<T>(f);
      return true;
    } else {
      using L = std::numeric_limits<T>;
      const double hi = std::is_same_v<T, int64_t> ? 0x1p63 : static_cast<double>(L::max());
      const bool over = std::is_same_v<T, int64_t> ? !(f < hi) : !(f <= hi);
      if (std::isnan(f) || over || f < static_cast<double>(L::min())) return false;
      *out = static_cast<T>(static_cast<int64_t>(f));
      return true;
    }
  }
  return false;  // NONE or a non-scalar tag
}

// A Scalar argument as double (NONE gives `fallback`).
inline double arg_double(const bp_call* c, size_t i, double fallback = 0.0) {
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

inline bp_status fail_scalar_overflow(const bp_call* c, const char* arg_name, const bp_value& v,
                                      bp_dtype dtype) {
  return fail(BP_ERR_INVALID_ARGUMENT,
              std::string(c->op_name) + ": argument '" + arg_name + "' value " + scalar_text(v) +
                  " cannot be converted to type " + dtype_name(dtype) + " without overflow");
}

inline bp_status fail_dtype(const bp_call* c, const char* arg_name, bp_dtype dtype) {
  return fail(BP_ERR_UNSUPPORTED, std::string(c->op_name) + ": argument '" + arg_name +
                                      "' has dtype " + dtype_name(dtype) +
                                      ", which the cpu kernel does not support");
}

// ---- arguments and registration ----------------------------------------------------------
inline const bp_tensor* arg_tensor(const bp_call* c, size_t i) {
  return c->args[i].u.tensor;
}
inline const bp_tensor* out_tensor(const bp_call* c) {
  return c->args[c->nargs - 1].u.tensor;
}

// Registration mask of the ops PyTorch does not define on bool (neg, sub, pow, clamp...).
inline constexpr bp_dtype_mask kAllButBool = BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL);

struct KernelEntry {
  const char* op_name;
  bp_dtype_mask dtypes;
  bp_kernel_fn fn;
};

template <size_t N>
bp_status register_entries(uint32_t backend_id, const KernelEntry (&entries)[N]) {
  for (const KernelEntry& e : entries) {
    const bp_status s =
        g_host->register_kernel(g_host->host, backend_id, e.op_name, e.dtypes, e.fn, nullptr);
    if (s != BP_OK) return s;
  }
  return BP_OK;
}

}  // namespace bp::cpu
