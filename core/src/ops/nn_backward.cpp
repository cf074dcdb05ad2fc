// The gradients of softmax, log_softmax and layer_norm as PyTorch's autograd calls them,
// composites over the elementwise and reduction primitives:
//   _softmax_backward_data      (grad - sum(grad * y, dim)) * y
//   _log_softmax_backward_data  grad - exp(y) * sum(grad, dim)
//   native_layer_norm_backward  rstd * (gw - mean(gw) - xhat * mean(gw * xhat)) for the
//                               input, sum(grad * xhat) for the weight, sum(grad) for the
//                               bias; xhat = (x - mean) * rstd, gw = grad * weight
// where y is the forward call's output and the means run over the normalized dims, the sums
// over the others. f16/bf16 compute in f32 and round once, as the forward composites
// (nn.cpp) do. embedding_dense_backward is an index_add of grad_output's rows.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// _softmax_backward_data / _log_softmax_backward_data(Tensor grad_output, Tensor output,
//     int dim, ScalarType input_dtype): grad_output and output of one shape and one floating
// dtype, which the result has. As PyTorch's CPU kernels, input_dtype is otherwise not read,
// except that an f32 gradient with input_dtype f16 (CUDA's half_to_float case, whose result
// would be f16) is refused.
MetaResult softmax_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& output = tensor_arg(op, args, 1);
  BP_CHECK(grad.sizes() == output.sizes(), ErrorCode::Shape,
           "{}: argument 'grad_output' has shape {}, but 'output' has shape {}; they must be "
           "equal",
           op.name, shape_str(as_ref(grad.sizes())), shape_str(as_ref(output.sizes())));
  check_floating(op, "input 'grad_output'", grad.dtype());
  BP_CHECK(output.dtype() == grad.dtype(), ErrorCode::Type,
           "{}: argument 'output' has dtype {}, but 'grad_output' has {}; they must match", op.name,
           dtype_name(output.dtype()), dtype_name(grad.dtype()));
  const ScalarType input_dtype = args[3].dtype();
  BP_CHECK(!(grad.dtype() == ScalarType::Float32 && input_dtype == ScalarType::Float16),
           ErrorCode::Type,
           "{}: argument 'input_dtype' is f16 with an f32 'grad_output' (a half_to_float "
           "softmax), which is not supported; pass the gradient in f16",
           op.name);
  wrap_dim_arg(op, args, 2, grad.dim());
  MetaResult r;
  r.compute_dtype = grad.dtype();
  r.outputs.push_back(TensorMeta{grad.sizes(), grad.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> softmax_backward_impl(OpContext& ctx, std::span<const IValue> args, bool log) {
  static const OpId kSum = op_id("sum.dim_IntList");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kExp = op_id("exp");
  const Tensor& grad_output = args[0].tensor();
  const ScalarType dtype = grad_output.dtype();
  if (grad_output.numel() == 0) return {ctx.empty(as_ref(grad_output.sizes()), dtype)};
  const ScalarType acc = accumulate_dtype(dtype);
  const Tensor grad = convert_to(ctx, grad_output, acc);
  const Tensor y = convert_to(ctx, args[1].tensor(), acc);
  const IValue dim_list(Shape{args[2].to_int()});
  Tensor grad_input;
  if (log) {
    Tensor sum = ctx.call1(kSum, {grad, dim_list, true, IValue()});
    grad_input = ctx.call1(kSub, {grad, ctx.call1(kMul, {ctx.call1(kExp, {y}), sum}), Scalar(1)});
  } else {
    Tensor dot = ctx.call1(kSum, {ctx.call1(kMul, {grad, y}), dim_list, true, IValue()});
    grad_input = ctx.call1(kMul, {ctx.call1(kSub, {grad, dot, Scalar(1)}), y});
  }
  return {convert_to(ctx, grad_input, dtype)};
}

std::vector<Tensor> softmax_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  return softmax_backward_impl(ctx, args, /*log=*/false);
}
std::vector<Tensor> log_softmax_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  return softmax_backward_impl(ctx, args, /*log=*/true);
}

