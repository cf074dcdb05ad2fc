// Group normalisation of op set v2 (issue 28), composites in PyTorch's schemas over the
// reductions and elementwise ops (docs/normalization.md):
//   native_group_norm           the channels of each sample split into `group` groups, each
//                               normalised by its own mean and variance, then the
//                               per-channel affine; returns (output, mean, rstd), the
//                               statistics [N, group]
//   native_group_norm_backward  the gradients of input, weight and bias
// The input is viewed as [N, group, C / group * HxW] (a contiguous copy when its layout
// does not allow that view); f16/bf16 compute in f32 and round once.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <string>

namespace bp::ops {
namespace {

// input [N, C, *] with N, C and HxW (the product of the other dims) as given, and C
// divisible by group; weight and bias None or [C] of the input's dtype.
void check_group_norm_args(const OpDef& op, std::span<const IValue> args, size_t input_i,
                           size_t first_size, std::initializer_list<size_t> params) {
  const Tensor& input = tensor_arg(op, args, input_i);
  check_floating(op, "input 'input'", input.dtype());
  const int64_t n = args[first_size].to_int(), c = args[first_size + 1].to_int();
  const int64_t hxw = args[first_size + 2].to_int(), group = args[first_size + 3].to_int();
  BP_CHECK(
      input.dim() >= 2 && input.size(0) == n && input.size(1) == c && n * c * hxw == input.numel(),
      ErrorCode::Shape,
      "{}: input of shape {} does not match N = {}, C = {}, HxW = {} (input [N, C, *] "
      "with HxW the product of its other dims)",
      op.name, shape_str(input.sizes()), n, c, hxw);
  BP_CHECK(group > 0 && c % group == 0, ErrorCode::InvalidArgument,
           "{}: argument 'group' = {} must be positive and divide the {} channels", op.name, group,
           c);
  for (const size_t i : params) {
    const Tensor* t = optional_tensor_arg(op, args, i);
    if (!t) continue;
    BP_CHECK(t->sizes() == Shape{c} && t->dtype() == input.dtype(), ErrorCode::Shape,
             "{}: argument '{}' ({} of shape {}) must be [{}] of the input's dtype {}", op.name,
             arg_name(op, i), dtype_name(t->dtype()), shape_str(t->sizes()), c,
             dtype_name(input.dtype()));
  }
}

// `t` (any layout) as [N, group, C / group * HxW], in dtype `acc`.
Tensor grouped(OpContext& ctx, const Tensor& t, int64_t n, int64_t group, ScalarType acc) {
  const Tensor flat = flattened(ctx, convert_to(ctx, t, acc));
  const int64_t k = n * group == 0 ? 0 : t.numel() / (n * group);
  return flat.view({n, group, k});
}

// [C] viewed to broadcast over [N, C, HxW].
Tensor per_channel3(const Tensor& t) {
  return t.view({1, t.size(0), 1});
}

// native_group_norm(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW,
//     int group, float eps) -> (Tensor, Tensor, Tensor)
MetaResult group_norm_meta(const OpDef& op, std::span<IValue> args) {
  check_group_norm_args(op, args, 0, 3, {1, 2});
  const Tensor& input = args[0].tensor();
  const Shape stats{args[3].to_int(), args[6].to_int()};
  return norm_results(as_ref(input.sizes()), as_ref(stats), input.dtype());
}

std::vector<Tensor> group_norm_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kRsqrt = op_id("rsqrt");
  const Tensor& input = args[0].tensor();
  const ScalarType dtype = input.dtype(), acc = accumulate_dtype(dtype);
  const int64_t n = args[3].to_int(), c = args[4].to_int(), group = args[6].to_int();
  const Tensor x = grouped(ctx, input, n, group, acc);
  const IValue last(Shape{2});
  const Tensor mean = ctx.call1(kMean, {x, last, true, IValue()});
  const Tensor centred = ctx.call1(kSub, {x, mean, Scalar(1)});
  const Tensor var = ctx.call1(kMean, {ctx.call1(kMul, {centred, centred}), last, true, IValue()});
  const Tensor rstd = ctx.call1(
      kRsqrt, {ctx.call1(kAdd, {var, scalar_operand(ctx, args[7].to_double(), acc), Scalar(1)})});
  // The normalised values per channel: [N, C, HxW].
  Tensor out = ctx.call1(kMul, {centred, rstd}).view({n, c, args[5].to_int()});
  if (const Tensor* w = optional_tensor(args[1]))
    out = ctx.call1(kMul, {out, per_channel3(convert_to(ctx, *w, acc))});
  if (const Tensor* b = optional_tensor(args[2]))
    out = ctx.call1(kAdd, {out, per_channel3(convert_to(ctx, *b, acc)), Scalar(1)});
  return {convert_to(ctx, out, dtype).view(as_ref(input.sizes())),
          convert_to(ctx, mean.view({n, group}), dtype),
          convert_to(ctx, rstd.view({n, group}), dtype)};
}

// native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd,
//     Tensor? weight, int N, int C, int HxW, int group, bool[3] output_mask): mean and rstd
// [N, group]; a gradient whose mask is false is undefined.
MetaResult group_norm_backward_meta(const OpDef& op, std::span<IValue> args) {
  check_group_norm_args(op, args, 1, 5, {4});
  const Tensor& input = args[1].tensor();
  const Shape stats{args[5].to_int(), args[8].to_int()};
  for (const size_t i : {size_t{0}, size_t{2}, size_t{3}}) {
    const Tensor& t = tensor_arg(op, args, i);
    const Shape& want = i == 0 ? input.sizes() : stats;
    BP_CHECK(t.sizes() == want && t.dtype() == input.dtype(), ErrorCode::Shape,
             "{}: argument '{}' ({} of shape {}) must be {} of shape {}", op.name, arg_name(op, i),
             dtype_name(t.dtype()), shape_str(t.sizes()), dtype_name(input.dtype()),
             shape_str(want));
  }
  const Shape channels{args[6].to_int()};
  return norm_results(as_ref(input.sizes()), as_ref(channels), input.dtype());
}

std::vector<Tensor> group_norm_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSum = op_id("sum.dim_IntList");
  const Tensor& input = args[1].tensor();
  const ScalarType dtype = input.dtype(), acc = accumulate_dtype(dtype);
  const int64_t n = args[5].to_int(), c = args[6].to_int(), hxw = args[7].to_int();
  const int64_t group = args[8].to_int();
  const Shape& mask = args[9].int_list();
  const Tensor mean = convert_to(ctx, args[2].tensor(), acc).view({n, group, 1});
  const Tensor rstd = convert_to(ctx, args[3].tensor(), acc).view({n, group, 1});
  const Tensor x = grouped(ctx, input, n, group, acc);
  const Tensor xhat = ctx.call1(kMul, {ctx.call1(kSub, {x, mean, Scalar(1)}), rstd});
  const Tensor grad = grouped(ctx, args[0].tensor(), n, group, acc);
  const IValue per_channel_dims(Shape{0, 2});
  std::vector<Tensor> out(3);
  if (mask[0]) {
    Tensor gw = grad;
    if (const Tensor* w = optional_tensor(args[4]))
      gw = ctx.call1(kMul, {grad.view({n, c, hxw}), per_channel3(convert_to(ctx, *w, acc))})
               .view({n, group, grad.size(2)});
    const IValue last(Shape{2});
    const Tensor a = ctx.call1(kMean, {gw, last, true, IValue()});
    const Tensor b = ctx.call1(kMean, {ctx.call1(kMul, {gw, xhat}), last, true, IValue()});
    const Tensor inner = ctx.call1(
        kSub, {ctx.call1(kSub, {gw, a, Scalar(1)}), ctx.call1(kMul, {xhat, b}), Scalar(1)});
    out[0] = convert_to(ctx, ctx.call1(kMul, {inner, rstd}), dtype).view(as_ref(input.sizes()));
  }
  if (mask[1])
    out[1] = convert_to(ctx,
                        ctx.call1(kSum, {ctx.call1(kMul, {grad, xhat}).view({n, c, hxw}),
                                         per_channel_dims, false, IValue()}),
                        dtype);
  if (mask[2])
    out[2] = convert_to(
        ctx, ctx.call1(kSum, {grad.view({n, c, hxw}), per_channel_dims, false, IValue()}), dtype);
  return out;
}

}  // namespace

void register_group_norm_ops(Catalog& c) {
  c.add(
      {"native_group_norm(Tensor input, Tensor? weight, Tensor? bias, int N, int C, int HxW, "
       "int group, float eps) -> (Tensor, Tensor, Tensor)",
       OpKind::Composite, group_norm_meta, group_norm_decompose});
  c.add(
      {"native_group_norm_backward(Tensor grad_out, Tensor input, Tensor mean, Tensor rstd, "
       "Tensor? weight, int N, int C, int HxW, int group, bool[3] output_mask) "
       "-> (Tensor, Tensor, Tensor)",
       OpKind::Composite, group_norm_backward_meta, group_norm_backward_decompose});
}

}  // namespace bp::ops
