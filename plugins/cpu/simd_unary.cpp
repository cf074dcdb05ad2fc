// SIMD inner loops of the unary kernels (simd.hpp): contiguous f32/f64 rows, compiled once
// per Highway target and dispatched at run time. Transcendental functions use Highway's
// vectorised approximations (1-4 ulp) on the inputs where those are documented to be valid;
// a vector holding any other lane (NaN, +-inf, huge arguments of sin/cos, a log of zero, a
// negative or subnormal number, exp near overflow/underflow) is computed with the C
// library, so special values are exact and the SIMD path never sees them.
#include "simd.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_unary.cpp"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <hwy/contrib/math/math-inl.h>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// An op is Op{}(d, v) on a vector plus, when kChecked, Valid(d, v) (the lanes Op may
// compute) and Scalar(x) (the C library's value, used for a vector with an invalid lane).

struct NegOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Neg(x);
  }
};
struct AbsOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Abs(x);
  }
};
// (x > 0) - (x < 0): NaN and +-0 give +0.
struct SignOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V zero = hn::Zero(d), one = hn::Set(d, 1);
    return hn::Sub(hn::IfThenElseZero(hn::Gt(x, zero), one),
                   hn::IfThenElseZero(hn::Lt(x, zero), one));
  }
};
// x < 0 ? 0 : x, which keeps NaN and -0.
struct ReluOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::IfThenZeroElse(hn::Lt(x, hn::Zero(d)), x);
  }
};
// Highway 1.0's portable baseline (HWY_SCALAR / HWY_EMU128) computes Floor and Ceil by
// integer conversion and loses the sign of zero (floor(-0) = +0, ceil(-0.5) = +0), which
// tests/cpu/test_cpu_unary.cpp caught under BACKPLANE_CPU_ISA=scalar; every other target
// uses the rounding instructions (SSE4.1's roundps and up). The baseline uses the C library.
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
constexpr bool kEmulatedRounding = true;
#else
constexpr bool kEmulatedRounding = false;
#endif

template <typename T, typename F>
HWY_NOINLINE void ByLibm(F function, const T* a, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = function(a[i]);
}

struct FloorOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Floor(x);
  }
};
struct CeilOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Ceil(x);
  }
};
struct SqrtOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D, V x) const {
    return hn::Sqrt(x);
  }
};
// A true division (not the ~12-bit hardware estimate): rsqrt(-0) = -inf as 1 / -0.
struct RsqrtOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Div(hn::Set(d, 1), hn::Sqrt(x));
  }
};
struct ReciprocalOp {
  static constexpr bool kChecked = false;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Div(hn::Set(d, 1), x);
  }
};

// |x| <= limit, false for NaN.
template <class D, class V>
HWY_INLINE auto AbsAtMost(D d, V x, double limit) {
  return hn::Le(hn::Abs(x), hn::Set(d, static_cast<hn::TFromD<D>>(limit)));
}
template <class D>
constexpr bool IsF32(D) {
  return sizeof(hn::TFromD<D>) == 4;
}

// exp: the vector path stays away from overflow and from subnormal results.
struct ExpOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Exp(d, x);
  }
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    return AbsAtMost(d, x, IsF32(d) ? 87.0 : 708.0);
  }
  template <typename T>
  static T Scalar(T x) {
    return std::exp(x);
  }
};
// log: positive normal finite numbers only.
struct LogOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Log(d, x);
  }
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    using T = hn::TFromD<D>;
    return hn::And(hn::Ge(x, hn::Set(d, std::numeric_limits<T>::min())),
                   hn::Le(x, hn::Set(d, std::numeric_limits<T>::max())));
  }
  template <typename T>
  static T Scalar(T x) {
    return std::log(x);
  }
};
struct SinOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Sin(d, x);
  }
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    return AbsAtMost(d, x, 39000.0);
  }
  template <typename T>
  static T Scalar(T x) {
    return std::sin(x);
  }
};
struct CosOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Cos(d, x);
  }
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    return AbsAtMost(d, x, 39000.0);
  }
  template <typename T>
  static T Scalar(T x) {
    return std::cos(x);
  }
};
struct TanhOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    return hn::Tanh(d, x);
  }
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    return AbsAtMost(d, x, IsF32(d) ? 3.0e38 : 1.0e308);  // finite
  }
  template <typename T>
  static T Scalar(T x) {
    return std::tanh(x);
  }
};
struct SigmoidOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    const V one = hn::Set(d, 1);
    return hn::Div(one, hn::Add(one, hn::Exp(d, hn::Neg(x))));
  }
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    return AbsAtMost(d, x, IsF32(d) ? 87.0 : 708.0);
  }
  template <typename T>
  static T Scalar(T x) {
    return T(1) / (T(1) + std::exp(-x));
  }
};
// x / (1 + exp(-2u)) is 0.5 x (1 + tanh(u)) without its cancellation for negative x.
struct GeluTanhOp {
  static constexpr bool kChecked = true;
  template <class D, class V>
  HWY_INLINE V operator()(D d, V x) const {
    using T = hn::TFromD<D>;
    const V x3 = hn::Mul(hn::Mul(x, x), x);
    const V inner = hn::MulAdd(hn::Set(d, T(0.044715)), x3, x);
    const V minus_2u = hn::Mul(hn::Set(d, T(-2 * 0.79788456080286535588)), inner);
    return hn::Div(x, hn::Add(hn::Set(d, 1), hn::Exp(d, minus_2u)));
  }
  // |x| <= 10 keeps |2u| below 88 (exp stays in its valid range for f32 and f64).
  template <class D, class V>
  HWY_INLINE auto Valid(D d, V x) const {
    return AbsAtMost(d, x, 10.0);
  }
  template <typename T>
  static T Scalar(T x) {
    const T u = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
    return x / (T(1) + std::exp(T(-2) * u));
  }
};

