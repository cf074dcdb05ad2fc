// Reference kernels for the elementwise unary ops: neg abs sign relu floor ceil logical_not
// (integral and floating) and exp log sqrt rsqrt reciprocal sin cos tanh sigmoid erf gelu
// (floating only: the host promotes integral inputs first). Floating values are computed
// in double and rounded once to the compute dtype; integral ones wrap like PyTorch's
// (abs(INT8_MIN) == INT8_MIN).
#include "elementwise.hpp"

#include <cmath>
#include <cstring>

namespace bp::reference {
namespace {

// The arithmetic of each op, by its SDK tag: supports<T> says which compute dtypes it has
// (the others are never registered; a call with one anyway is reported, not undefined);
// apply(T) returns T, or bool for logical_not.
template <typename Op>
struct UnaryFn;

// Runs UnaryFn<Op> elementwise.
template <typename Op>
struct Unary {
  static void run(const KernelContext& ctx, StridedView self, StridedView out) {
    check_shape(ctx, "self", self, out);
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!UnaryFn<Op>::template supports<T>) {
        throw unsupported(ctx, "self", self.dtype);
      } else {
        for_each_index(
            out, [&](const int64_t* idx) { store(out, idx, UnaryFn<Op>::apply(self.at<T>(idx))); });
      }
    });
  }
};

// An op of every dtype but bool: F on floating values (in double, rounded once), G on
// integral ones.
template <double (*F)(double), typename G>
struct NumericOp {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T v) {
    if constexpr (kIsFloating<T>)
      return from_double<T>(F(to_double(v)));
    else
      return G{}(v);
  }
};
using Identity = decltype([](auto v) { return v; });

template <>
struct UnaryFn<op::Neg> : NumericOp<+[](double x) { return -x; },
                                    decltype([](auto v) { return sdk::wrapping_neg(v); })> {};
// abs(INT_MIN) == INT_MIN, as in PyTorch
template <>
struct UnaryFn<op::Abs> : NumericOp<+[](double x) { return std::fabs(x); },
                                    decltype([](auto v) { return sdk::wrapping_abs(v); })> {};
// floor and ceil are the identity on integral dtypes, as in PyTorch.
template <>
struct UnaryFn<op::Floor> : NumericOp<+[](double x) { return std::floor(x); }, Identity> {};
template <>
struct UnaryFn<op::Ceil> : NumericOp<+[](double x) { return std::ceil(x); }, Identity> {};

// sign(NaN) == 0 and sign(-0.0) == +0.0, as PyTorch's (0 < x) - (x < 0).
template <>
struct UnaryFn<op::Sign> {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static T apply(T v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else if constexpr (kIsFloating<T>) {
      const double x = to_double(v);
      return from_double<T>(x > 0.0 ? 1.0 : x < 0.0 ? -1.0 : 0.0);
    } else if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(v > 0 ? 1 : v < 0 ? -1 : 0);
    } else {
      return static_cast<T>(v != 0 ? 1 : 0);
    }
  }
};

// relu keeps NaN and -0.0 (PyTorch's x < 0 ? 0 : x).
template <>
struct UnaryFn<op::Relu> {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T v) {
    if constexpr (kIsFloating<T>)
      return to_double(v) < 0.0 ? from_double<T>(0.0) : v;
    else if constexpr (std::is_signed_v<T>)
      return v < 0 ? T{0} : v;
    else
      return v;
  }
};

template <>
struct UnaryFn<op::LogicalNot> {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static bool apply(T v) {
    return !nonzero(v);
  }
};

// A floating op given as a function on doubles (a lambda: the address of a standard
// library function may not be taken).
template <double (*F)(double)>
struct FloatOp {
  template <typename T>
  static constexpr bool supports = kIsFloating<T>;
  template <typename T>
  static T apply(T v) {
    return from_double<T>(F(to_double(v)));
  }
};

template <>
struct UnaryFn<op::Exp> : FloatOp<+[](double x) { return std::exp(x); }> {};
template <>
struct UnaryFn<op::Log> : FloatOp<+[](double x) { return std::log(x); }> {};
template <>
struct UnaryFn<op::Sqrt> : FloatOp<+[](double x) { return std::sqrt(x); }> {};
// rsqrt(-0.0) == -inf
template <>
struct UnaryFn<op::Rsqrt> : FloatOp<+[](double x) { return ieee_div(1.0, std::sqrt(x)); }> {};
template <>
struct UnaryFn<op::Reciprocal> : FloatOp<+[](double x) { return ieee_div(1.0, x); }> {};
template <>
struct UnaryFn<op::Sin> : FloatOp<+[](double x) { return std::sin(x); }> {};
template <>
struct UnaryFn<op::Cos> : FloatOp<+[](double x) { return std::cos(x); }> {};
template <>
struct UnaryFn<op::Tanh> : FloatOp<+[](double x) { return std::tanh(x); }> {};
template <>
struct UnaryFn<op::Sigmoid> : FloatOp<+[](double x) { return 1.0 / (1.0 + std::exp(-x)); }> {};
template <>
struct UnaryFn<op::Erf> : FloatOp<+[](double x) { return std::erf(x); }> {};

constexpr double kSqrtHalf = 0.70710678118654752440;       // 1 / sqrt(2)
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // sqrt(2 / pi)

// gelu 'none': x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))), written with erfc so large
// negative x keeps its tiny value instead of cancelling to 0. gelu(-inf) is NaN in PyTorch
// (-inf * 0) and stays NaN here.
double gelu_erf(double x) {
  return 0.5 * x * std::erfc(-x * kSqrtHalf);
}

// gelu 'tanh': 0.5 * x * (1 + tanh(u)), u = sqrt(2/pi) * (x + 0.044715 x^3), written as
// x / (1 + exp(-2u)) (the same function: 1 + tanh(u) == 2 / (1 + exp(-2u))) without the
// cancellation of 1 + tanh(u) for negative x.
double gelu_tanh(double x) {
  const double u = kSqrtTwoOverPi * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

template <>
struct UnaryFn<op::GeluErf> : FloatOp<gelu_erf> {};
template <>
struct UnaryFn<op::GeluTanh> : FloatOp<gelu_tanh> {};

}  // namespace

void register_unary_kernels(sdk::Registrar& r) {
  sdk::register_unary_ops<Unary>(r);
}

}  // namespace bp::reference