// native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape,
//     Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask)
//     -> (Tensor, Tensor, Tensor): the gradients of input, weight and bias; one whose mask is
// false is left undefined (None), as PyTorch's kernel leaves it.
MetaResult layer_norm_backward_meta(const OpDef& op, std::span<IValue> args) {
  check_norm_args(op, args, 1, {5, 6});
  const Tensor& input = args[1].tensor();
  const Shape& normalized = args[2].int_list();
  for (const size_t i : {size_t{0}, size_t{3}, size_t{4}}) {
    const Tensor& t = tensor_arg(op, args, i);
    BP_CHECK(t.dtype() == input.dtype(), ErrorCode::Type,
             "{}: argument '{}' has dtype {}, but 'input' has {}; they must match", op.name,
             arg_name(op, i), dtype_name(t.dtype()), dtype_name(input.dtype()));
    const bool fits = i == 0 ? t.sizes() == input.sizes()
                             : broadcasts_to(as_ref(t.sizes()), as_ref(input.sizes()));
    BP_CHECK(fits, ErrorCode::Shape,
             "{}: argument '{}' has shape {}, which does not fit 'input' {}", op.name,
             arg_name(op, i), shape_str(as_ref(t.sizes())), shape_str(as_ref(input.sizes())));
  }
  return norm_results(as_ref(input.sizes()), as_ref(normalized), input.dtype());
}

// sum of `t` over its leading `batch_dims` dims, or `t` itself when there are none (an empty
// dim list would mean every dim).
Tensor sum_over_batch(OpContext& ctx, const Tensor& t, int64_t batch_dims) {
  static const OpId kSum = op_id("sum.dim_IntList");
  if (batch_dims == 0) return t;
  return ctx.call1(kSum, {t, dim_range(0, batch_dims), false, IValue()});
}

std::vector<Tensor> layer_norm_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kMean = op_id("mean.dim");
  const Tensor& input = args[1].tensor();
  const ScalarType dtype = input.dtype(), acc = accumulate_dtype(dtype);
  const Shape& mask = args[7].int_list();
  const int64_t batch_dims = input.dim() - static_cast<int64_t>(args[2].int_list().size());
  const IValue norm_dims = dim_range(batch_dims, input.dim());
  const Tensor grad = convert_to(ctx, args[0].tensor(), acc);
  const Tensor centred = ctx.call1(
      kSub, {convert_to(ctx, input, acc), convert_to(ctx, args[3].tensor(), acc), Scalar(1)});
  const Tensor rstd = convert_to(ctx, args[4].tensor(), acc);
  const Tensor xhat = ctx.call1(kMul, {centred, rstd});
  std::vector<Tensor> out(3);
  if (mask[0]) {
    const Tensor* weight = optional_tensor(args[5]);
    const Tensor gw = weight ? ctx.call1(kMul, {grad, convert_to(ctx, *weight, acc)}) : grad;
    const Tensor a = ctx.call1(kMean, {gw, norm_dims, true, IValue()});
    const Tensor b = ctx.call1(kMean, {ctx.call1(kMul, {gw, xhat}), norm_dims, true, IValue()});
    const Tensor inner = ctx.call1(
        kSub, {ctx.call1(kSub, {gw, a, Scalar(1)}), ctx.call1(kMul, {xhat, b}), Scalar(1)});
    out[0] = convert_to(ctx, ctx.call1(kMul, {rstd, inner}), dtype);
  }
  if (mask[1])
    out[1] = convert_to(ctx, sum_over_batch(ctx, ctx.call1(kMul, {grad, xhat}), batch_dims), dtype);
  if (mask[2]) out[2] = convert_to(ctx, sum_over_batch(ctx, grad, batch_dims), dtype);
  return out;
}

// embedding_dense_backward(Tensor grad_output, Tensor indices, int num_weights,
//     int padding_idx, bool scale_grad_by_freq) -> Tensor: [num_weights, D] in grad_output's
// dtype, D = grad_output.size(-1); grad_output holds one row of D per index. As PyTorch's
// CPU kernel, any padding_idx is accepted (-1, or a value no index has, skips nothing).
MetaResult embedding_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& indices = tensor_arg(op, args, 1);
  check_floating(op, "input 'grad_output'", grad.dtype());
  check_dtype_in(op, "input 'indices'", indices.dtype(), kIndexDtypes);
  BP_CHECK(grad.dim() >= 1 && grad.numel() == indices.numel() * grad.size(-1), ErrorCode::Shape,
           "{}: argument 'grad_output' of shape {} must hold one row per index of 'indices' "
           "of shape {} (shape indices.shape + [D])",
           op.name, shape_str(as_ref(grad.sizes())), shape_str(as_ref(indices.sizes())));
  const int64_t num_weights = args[2].to_int();
  BP_CHECK(num_weights >= 0, ErrorCode::InvalidArgument,
           "{}: argument 'num_weights' is {}, but it must not be negative", op.name, num_weights);
  MetaResult r;
  r.compute_dtype = grad.dtype();
  r.outputs.push_back(TensorMeta{Shape{num_weights, grad.size(-1)}, grad.dtype(), std::nullopt});
  return r;
}

