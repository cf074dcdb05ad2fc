// Reference kernels for the activation gradients (sdk op family "activation backward"):
// threshold_backward, gelu_backward (erf and tanh forms), silu_backward, sigmoid_backward
// and tanh_backward. The host has broadcast grad_output and x (the forward call's input or
// output) to the output's shape and converted both to the compute dtype. Floating values
// are computed in double and rounded once; threshold_backward of integers compares in the
// integer type.
#include "elementwise.hpp"

#include <cmath>
#include <numbers>

namespace bp::reference {
namespace {

// The derivative factor of each op, applied as grad * factor(x) in double.
template <typename Op>
struct GradientFn;

template <>
struct GradientFn<sdk::op::SigmoidBackward> {
  static double apply(double grad, double y) { return grad * (1.0 - y) * y; }
};

template <>
struct GradientFn<sdk::op::TanhBackward> {
  static double apply(double grad, double y) { return grad * (1.0 - y * y); }
};

template <>
struct GradientFn<sdk::op::SiluBackward> {
  static double apply(double grad, double x) {
    const double s = 1.0 / (1.0 + std::exp(-x));
    return grad * s * (1.0 + x * (1.0 - s));
  }
};

// d/dx x * Phi(x) = Phi(x) + x * phi(x).
template <>
struct GradientFn<sdk::op::GeluBackwardErf> {
  static double apply(double grad, double x) {
    const double cdf = 0.5 * (1.0 + std::erf(x * std::numbers::sqrt2 / 2.0));
    const double pdf = std::exp(-0.5 * x * x) * std::numbers::inv_sqrtpi / std::numbers::sqrt2;
    return grad * (cdf + x * pdf);
  }
};

// d/dx 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3).
template <>
struct GradientFn<sdk::op::GeluBackwardTanh> {
  static double apply(double grad, double x) {
    constexpr double kBeta = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
    constexpr double kKappa = 0.044715;
    const double t = std::tanh(kBeta * (x + kKappa * x * x * x));
    const double inner_derivative = kBeta * (1.0 + 3.0 * kKappa * x * x);
    // Saturated tanh: the second term is 0 (not inf * 0 for huge x; docs/training.md).
    const double sech_sq = 1.0 - t * t;
    const double right = sech_sq == 0.0 ? 0.0 : 0.5 * x * sech_sq * inner_derivative;
    return grad * (0.5 * (1.0 + t) + right);
  }
};

// The host hands both inputs in the output's shape and in one compute dtype.
void check_operands(const KernelContext& ctx, const StridedView& grad, const StridedView& x,
                    const StridedView& out) {
  check_shape(ctx, "grad_output", grad, out);
  check_shape(ctx, "self", x, out);
  if (grad.dtype != x.dtype)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(ctx.op_name()) + ": argument 'grad_output' has dtype " +
                    dtype_name(grad.dtype) + " but the forward tensor has " + dtype_name(x.dtype) +
                    "; the reference backend expects both in the compute dtype");
}

template <typename Op>
struct Gradient {
  static void run(const KernelContext& ctx, StridedView grad, StridedView x, StridedView out) {
    check_operands(ctx, grad, x, out);
    visit_dtype(x.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!kIsFloating<T>) {
        throw unsupported(ctx, "self", x.dtype);
      } else {
        for_each_index(out, [&](const int64_t* idx) {
          const double g = to_double(grad.at<T>(idx)), v = to_double(x.at<T>(idx));
          store(out, idx, from_double<T>(GradientFn<Op>::apply(g, v)));
        });
      }
    });
  }
};

// threshold_backward: self <= threshold ? 0 : grad, the threshold first converted to the
// compute dtype (checked) and compared in it, as PyTorch does (0.1 as an f32 threshold is
// f32(0.1), which an f32 self of 0.1 equals).
template <>
struct Gradient<sdk::op::ThresholdBackward> {
  static void run(const KernelContext& ctx, StridedView grad, StridedView self,
                  sdk::Scalar threshold, StridedView out) {
    check_operands(ctx, grad, self, out);
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", self.dtype);
      } else {
        const T limit = threshold.checked_to<T>(ctx.op_name(), "threshold");
        const T zero = convert<T>(0.0);
        for_each_index(out, [&](const int64_t* idx) {
          bool below;
          if constexpr (kIsFloating<T>)
            below = to_double(self.at<T>(idx)) <= to_double(limit);
          else
            below = self.at<T>(idx) <= limit;
          store(out, idx, below ? zero : grad.at<T>(idx));
        });
      }
    });
  }
};

}  // namespace

void register_activation_backward_kernels(sdk::Registrar& r) {
  sdk::register_activation_backward_ops<Gradient>(r);
}

}  // namespace bp::reference
