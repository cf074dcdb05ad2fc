// CPU kernels for the elementwise unary ops: neg abs sign relu floor ceil logical_not
// (integral and floating) and exp log sqrt rsqrt reciprocal sin cos tanh sigmoid erf gelu
// (floating only: the host promotes integral inputs first). Registered dtypes are the
// reference backend's. f32/f64 rows run the Highway loops of simd_unary.cpp; f16/bf16 are
// computed in f32 blocks and rounded once; integers wrap like PyTorch (abs(INT8_MIN) ==
// INT8_MIN). erf and gelu(approximate='none') use the C library's erf/erfc per element.
#include "elementwise.hpp"
#include "loops.hpp"
#include "simd.hpp"

#include <cmath>
#include <cstring>
#include <string>

namespace bp::cpu {
namespace {

// Runs the row out[i] = Op(x[i]) on contiguous compute values: the SIMD loop for f32/f64
// when the op has one, else Op::scalar per element.
template <typename Op, typename C, typename R>
void compute_row(const C* x, R* out, int64_t n) {
  if constexpr (std::is_floating_point_v<C> && std::is_same_v<C, R> && Op::kSimd) {
    simd::unary(Op::kSimdOp, x, out, n);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::scalar(x[i]);
  }
}

// One row of the iteration: p[0]/s[0] the output, p[1]/s[1] the input of storage type T.
template <typename Op, typename T>
void unary_row(char* const* p, const int64_t* s, int64_t n, bp_dtype out_dtype) {
  using C = Compute<T>;
  using RT = typename Op::template Out<T>;  // the result's dtype (T, or bool)
  using RC = Compute<RT>;
  if constexpr (std::is_same_v<T, C> && std::is_same_v<RT, RC>) {
    if (out_dtype == dtype_of<RT>() && s[0] == static_cast<int64_t>(sizeof(RT)) &&
        s[1] == static_cast<int64_t>(sizeof(T))) {
      compute_row<Op>(reinterpret_cast<const C*>(p[1]), reinterpret_cast<RC*>(p[0]), n);
      return;
    }
  }
  C in_buf[kBlock];
  RC out_buf[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    const C* x = load_row<T>(p[1] + i * s[1], s[1], m, in_buf);
    compute_row<Op>(x, out_buf, m);
    store_row<RT>(out_buf, p[0] + i * s[0], s[0], m, out_dtype);
  }
}

// The arithmetic of each op, by its SDK tag (below).
template <typename Op>
struct UnaryFn;

// Runs UnaryFn<Op> over self and the output; gelu, which has an argument, specialises it.
template <typename Op>
struct Unary {
  static void run(const KernelContext& ctx, TensorArg self, TensorArg out) {
    using Fn = UnaryFn<Op>;
    visit_dtype(self.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!Fn::template kSupports<T>) {
        throw unsupported(ctx, "self", self.dtype());
      } else {
        const bp_dtype out_dtype = out.dtype();
        auto row = [out_dtype](char* const* p, const int64_t* s, int64_t n) {
          unary_row<Fn, T>(p, s, n, out_dtype);
        };
        if (!for_each_row_of({out.raw(), self.raw()}, {dtype_size(out_dtype), int64_t{sizeof(T)}},
                             row))
          throw Error(BP_ERR_INVALID_ARGUMENT,
                      std::string(ctx.op_name()) + ": 'self' and the output differ in shape");
      }
    });
  }
};

// ---- ops -------------------------------------------------------------------------------
// Each op: kSupports<T> (storage types it is registered for), Out<T> (result type),
// scalar(C) on a compute value, and kSimd/kSimdOp when simd::unary has it for f32/f64.
struct IntegralAndFloating {
  template <typename T>
  static constexpr bool kSupports = kNotBool<T>;
  template <typename T>
  using Out = T;
};

template <>
struct UnaryFn<op::Neg> : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kNeg;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return -v;
    else
      return sdk::wrapping_neg(v);
  }
};

template <>
struct UnaryFn<op::Abs> : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kAbs;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return std::fabs(v);
    else
      return sdk::wrapping_abs(v);
  }
};

// sign(NaN) == 0 and sign(-0.0) == +0.0, as PyTorch's (0 < x) - (x < 0).
template <>
struct UnaryFn<op::Sign> {
  template <typename T>
  static constexpr bool kSupports = true;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kSign;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_same_v<C, bool> || std::is_unsigned_v<C>)
      return static_cast<C>(v != C{0});
    else
      return static_cast<C>((C{0} < v) - (v < C{0}));
  }
};

