// Batch normalisation of op set v2 (issue 28), composites in PyTorch's schemas over the
// reductions and the elementwise primitives (docs/normalization.md):
//   native_batch_norm           training: each channel normalised by its batch statistics
//                               over every dim but dim 1, the running statistics updated in
//                               place (momentum; the variance unbiased); evaluation: by the
//                               running statistics. Returns (output, save_mean, save_invstd).
//   native_batch_norm_backward  the gradients of input, weight and bias.
// f16/bf16 compute in f32 and round once, as the other norms (nn.cpp).
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <algorithm>
#include <string>

namespace bp::ops {
namespace {

// A per-channel tensor argument: None, or [C] of the input's dtype.
void check_channel_arg(const OpDef& op, std::span<const IValue> args, size_t i,
                       const Tensor& input) {
  const Tensor* t = optional_tensor_arg(op, args, i);
  if (!t) return;
  BP_CHECK(t->sizes() == Shape{input.size(1)}, ErrorCode::Shape,
           "{}: argument '{}' has shape {}; input of shape {} needs [{}] (one per channel)",
           op.name, arg_name(op, i), shape_str(t->sizes()), shape_str(input.sizes()),
           input.size(1));
  BP_CHECK(t->dtype() == input.dtype(), ErrorCode::Type,
           "{}: argument '{}' has dtype {}, but 'input' has {}; they must match", op.name,
           arg_name(op, i), dtype_name(t->dtype()), dtype_name(input.dtype()));
}

// input [N, C, *] floating, with at least 2 dims.
void check_batch_input(const OpDef& op, const Tensor& input) {
  BP_CHECK(input.dim() >= 2, ErrorCode::Shape,
           "{}: input has shape {}; batch norm needs [N, C, *] (at least 2 dims)", op.name,
           shape_str(input.sizes()));
  check_floating(op, "input 'input'", input.dtype());
}

// Every dim but the channels (dim 1): the dims the statistics reduce.
IValue statistic_dims(int64_t rank) {
  Shape dims{0};
  for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
  return IValue(std::move(dims));
}

// A [C] tensor viewed to broadcast over [N, C, *] of `rank` dims.
Tensor per_channel(const Tensor& t, int64_t rank) {
  Shape shape(static_cast<size_t>(rank), 1);
  shape[1] = t.size(0);
  return t.view(as_ref(shape));
}

// native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
//     Tensor? running_var, bool training, float momentum, float eps)
MetaResult batch_norm_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& input = tensor_arg(op, args, 0);
  check_batch_input(op, input);
  for (size_t i = 1; i <= 4; ++i) check_channel_arg(op, args, i, input);
  const bool training = args[5].to_bool();
  BP_CHECK(training || (optional_tensor_arg(op, args, 3) && optional_tensor_arg(op, args, 4)),
           ErrorCode::InvalidArgument,
           "{}: running_mean and running_var must be given in evaluation mode (training=False)",
           op.name);
  const Shape stats{training ? input.size(1) : 0};
  return norm_results(as_ref(input.sizes()), as_ref(stats), input.dtype());
}

// Writes (1 - momentum) running + momentum value into `running` (copy_ converts).
void update_running(OpContext& ctx, const Tensor& running, const Tensor& value, double momentum,
                    ScalarType acc) {
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kCopy = op_id("copy_");
  const Tensor kept =
      ctx.call1(kMul, {convert_to(ctx, running, acc), scalar_operand(ctx, 1.0 - momentum, acc)});
  const Tensor next = ctx.call1(
      kAdd, {kept, ctx.call1(kMul, {value, scalar_operand(ctx, momentum, acc)}), Scalar(1)});
  ctx.call(kCopy, {running, next, false});
}

// 1 / sqrt(var + eps).
Tensor inverse_std(OpContext& ctx, const Tensor& var, double eps, ScalarType acc) {
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kRsqrt = op_id("rsqrt");
  return ctx.call1(kRsqrt, {ctx.call1(kAdd, {var, scalar_operand(ctx, eps, acc), Scalar(1)})});
}

std::vector<Tensor> batch_norm_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  const Tensor& input = args[0].tensor();
  const ScalarType dtype = input.dtype(), acc = accumulate_dtype(dtype);
  const int64_t rank = input.dim();
  const bool training = args[5].to_bool();
  const double momentum = args[6].to_double(), eps = args[7].to_double();
  const Tensor x = convert_to(ctx, input, acc);
  const Tensor *running_mean = optional_tensor(args[3]), *running_var = optional_tensor(args[4]);
  Tensor mean, invstd;
  Tensor centred;
  if (training) {
    const IValue dims = statistic_dims(rank);
    mean = ctx.call1(kMean, {x, dims, false, IValue()});
    centred = ctx.call1(kSub, {x, per_channel(mean, rank), Scalar(1)});
    const Tensor var =
        ctx.call1(kMean, {ctx.call1(kMul, {centred, centred}), dims, false, IValue()});
    invstd = inverse_std(ctx, var, eps, acc);
    const int64_t n = input.numel() / std::max<int64_t>(input.size(1), 1);
    if (running_mean) update_running(ctx, *running_mean, mean, momentum, acc);
    if (running_var) {
      // The running variance is the unbiased one: var n / (n - 1) (inf or NaN for n = 1, as
      // in PyTorch).
      const double unbias = static_cast<double>(n) / static_cast<double>(n - 1);
      update_running(ctx, *running_var, ctx.call1(kMul, {var, scalar_operand(ctx, unbias, acc)}),
                     momentum, acc);
    }
  } else {
    mean = convert_to(ctx, *running_mean, acc);
    invstd = inverse_std(ctx, convert_to(ctx, *running_var, acc), eps, acc);
    centred = ctx.call1(kSub, {x, per_channel(mean, rank), Scalar(1)});
  }
  Tensor out = ctx.call1(kMul, {centred, per_channel(invstd, rank)});
  if (const Tensor* w = optional_tensor(args[1]))
    out = ctx.call1(kMul, {out, per_channel(convert_to(ctx, *w, acc), rank)});
  if (const Tensor* b = optional_tensor(args[2]))
    out = ctx.call1(kAdd, {out, per_channel(convert_to(ctx, *b, acc), rank), Scalar(1)});
  if (!training) {  // no statistics saved: PyTorch returns two empty tensors
    const Shape none{0};
    return {convert_to(ctx, out, dtype), ctx.empty(as_ref(none), dtype),
            ctx.empty(as_ref(none), dtype)};
  }
  return {convert_to(ctx, out, dtype), convert_to(ctx, mean, dtype),
          convert_to(ctx, invstd, dtype)};
}