// 1 / (how often each entry's index occurs in `idx`), as a column [n, 1] in `dtype`.
Tensor inverse_index_counts(OpContext& ctx, const Tensor& idx, int64_t num_weights,
                            ScalarType dtype) {
  static const OpId kFill = op_id("fill_.Scalar");
  static const OpId kIndexAdd = op_id("index_add");
  static const OpId kIndexSelect = op_id("index_select");
  static const OpId kReciprocal = op_id("reciprocal");
  const int64_t n = idx.numel();
  Tensor counts = ctx.empty({num_weights}, ScalarType::Int64);
  Tensor ones = ctx.empty({n}, ScalarType::Int64);
  ctx.call(kFill, {counts, Scalar(int64_t{0})});
  ctx.call(kFill, {ones, Scalar(int64_t{1})});
  counts = ctx.call1(kIndexAdd, {counts, int64_t{0}, idx, ones, Scalar(int64_t{1})});
  const Tensor per_entry = ctx.call1(kIndexSelect, {counts, int64_t{0}, idx});
  return ctx.call1(kReciprocal, {convert_to(ctx, per_entry, dtype)}).view({n, 1});
}

// grad_weight = index_add(zeros, 0, indices, rows of grad_output): the rows are added in the
// order of the indices, one rounding per add, as PyTorch's CPU kernel adds them. Rows whose
// index is padding_idx become zeros first; scale_grad_by_freq divides each row by its index's
// count (multiplies by its reciprocal, as PyTorch's kernel scales).
std::vector<Tensor> embedding_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kFill = op_id("fill_.Scalar");
  static const OpId kIndexAdd = op_id("index_add");
  static const OpId kWhere = op_id("where.self");
  static const OpId kEq = op_id("eq.Scalar");
  static const OpId kMul = op_id("mul.Tensor");
  const Tensor& grad_output = args[0].tensor();
  const ScalarType dtype = grad_output.dtype();
  const int64_t num_weights = args[2].to_int(), padding_idx = args[3].to_int();
  const int64_t d = grad_output.size(-1), n = args[1].tensor().numel();
  const Tensor idx = flattened(ctx, args[1].tensor());
  Tensor rows = flattened(ctx, grad_output).view({n, d});
  if (args[4].to_bool()) {
    const ScalarType acc = accumulate_dtype(dtype);
    const Tensor scale = inverse_index_counts(ctx, idx, num_weights, acc);
    rows = convert_to(ctx, ctx.call1(kMul, {convert_to(ctx, rows, acc), scale}), dtype);
  }
  const Tensor padded = ctx.call1(kEq, {idx, Scalar(padding_idx)}).view({n, 1});
  rows = ctx.call1(kWhere, {padded, scalar_operand(ctx, 0.0, dtype), rows});
  Tensor zeros = ctx.empty({num_weights, d}, dtype);
  ctx.call(kFill, {zeros, Scalar(0.0)});
  return {ctx.call1(kIndexAdd, {zeros, int64_t{0}, idx, rows, Scalar(int64_t{1})})};
}

}  // namespace

void register_nn_backward_ops(Catalog& c) {
  c.add(
      {"_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
       "ScalarType input_dtype) -> Tensor",
       OpKind::Composite, softmax_backward_meta, softmax_backward_decompose});
  c.add(
      {"_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
       "ScalarType input_dtype) -> Tensor",
       OpKind::Composite, softmax_backward_meta, log_softmax_backward_decompose});
  c.add(
      {"native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, "
       "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) "
       "-> (Tensor, Tensor, Tensor)",
       OpKind::Composite, layer_norm_backward_meta, layer_norm_backward_decompose});
  c.add(
      {"embedding_dense_backward(Tensor grad_output, Tensor indices, int num_weights, "
       "int padding_idx, bool scale_grad_by_freq) -> Tensor",
       OpKind::Composite, embedding_backward_meta, embedding_backward_decompose});
}

}  // namespace bp::ops