// relu keeps NaN and -0.0 (x < 0 ? 0 : x).
template <>
struct UnaryFn<op::Relu> : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kRelu;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_unsigned_v<C>)
      return v;
    else
      return v < C{0} ? C{0} : v;
  }
};

// floor and ceil round floating values and are the identity on integers, as in PyTorch.
template <simd::Unary kOp, typename F>
struct RoundOp : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = kOp;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return F{}(v);
    else
      return v;
  }
};
template <>
struct UnaryFn<op::Floor>
    : RoundOp<simd::Unary::kFloor, decltype([](auto v) { return std::floor(v); })> {};
template <>
struct UnaryFn<op::Ceil>
    : RoundOp<simd::Unary::kCeil, decltype([](auto v) { return std::ceil(v); })> {};

// NaN is nonzero, so logical_not(NaN) is false.
template <>
struct UnaryFn<op::LogicalNot> {
  template <typename T>
  static constexpr bool kSupports = true;
  template <typename T>
  using Out = bool;
  static constexpr bool kSimd = false;
  template <typename C>
  static bool scalar(C v) {
    return !(v != C{0});
  }
};

// A floating op with a SIMD loop for f32/f64; F is its value on one compute element.
template <simd::Unary kOp, typename F>
struct FloatOp {
  template <typename T>
  static constexpr bool kSupports = kIsFloating<T>;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = kOp;
  template <typename C>
  static C scalar(C v) {
    return F{}(v);
  }
};

// The ops with a SIMD loop for f32/f64, each with its value on one compute element (the
// definition of the op, and the form of the non-SIMD paths: none for f32/f64 at present).
using U = simd::Unary;
template <>
struct UnaryFn<op::Exp> : FloatOp<U::kExp, decltype([](auto v) { return std::exp(v); })> {};
template <>
struct UnaryFn<op::Log> : FloatOp<U::kLog, decltype([](auto v) { return std::log(v); })> {};
template <>
struct UnaryFn<op::Sqrt> : FloatOp<U::kSqrt, decltype([](auto v) { return std::sqrt(v); })> {};
// rsqrt(-0.0) == -inf
template <>
struct UnaryFn<op::Rsqrt>
    : FloatOp<U::kRsqrt, decltype([](auto v) { return decltype(v){1} / std::sqrt(v); })> {};
template <>
struct UnaryFn<op::Reciprocal>
    : FloatOp<U::kReciprocal, decltype([](auto v) { return decltype(v){1} / v; })> {};
template <>
struct UnaryFn<op::Sin> : FloatOp<U::kSin, decltype([](auto v) { return std::sin(v); })> {};
template <>
struct UnaryFn<op::Cos> : FloatOp<U::kCos, decltype([](auto v) { return std::cos(v); })> {};
template <>
struct UnaryFn<op::Tanh> : FloatOp<U::kTanh, decltype([](auto v) { return std::tanh(v); })> {};
template <>
struct UnaryFn<op::Sigmoid> : FloatOp<U::kSigmoid, decltype([](auto v) {
                                        using C = decltype(v);
                                        return C{1} / (C{1} + std::exp(-v));
                                      })> {};
struct GeluTanhF {
  template <typename C>
  C operator()(C x) const {
    const C u = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
    return x / (C{1} + std::exp(C{-2} * u));
  }
};

// erf and gelu('none') have no Highway routine: the C library's, one element at a time.
template <typename F>
struct ScalarFloatOp {
  template <typename T>
  static constexpr bool kSupports = kIsFloating<T>;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = false;
  template <typename C>
  static C scalar(C v) {
    return F{}(v);
  }
};
template <>
struct UnaryFn<op::Erf> : ScalarFloatOp<decltype([](auto v) { return std::erf(v); })> {};
// x * Phi(x) = 0.5 x erfc(-x / sqrt 2): the same function as 0.5 x (1 + erf(x / sqrt 2))
// without its cancellation for negative x (the reference's form).
struct GeluErfF {
  template <typename C>
  C operator()(C x) const {
    return C(0.5) * x * std::erfc(-x * C(0.70710678118654752440));
  }
};

template <>
struct UnaryFn<op::GeluErf> : ScalarFloatOp<GeluErfF> {};
template <>
struct UnaryFn<op::GeluTanh> : FloatOp<U::kGeluTanh, GeluTanhF> {};

}  // namespace

void register_unary_kernels(sdk::Registrar& r) {
  sdk::register_unary_ops<Unary>(r);
}

}  // namespace bp::cpu
