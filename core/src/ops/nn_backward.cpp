// The gradients of softmax and log_softmax as PyTorch's autograd calls them, composites over
// the elementwise and reduction primitives:
//   _softmax_backward_data      (grad - sum(grad * y, dim)) * y
//   _log_softmax_backward_data  grad - exp(y) * sum(grad, dim)
// where y is the forward call's output. f16/bf16 compute in f32 and round once, as the
// forward composites (nn.cpp) do.
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
}

}  // namespace bp::ops
