// The core op set's elementwise and reduction ops as families, for backends that write a
// family as one templated kernel. Tags in sdk::op name the ops (a few carry what varies
// within a family: op::MaxMin<true> is maximum); register_unary_ops<Kernel>(registrar)
// registers the typed kernel Kernel<Tag>::run for every op of the family, with the dtypes
// PyTorch defines the op for, so every backend that uses them covers the same ops with the
// same dtypes:
//
//   template <typename Op> struct Unary {  // one loop for all, Op picks the arithmetic
//     static void run(const sdk::KernelContext& ctx, sdk::TensorArg self,
//                     sdk::TensorArg out) { ... }
//   };
//   sdk::register_unary_ops<Unary>(host.kernels(backend));
//
// Each run takes the op's schema arguments then its output (kernel.hpp). Also the parsing
// of the families' str arguments, with PyTorch's messages. Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/kernel.hpp>

#include <cstring>
#include <functional>
#include <string>

namespace bp::sdk {

namespace op {
// Unary: run(self, out). gelu is registered by the SDK, which parses `approximate` and calls
// Kernel<GeluErf> ('none') or Kernel<GeluTanh> as run(ctx, self, out): their run takes a
// `const KernelContext&` first.
struct Neg {};
struct Abs {};
struct Sign {};
struct Relu {};
struct Floor {};
struct Ceil {};
struct LogicalNot {};
struct Exp {};
struct Log {};
struct Sqrt {};
struct Rsqrt {};
struct Reciprocal {};
struct Sin {};
struct Cos {};
struct Tanh {};
struct Sigmoid {};
struct Erf {};
struct GeluErf {};
struct GeluTanh {};

// Binary: run(self, other, out); add/sub: run(self, other, alpha, out); div.Tensor_mode:
// run(self, other, rounding_mode, out); where.self: run(condition, self, other, out);
// clamp: run(self, min, max, out).
template <bool kSub>
struct AddSub {};
struct Mul {};
struct Div {};
struct DivMode {};
struct Pow {};
template <bool kMax>
struct MaxMin {};
template <typename Cmp>  // std::equal_to<>, std::less<>, ...: the comparison itself
struct Compare {};
template <bool kAnd>
struct Logical {};
struct Where {};
struct Clamp {};

// Reductions: run(self, dim, keepdim, out), with sum and prod also taking `dtype` before
// out. dim is an int[] (sum, amax, amin), an int (prod, all, any) or int? (argmax, argmin).
template <bool kProd>
struct SumProd {};
template <bool kMax>
struct Extreme {};  // amax, amin
template <bool kMax>
struct ArgExtreme {};  // argmax, argmin
template <bool kAll>
struct AllAny {};

// Activation gradients: run(ctx, grad_output, x, out), x being the forward call's input
// (threshold_backward, gelu_backward, silu_backward) or output (sigmoid_backward,
// tanh_backward); threshold_backward: run(ctx, grad_output, self, threshold, out).
// gelu_backward is registered by the SDK, which parses `approximate` as for gelu.
struct ThresholdBackward {};
struct GeluBackwardErf {};
struct GeluBackwardTanh {};
struct SiluBackward {};
struct SigmoidBackward {};
struct TanhBackward {};
}  // namespace op

// gelu's `approximate` ('none', the default, or 'tanh'; NULL is the default).
enum class GeluApproximation { kNone, kTanh };
inline GeluApproximation gelu_approximation(const char* op_name, const char* approximate) {
  if (!approximate || std::strcmp(approximate, "none") == 0) return GeluApproximation::kNone;
  if (std::strcmp(approximate, "tanh") == 0) return GeluApproximation::kTanh;
  throw Error(BP_ERR_INVALID_ARGUMENT,
              std::string(op_name) +
                  ": argument 'approximate' must be either 'none' or 'tanh', but got '" +
                  approximate + "'");
}

// div.Tensor_mode's `rounding_mode` (None, 'trunc' or 'floor'; NULL is None).
enum class RoundingMode { kNone, kTrunc, kFloor };
inline RoundingMode rounding_mode(const char* op_name, const char* mode) {
  if (!mode) return RoundingMode::kNone;
  if (std::strcmp(mode, "trunc") == 0) return RoundingMode::kTrunc;
  if (std::strcmp(mode, "floor") == 0) return RoundingMode::kFloor;
  throw Error(BP_ERR_INVALID_ARGUMENT,
              std::string(op_name) +
                  ": expected rounding_mode to be one of None, 'trunc', or 'floor' but found '" +
                  mode + "'");
}

namespace detail {
// gelu(Tensor self, *, str approximate='none') -> out, over the two forms' kernels.
template <template <typename Op> class Kernel>
void gelu(const KernelContext& ctx, TensorArg self, const char* approximate, TensorArg out) {
  if (gelu_approximation(ctx.op_name(), approximate) == GeluApproximation::kTanh)
    Kernel<op::GeluTanh>::run(ctx, self, out);
  else
    Kernel<op::GeluErf>::run(ctx, self, out);
}

// gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> out.
template <template <typename Op> class Kernel>
void gelu_backward(const KernelContext& ctx, TensorArg grad_output, TensorArg self,
                   const char* approximate, TensorArg out) {
  if (gelu_approximation(ctx.op_name(), approximate) == GeluApproximation::kTanh)
    Kernel<op::GeluBackwardTanh>::run(ctx, grad_output, self, out);
  else
    Kernel<op::GeluBackwardErf>::run(ctx, grad_output, self, out);
}
}  // namespace detail

template <template <typename Op> class Kernel>
Registrar& register_unary_ops(Registrar& r) {
  r.kernel<Kernel<op::Neg>::run>("neg", kAllButBool);
  r.kernel<Kernel<op::Abs>::run>("abs", kAllButBool);
  r.kernel<Kernel<op::Sign>::run>("sign", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Relu>::run>("relu", kAllButBool);
  r.kernel<Kernel<op::Floor>::run>("floor", kAllButBool);
  r.kernel<Kernel<op::Ceil>::run>("ceil", kAllButBool);
  r.kernel<Kernel<op::LogicalNot>::run>("logical_not", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Exp>::run>("exp", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Log>::run>("log", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Sqrt>::run>("sqrt", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Rsqrt>::run>("rsqrt", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Reciprocal>::run>("reciprocal", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Sin>::run>("sin", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Cos>::run>("cos", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Tanh>::run>("tanh", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Sigmoid>::run>("sigmoid", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::Erf>::run>("erf", BP_DTYPES_FLOATING);
  r.kernel<detail::gelu<Kernel>>("gelu", BP_DTYPES_FLOATING);
  return r;
}

template <template <typename Op> class Kernel>
Registrar& register_binary_ops(Registrar& r) {
  r.kernel<Kernel<op::AddSub<false>>::run>("add.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::AddSub<true>>::run>("sub.Tensor", kAllButBool);
  r.kernel<Kernel<op::Mul>::run>("mul.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Div>::run>("div.Tensor", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::DivMode>::run>("div.Tensor_mode", kAllButBool);
  r.kernel<Kernel<op::Pow>::run>("pow.Tensor_Tensor", kAllButBool);
  r.kernel<Kernel<op::MaxMin<true>>::run>("maximum", BP_DTYPES_ALL);
  r.kernel<Kernel<op::MaxMin<false>>::run>("minimum", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Compare<std::equal_to<>>>::run>("eq.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Compare<std::not_equal_to<>>>::run>("ne.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Compare<std::less<>>>::run>("lt.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Compare<std::less_equal<>>>::run>("le.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Compare<std::greater<>>>::run>("gt.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Compare<std::greater_equal<>>>::run>("ge.Tensor", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Logical<true>>::run>("logical_and", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Logical<false>>::run>("logical_or", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Where>::run>("where.self", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Clamp>::run>("clamp", kAllButBool);
  return r;
}

template <template <typename Op> class Kernel>
Registrar& register_reduction_ops(Registrar& r) {
  r.kernel<Kernel<op::SumProd<false>>::run>("sum.dim_IntList", BP_DTYPES_ALL);
  r.kernel<Kernel<op::SumProd<true>>::run>("prod.dim_int", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Extreme<true>>::run>("amax", BP_DTYPES_ALL);
  r.kernel<Kernel<op::Extreme<false>>::run>("amin", BP_DTYPES_ALL);
  // PyTorch has no argmax/argmin for bool.
  r.kernel<Kernel<op::ArgExtreme<true>>::run>("argmax", kAllButBool);
  r.kernel<Kernel<op::ArgExtreme<false>>::run>("argmin", kAllButBool);
  r.kernel<Kernel<op::AllAny<true>>::run>("all.dim", BP_DTYPES_ALL);
  r.kernel<Kernel<op::AllAny<false>>::run>("any.dim", BP_DTYPES_ALL);
  return r;
}

// The activation gradients PyTorch's autograd calls (core/src/ops/activation_backward.cpp).
template <template <typename Op> class Kernel>
Registrar& register_activation_backward_ops(Registrar& r) {
  r.kernel<Kernel<op::ThresholdBackward>::run>("threshold_backward", kAllButBool);
  r.kernel<detail::gelu_backward<Kernel>>("gelu_backward", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::SiluBackward>::run>("silu_backward", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::SigmoidBackward>::run>("sigmoid_backward", BP_DTYPES_FLOATING);
  r.kernel<Kernel<op::TanhBackward>::run>("tanh_backward", BP_DTYPES_FLOATING);
  return r;
}

}  // namespace bp::sdk