template <class Op, typename T>
HWY_INLINE void UnaryRow(Op op, const T* a, T* out, int64_t n) {
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto x = hn::LoadU(d, a + i);
    if constexpr (Op::kChecked) {
      if (!hn::AllTrue(d, op.Valid(d, x))) {
        for (int64_t j = i; j < i + lanes; ++j) out[j] = Op::Scalar(a[j]);
        continue;
      }
    }
    hn::StoreU(op(d, x), d, out + i);
  }
  for (; i < n; ++i) {
    if constexpr (Op::kChecked) {
      if (!hn::AllTrue(d1, op.Valid(d1, hn::Set(d1, a[i])))) {
        out[i] = Op::Scalar(a[i]);
        continue;
      }
    }
    hn::StoreU(op(d1, hn::Set(d1, a[i])), d1, out + i);
  }
}

template <typename T>
HWY_INLINE void UnaryAny(int op, const T* a, T* out, int64_t n) {
  switch (static_cast<Unary>(op)) {
    case Unary::kNeg:
      return UnaryRow(NegOp{}, a, out, n);
    case Unary::kAbs:
      return UnaryRow(AbsOp{}, a, out, n);
    case Unary::kSign:
      return UnaryRow(SignOp{}, a, out, n);
    case Unary::kRelu:
      return UnaryRow(ReluOp{}, a, out, n);
    case Unary::kFloor:
      if constexpr (kEmulatedRounding) return ByLibm([](T x) { return std::floor(x); }, a, out, n);
      return UnaryRow(FloorOp{}, a, out, n);
    case Unary::kCeil:
      if constexpr (kEmulatedRounding) return ByLibm([](T x) { return std::ceil(x); }, a, out, n);
      return UnaryRow(CeilOp{}, a, out, n);
    case Unary::kSqrt:
      return UnaryRow(SqrtOp{}, a, out, n);
    case Unary::kRsqrt:
      return UnaryRow(RsqrtOp{}, a, out, n);
    case Unary::kReciprocal:
      return UnaryRow(ReciprocalOp{}, a, out, n);
    case Unary::kExp:
      return UnaryRow(ExpOp{}, a, out, n);
    case Unary::kLog:
      return UnaryRow(LogOp{}, a, out, n);
    case Unary::kSin:
      return UnaryRow(SinOp{}, a, out, n);
    case Unary::kCos:
      return UnaryRow(CosOp{}, a, out, n);
    case Unary::kTanh:
      return UnaryRow(TanhOp{}, a, out, n);
    case Unary::kSigmoid:
      return UnaryRow(SigmoidOp{}, a, out, n);
    case Unary::kGeluTanh:
      return UnaryRow(GeluTanhOp{}, a, out, n);
  }
}

void UnaryF32(int op, const float* a, float* out, int64_t n) {
  UnaryAny(op, a, out, n);
}
void UnaryF64(int op, const double* a, double* out, int64_t n) {
  UnaryAny(op, a, out, n);
}

}  // namespace HWY_NAMESPACE
}  // namespace bp::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bp::cpu::simd {

HWY_EXPORT(UnaryF32);
HWY_EXPORT(UnaryF64);

void unary(Unary op, const float* a, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF32)(static_cast<int>(op), a, out, n);
}
void unary(Unary op, const double* a, double* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(UnaryF64)(static_cast<int>(op), a, out, n);
}

}  // namespace bp::cpu::simd
#endif