// native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight,
//     Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd,
//     bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor): training
// takes save_mean and save_invstd, evaluation the running statistics; a gradient whose mask
// is false is undefined.
MetaResult batch_norm_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& input = tensor_arg(op, args, 1);
  check_batch_input(op, input);
  BP_CHECK(grad.sizes() == input.sizes() && grad.dtype() == input.dtype(), ErrorCode::Shape,
           "{}: grad_out ({} of shape {}) must have input's dtype and shape ({} of shape {})",
           op.name, dtype_name(grad.dtype()), shape_str(grad.sizes()), dtype_name(input.dtype()),
           shape_str(input.sizes()));
  for (size_t i = 2; i <= 6; ++i) check_channel_arg(op, args, i, input);
  const bool train = args[7].to_bool();
  const size_t mean_i = train ? 5 : 3, std_i = train ? 6 : 4;
  BP_CHECK(optional_tensor_arg(op, args, mean_i) && optional_tensor_arg(op, args, std_i),
           ErrorCode::InvalidArgument, "{}: with train={} arguments '{}' and '{}' must be given",
           op.name, train ? "True" : "False", arg_name(op, mean_i), arg_name(op, std_i));
  const Shape channels{input.size(1)};
  return norm_results(as_ref(input.sizes()), as_ref(channels), input.dtype());
}

std::vector<Tensor> batch_norm_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSum = op_id("sum.dim_IntList");
  const Tensor& input = args[1].tensor();
  const ScalarType dtype = input.dtype(), acc = accumulate_dtype(dtype);
  const int64_t rank = input.dim();
  const bool train = args[7].to_bool();
  const Shape& mask = args[9].int_list();
  const IValue dims = statistic_dims(rank);
  const Tensor grad = convert_to(ctx, args[0].tensor(), acc);
  const Tensor mean = convert_to(ctx, args[train ? 5 : 3].tensor(), acc);
  const Tensor invstd =
      train ? convert_to(ctx, args[6].tensor(), acc)
            : inverse_std(ctx, convert_to(ctx, args[4].tensor(), acc), args[8].to_double(), acc);
  const Tensor xhat = ctx.call1(
      kMul, {ctx.call1(kSub, {convert_to(ctx, input, acc), per_channel(mean, rank), Scalar(1)}),
             per_channel(invstd, rank)});
  std::vector<Tensor> out(3);
  if (mask[0]) {
    Tensor scale = invstd;
    if (const Tensor* w = optional_tensor(args[2]))
      scale = ctx.call1(kMul, {scale, convert_to(ctx, *w, acc)});
    Tensor g = grad;
    if (train) {  // g - mean(g) - xhat mean(g xhat), per channel
      const Tensor a = ctx.call1(kMean, {grad, dims, true, IValue()});
      const Tensor b = ctx.call1(kMean, {ctx.call1(kMul, {grad, xhat}), dims, true, IValue()});
      g = ctx.call1(kSub,
                    {ctx.call1(kSub, {grad, a, Scalar(1)}), ctx.call1(kMul, {xhat, b}), Scalar(1)});
    }
    out[0] = convert_to(ctx, ctx.call1(kMul, {g, per_channel(scale, rank)}), dtype);
  }
  if (mask[1])
    out[1] = convert_to(
        ctx, ctx.call1(kSum, {ctx.call1(kMul, {grad, xhat}), dims, false, IValue()}), dtype);
  if (mask[2]) out[2] = convert_to(ctx, ctx.call1(kSum, {grad, dims, false, IValue()}), dtype);
  return out;
}

}  // namespace

void register_batch_norm_ops(Catalog& c) {
  c.add(
      {"native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
       "Tensor? running_var, bool training, float momentum, float eps) "
       "-> (Tensor, Tensor, Tensor)",
       OpKind::Composite, batch_norm_meta, batch_norm_decompose});
  c.add(
      {"native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, "
       "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, "
       "bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
       OpKind::Composite, batch_norm_backward_meta, batch_norm_backward_decompose});
}

}  // namespace bp::ops
