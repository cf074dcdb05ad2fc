// Internal header of the CPU backend's elementwise kernels (copy.cpp, unary.cpp, binary.cpp):
// the compute type of each storage type, PyTorch's wrap-around integer arithmetic, and the
// rows of compute values the SIMD loops run on. Conversions between dtypes are the SDK's
// (backplane/sdk/convert.hpp, bit for bit the reference backend's rules, so that copy_ and
// out= conversions compare exactly). docs/cpu.md "Elementwise kernels" describes the design.
#pragma once

#include "cpu.hpp"
#include "simd.hpp"

#include <cstdint>
#include <type_traits>

namespace bp::cpu {

inline int64_t dtype_size(bp_dtype dtype) {
  return static_cast<int64_t>(sdk::dtype_size(dtype));
}

// The SIMD conversions read and write f16/bf16 storage as its 16 bits.
static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

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

}  // namespace bp::cpu
