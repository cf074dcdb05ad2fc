// The arithmetic of the CPU plugin's elementwise binary ops, shared by their kernels
// (binary.cpp) and their dense entries (binary_dense.cpp): per op, kSupports<T>, Out<T>
// (the result type), scalar(x, y, params) on compute values, and kSimd/simd_op(params)
// when simd::binary has it for f32/f64; compute_row runs one row of an op.
#pragma once

#include "elementwise.hpp"
#include "simd.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>

namespace bp::cpu::binary {

using Rounding = sdk::RoundingMode;

// Per-call values an op may need (alpha of add/sub, the rounding mode of div).
struct Params {
  double alpha = 1.0;   // floating alpha (rounded to float for f16/bf16/f32, as PyTorch)
  int64_t alpha_i = 1;  // integral alpha, already converted to the compute dtype
  bool alpha_b = true;  // bool alpha
  bool scaled = false;  // alpha != 1
  Rounding mode = Rounding::kNone;
};

// out[i] = Op(a[i * as], b[i * bs]) on compute values, as and bs in {0, 1}.
template <typename Op, typename C, typename R>
[[gnu::always_inline]] inline void compute_row(const C* a, int64_t as, const C* b, int64_t bs,
                                               R* out, int64_t n, const Params& prm) {
  if constexpr (std::is_floating_point_v<C> && std::is_same_v<C, R> && Op::kSimd) {
    const simd::Binary op = Op::simd_op(prm);
    const C alpha = static_cast<C>(prm.alpha);
    if (n <= simd::kShortRow && simd::short_binary(op, a, as, b, bs, out, n, alpha)) return;
    simd::binary(op, a, as, b, bs, out, n, alpha);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::scalar(a[i * as], b[i * bs], prm);
  }
}

// The arithmetic of each op without per-call arguments, by its SDK tag (below).
template <typename Op>
struct BinaryFn;

// ---- ops -------------------------------------------------------------------------------
// Each op: kSupports<T>, Out<T> (result type), scalar(x, y, params) on compute values,
// and kSimd/simd_op(params) when simd::binary has it for f32/f64.
struct NoSimd {
  static constexpr bool kSimd = false;
  static simd::Binary simd_op(const Params&) { return simd::Binary::kAdd; }
};

// The ops defined on every dtype, and the type of their result.
template <typename Result>
struct EveryDtype {
  template <typename T>
  static constexpr bool kSupports = true;
  template <typename T>
  using Out = Result;
};
struct SameDtype {
  template <typename T>
  static constexpr bool kSupports = true;
  template <typename T>
  using Out = T;
};

// self +- alpha * other; for bool, add is self || (alpha && other).
template <bool kSub>
struct AddSub {
  template <typename T>
  static constexpr bool kSupports = !kSub || kNotBool<T>;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = true;
  static simd::Binary simd_op(const Params& p) {
    if (kSub) return p.scaled ? simd::Binary::kSubScaled : simd::Binary::kSub;
    return p.scaled ? simd::Binary::kAddScaled : simd::Binary::kAdd;
  }
  template <typename C>
  static C scalar(C x, C y, const Params& p) {
    if constexpr (std::is_same_v<C, bool>) {
      return x || (p.alpha_b && y);
    } else if constexpr (std::is_floating_point_v<C>) {
      const C prod = p.scaled ? static_cast<C>(p.alpha) * y : y;
      return kSub ? x - prod : x + prod;
    } else {
      const C prod = wrap_mul(static_cast<C>(p.alpha_i), y);
      return kSub ? wrap_sub(x, prod) : wrap_add(x, prod);
    }
  }
};

template <>
struct BinaryFn<op::Mul> : SameDtype {
  static constexpr bool kSimd = true;
  static simd::Binary simd_op(const Params&) { return simd::Binary::kMul; }
  template <typename C>
  static C scalar(C x, C y, const Params&) {
    if constexpr (std::is_same_v<C, bool>)
      return x && y;
    else if constexpr (std::is_floating_point_v<C>)
      return x * y;
    else
      return wrap_mul(x, y);
  }
};

// True division; the host promotes integral inputs to floating first.
template <>
struct BinaryFn<op::Div> {
  template <typename T>
  static constexpr bool kSupports = kIsFloating<T>;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = true;
  static simd::Binary simd_op(const Params&) { return simd::Binary::kDiv; }
  template <typename C>
  static C scalar(C x, C y, const Params&) {
    return x / y;
  }
};

// Python's float floor division (PyTorch's div_floor_floating), in the op's math precision
// C (float for f16/bf16/f32, double for f64), as PyTorch and the reference compute it.
template <typename C>
C floor_divide(C a, C b) {
  if (b == C{0}) return a / b;
  const C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C{0} && ((b < C{0}) != (mod < C{0}))) div -= C{1};
  if (div == C{0}) return std::copysign(C{0}, a / b);
  C floored = std::floor(div);
  if (div - floored > C{0.5}) floored += C{1};
  return floored;
}

