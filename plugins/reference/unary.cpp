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

// Runs Op elementwise. Op::supports<T> says which compute dtypes it has (the others are
// never registered; a call with one anyway is reported, not undefined); Op::apply(T)
// returns T, or bool for logical_not.
template <typename Op>
bp_status unary_kernel(const bp_call* c) {
  const View self(arg_tensor(c, 0));
  const View out(out_tensor(c));
  if (!same_shape(self, out)) return fail_shape(c, "self", self, out);
  return visit_dtype(self.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (!Op::template supports<T>) {
      return fail_dtype(c, "self", self.dtype);
    } else {
      for_each_index(out.ndim, out.shape,
                     [&](const int64_t* idx) { store(out, idx, Op::apply(self.at<T>(idx))); });
      return BP_OK;
    }
  });
}

template <typename T>
inline constexpr bool kNotBool = !std::is_same_v<T, bool>;

struct Neg {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T v) {
    if constexpr (kIsFloating<T>)
      return from_double<T>(-to_double(v));
    else
      return wrap_int<T>(uint64_t{0} - static_cast<uint64_t>(v));
  }
};

struct Abs {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T v) {
    if constexpr (kIsFloating<T>)
      return from_double<T>(std::fabs(to_double(v)));
    else if constexpr (std::is_signed_v<T>)  // -INT_MIN wraps to INT_MIN, as in PyTorch
      return v < 0 ? wrap_int<T>(uint64_t{0} - static_cast<uint64_t>(v)) : v;
    else
      return v;
  }
};

// sign(NaN) == 0 and sign(-0.0) == +0.0, as PyTorch's (0 < x) - (x < 0).
struct Sign {
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
struct Relu {
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

// floor and ceil are the identity on integral dtypes, as in PyTorch.
struct Floor {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T v) {
    if constexpr (kIsFloating<T>)
      return from_double<T>(std::floor(to_double(v)));
    else
      return v;
  }
};

struct Ceil {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T v) {
    if constexpr (kIsFloating<T>)
      return from_double<T>(std::ceil(to_double(v)));
    else
      return v;
  }
};

struct LogicalNot {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static bool apply(T v) {
    return !nonzero(v);
  }
};

// A floating op given as a function on doubles.
template <double (*F)(double)>
struct FloatOp {
  template <typename T>
  static constexpr bool supports = kIsFloating<T>;
  template <typename T>
  static T apply(T v) {
    return from_double<T>(F(to_double(v)));
  }
};

// Wrappers, because the address of a standard library function may not be taken.
double exp_d(double x) {
  return std::exp(x);
}
double log_d(double x) {
  return std::log(x);
}
double sqrt_d(double x) {
  return std::sqrt(x);
}
double rsqrt_d(double x) {
  return ieee_div(1.0, std::sqrt(x));
}  // rsqrt(-0.0) == -inf
double reciprocal_d(double x) {
  return ieee_div(1.0, x);
}
double sin_d(double x) {
  return std::sin(x);
}
double cos_d(double x) {
  return std::cos(x);
}
double tanh_d(double x) {
  return std::tanh(x);
}
double sigmoid_d(double x) {
  return 1.0 / (1.0 + std::exp(-x));
}
double erf_d(double x) {
  return std::erf(x);
}

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

// gelu(Tensor self, *, str approximate='none') -> out.
bp_status gelu_kernel(const bp_call* c) {
  const bp_value& mode = c->args[1];
  const char* name = mode.tag == BP_VALUE_STRING ? mode.u.s : "none";
  if (mode.tag == BP_VALUE_NONE || std::strcmp(name, "none") == 0)
    return unary_kernel<FloatOp<gelu_erf>>(c);
  if (std::strcmp(name, "tanh") == 0) return unary_kernel<FloatOp<gelu_tanh>>(c);
  return fail(BP_ERR_INVALID_ARGUMENT,
              std::string(c->op_name) +
                  ": argument 'approximate' must be either 'none' or 'tanh', but got '" +
                  (mode.tag == BP_VALUE_STRING ? name : "<not a string>") + "'");
}

}  // namespace

bp_status register_unary_kernels(uint32_t backend_id) {
  static const KernelEntry entries[] = {
      {"neg", kAllButBool, unary_kernel<Neg>},
      {"abs", kAllButBool, unary_kernel<Abs>},
      {"sign", BP_DTYPES_ALL, unary_kernel<Sign>},
      {"relu", kAllButBool, unary_kernel<Relu>},
      {"floor", kAllButBool, unary_kernel<Floor>},
      {"ceil", kAllButBool, unary_kernel<Ceil>},
      {"logical_not", BP_DTYPES_ALL, unary_kernel<LogicalNot>},
      {"exp", BP_DTYPES_FLOATING, unary_kernel<FloatOp<exp_d>>},
      {"log", BP_DTYPES_FLOATING, unary_kernel<FloatOp<log_d>>},
      {"sqrt", BP_DTYPES_FLOATING, unary_kernel<FloatOp<sqrt_d>>},
      {"rsqrt", BP_DTYPES_FLOATING, unary_kernel<FloatOp<rsqrt_d>>},
      {"reciprocal", BP_DTYPES_FLOATING, unary_kernel<FloatOp<reciprocal_d>>},
      {"sin", BP_DTYPES_FLOATING, unary_kernel<FloatOp<sin_d>>},
      {"cos", BP_DTYPES_FLOATING, unary_kernel<FloatOp<cos_d>>},
      {"tanh", BP_DTYPES_FLOATING, unary_kernel<FloatOp<tanh_d>>},
      {"sigmoid", BP_DTYPES_FLOATING, unary_kernel<FloatOp<sigmoid_d>>},
      {"erf", BP_DTYPES_FLOATING, unary_kernel<FloatOp<erf_d>>},
      {"gelu", BP_DTYPES_FLOATING, gelu_kernel},
  };
  return register_kernels(backend_id, entries, sizeof entries / sizeof entries[0]);
}

}  // namespace bp::reference
