// CPU kernels for the activation gradients: threshold_backward (every dtype but bool) and
// gelu_backward (erf and tanh forms), silu_backward, sigmoid_backward, tanh_backward
// (floating). Each runs on the n-ary iterator of loops.hpp over (out, grad_output, x);
// floating rows are gathered into blocks of compute values (f32 for f16/bf16/f32, f64 for
// f64), computed with PyTorch's formulas in PyTorch's order of operations, and rounded once.
// The loops are plain C++ built for the baseline ISA, so the bits are the same on every
// machine.
#include "elementwise.hpp"
#include "loops.hpp"

#include <cmath>
#include <numbers>
#include <string>

namespace bp::cpu {
namespace {

// grad * factor(x) for one element, in compute type C.
template <typename Op>
struct GradientFn;

template <>
struct GradientFn<op::SigmoidBackward> {
  template <typename C>
  static C apply(C grad, C y) {
    return grad * (C(1) - y) * y;
  }
};

template <>
struct GradientFn<op::TanhBackward> {
  template <typename C>
  static C apply(C grad, C y) {
    return grad * (C(1) - y * y);
  }
};

template <>
struct GradientFn<op::SiluBackward> {
  template <typename C>
  static C apply(C grad, C x) {
    const C s = C(1) / (C(1) + std::exp(-x));
    return grad * s * (C(1) + x * (C(1) - s));
  }
};

template <>
struct GradientFn<op::GeluBackwardErf> {
  template <typename C>
  static C apply(C grad, C x) {
    constexpr C kAlpha = C(std::numbers::inv_sqrtpi * std::numbers::sqrt2 * 0.5);
    constexpr C kSqrtHalf = C(std::numbers::sqrt2 / 2);
    const C cdf = C(0.5) * (C(1) + std::erf(x * kSqrtHalf));
    const C pdf = kAlpha * std::exp(x * x * C(-0.5));
    return grad * (cdf + x * pdf);
  }
};

template <>
struct GradientFn<op::GeluBackwardTanh> {
  template <typename C>
  static C apply(C grad, C x) {
    constexpr C kBeta = C(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);
    constexpr C kKappa = C(0.044715);
    const C x_sq = x * x;
    const C inner = kBeta * (x + kKappa * x_sq * x);
    const C t = std::tanh(inner);
    const C left = C(0.5) * x;
    const C left_derivative = C(0.5) * (C(1) + t);
    // Where tanh has saturated the term is 0; computing it would give inf * 0 once x^2
    // overflows (PyTorch's kernel returns NaN there; docs/training.md).
    const C sech_sq = C(1) - t * t;
    const C right_derivative =
        sech_sq == C(0) ? C(0) : left * sech_sq * (kBeta * (C(1) + C(3) * kKappa * x_sq));
    return grad * (left_derivative + right_derivative);
  }
};

// One row: p/s[0] the output, [1] grad_output, [2] x, both of storage type T.
template <typename Op, typename T>
void gradient_row(char* const* p, const int64_t* s, int64_t n, bp_dtype out_dtype) {
  using C = Compute<T>;
  C grad_buf[kBlock], x_buf[kBlock], out_buf[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    const C* grad = load_row<T>(p[1] + i * s[1], s[1], m, grad_buf);
    const C* x = load_row<T>(p[2] + i * s[2], s[2], m, x_buf);
    for (int64_t k = 0; k < m; ++k) out_buf[k] = GradientFn<Op>::apply(grad[k], x[k]);
    store_row<T>(out_buf, p[0] + i * s[0], s[0], m, out_dtype);
  }
}

// Runs `row` over (out, grad_output, x) of storage type T.
template <typename T, typename Row>
void run_rows(const KernelContext& ctx, TensorArg grad, TensorArg x, TensorArg out, Row&& row) {
  if (grad.dtype() != x.dtype())
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(ctx.op_name()) + ": 'grad_output' is " +
                                             dtype_name(grad.dtype()) +
                                             " but the forward tensor is " + dtype_name(x.dtype()) +
                                             "; the host converts both to the compute dtype");
  const int64_t size = sizeof(T);
  if (!for_each_row_of({out.raw(), grad.raw(), x.raw()}, {dtype_size(out.dtype()), size, size},
                       row))
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(ctx.op_name()) + ": the inputs and the output differ in shape");
}

template <typename Op>
struct Gradient {
  static void run(const KernelContext& ctx, TensorArg grad, TensorArg x, TensorArg out) {
    visit_dtype(x.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!kIsFloating<T>) {
        throw unsupported(ctx, "self", x.dtype());
      } else {
        const bp_dtype out_dtype = out.dtype();
        run_rows<T>(ctx, grad, x, out, [out_dtype](char* const* p, const int64_t* s, int64_t n) {
          gradient_row<Op, T>(p, s, n, out_dtype);
        });
      }
    });
  }
};

// threshold_backward: self <= threshold ? 0 : grad, compared in the compute dtype with the
// threshold converted to it (checked), as PyTorch; no arithmetic, so every dtype is exact.
template <typename T>
void threshold_row(char* const* p, const int64_t* s, int64_t n, T limit, bp_dtype out_dtype) {
  const T zero = convert<T>(0.0);
  // The output's type is chosen once per row (an out= tensor may have another dtype).
  visit_dtype(out_dtype, [&](auto tag) {
    using O = typename decltype(tag)::type;
    for (int64_t i = 0; i < n; ++i) {
      const T self = *reinterpret_cast<const T*>(p[2] + i * s[2]);
      const T grad = *reinterpret_cast<const T*>(p[1] + i * s[1]);
      bool below;
      if constexpr (kIsHalf<T>)
        below = to_compute(self) <= to_compute(limit);
      else
        below = self <= limit;
      *reinterpret_cast<O*>(p[0] + i * s[0]) = convert<O>(below ? zero : grad);
    }
  });
}

template <>
struct Gradient<op::ThresholdBackward> {
  static void run(const KernelContext& ctx, TensorArg grad, TensorArg self, sdk::Scalar threshold,
                  TensorArg out) {
    visit_dtype(self.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", self.dtype());
      } else {
        const T limit = threshold.checked_to<T>(ctx.op_name(), "threshold");
        const bp_dtype out_dtype = out.dtype();
        run_rows<T>(ctx, grad, self, out,
                    [limit, out_dtype](char* const* p, const int64_t* s, int64_t n) {
                      threshold_row<T>(p, s, n, limit, out_dtype);
                    });
      }
    });
  }
};

}  // namespace

void register_activation_backward_kernels(sdk::Registrar& r) {
  sdk::register_activation_backward_ops<Gradient>(r);
}

}  // namespace bp::cpu