// div.Tensor_mode with 'trunc' or 'floor' (the kernel sends mode None to Div / DivTrueInt).
// Integers round toward zero or -inf; the divisor has been checked for zeros; INT_MIN / -1
// wraps to INT_MIN.
// (div_mode_kernel picks the dtypes itself: every type but bool.)
struct DivRounding : NoSimd {
  template <typename T>
  using Out = T;
  template <typename C>
  static C scalar(C x, C y, const Params& p) {
    if constexpr (std::is_floating_point_v<C>) {
      // trunc of the quotient rounded to C, as PyTorch computes it (not of the exact one).
      return p.mode == Rounding::kTrunc ? std::trunc(x / y) : floor_divide(x, y);
    } else {
      if constexpr (std::is_signed_v<C>)
        if (y == C{-1}) return wrap_sub(C{0}, x);
      // Integer promotion makes int8/int16 division exact in int; the quotient fits C.
      C q = static_cast<C>(x / y);
      if constexpr (std::is_signed_v<C>)
        if (p.mode == Rounding::kFloor && static_cast<C>(x % y) != 0 && ((x < 0) != (y < 0)))
          q = static_cast<C>(q - 1);
      return q;
    }
  }
};

// div.Tensor_mode with mode None on integers: a floating result, as the reference (the
// host normally promotes to floating first).
struct DivTrueInt : NoSimd {
  template <typename T>
  using Out = double;
  template <typename C>
  static double scalar(C x, C y, const Params&) {
    return static_cast<double>(x) / static_cast<double>(y);
  }
};

// pow: the C library's pow for floats; PyTorch's wrapping integer powers (int_math.hpp).
template <>
struct BinaryFn<op::Pow> : NoSimd {
  template <typename T>
  static constexpr bool kSupports = kNotBool<T>;
  template <typename T>
  using Out = T;
  template <typename C>
  static C scalar(C x, C y, const Params&) {
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(x, y);
    } else {
      return sdk::wrapping_pow(x, y);
    }
  }
};

// maximum/minimum propagate NaN; maximum(-0, +0) = +0, minimum(-0, +0) = -0.
template <bool kMax>
struct BinaryFn<op::MaxMin<kMax>> : SameDtype {
  static constexpr bool kSimd = true;
  static simd::Binary simd_op(const Params&) {
    return kMax ? simd::Binary::kMaximum : simd::Binary::kMinimum;
  }
  template <typename C>
  static C scalar(C x, C y, const Params&) {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
      if (std::isnan(y)) return y;
      if (x == y) return (std::signbit(x) == kMax) ? y : x;
    }
    return (x > y) == kMax ? x : y;
  }
};

// Comparisons: f16/bf16 compare as float (exact), integers as themselves.
template <typename Cmp>
struct BinaryFn<op::Compare<Cmp>> : NoSimd, EveryDtype<bool> {
  template <typename C>
  static bool scalar(C x, C y, const Params&) {
    return Cmp{}(x, y);
  }
};

// Nonzero (NaN included) is true.
template <bool kAnd>
struct BinaryFn<op::Logical<kAnd>> : NoSimd, EveryDtype<bool> {
  template <typename C>
  static bool scalar(C x, C y, const Params&) {
    const bool a = x != C{0}, b = y != C{0};
    return kAnd ? (a && b) : (a || b);
  }
};

}  // namespace bp::cpu::binary
