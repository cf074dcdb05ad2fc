// Losses and their gradients, composites over the primitives, with PyTorch 1.13's schemas:
//   mse_loss, mse_loss_backward                   (self - target)^2, reduced
//   nll_loss_forward, nll_loss_backward          -self[i, target[i]] * weight[target[i]]
//   nll_loss, cross_entropy_loss                 the functional forms over nll_loss_forward
// `reduction` is PyTorch's enum as an int: 0 none, 1 mean, 2 sum (the schemas write its
// default as 1 where PyTorch writes `Mean`). The nll ops pick each row's target class with
// gather and build the gradient densely (a where over a one-hot mask), so every backend
// that has the primitives runs them; rows whose target is ignore_index count for nothing.
// f16/bf16 compute in f32 and round once.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

IValue every_dim() {
  return IValue();  // dim=None: the reductions' "every element"
}

// ---- mse_loss / mse_loss_backward -----------------------------------------------------------

// mse_loss(Tensor self, Tensor target, int reduction=1)
MetaResult mse_loss_meta(const OpDef& op, std::span<IValue> args) {
  tensor_arg(op, args, 0);
  tensor_arg(op, args, 1);
  const int64_t reduction = check_reduction_arg(op, args, 2);
  const ScalarType dtype = result_type(op, args, {0, 1});
  check_floating(op, "the promoted dtype of 'self' and 'target'", dtype);
  Shape shape = broadcast_args(op, args, {0, 1});
  expand_args(args, {0, 1}, as_ref(shape));
  MetaResult r;
  r.compute_dtype = dtype;
  request_conversion(r, args, {0, 1});
  r.outputs.push_back(
      TensorMeta{reduction == kReductionNone ? std::move(shape) : Shape{}, dtype, std::nullopt});
  return r;
}

std::vector<Tensor> mse_loss_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSum = op_id("sum.dim_IntList");
  const Tensor& self = args[0].tensor();
  const Tensor& target = args[1].tensor();
  const ScalarType dtype = result_type_of({&self, &target});
  const ScalarType acc = accumulate_dtype(dtype);
  const Tensor diff =
      ctx.call1(kSub, {convert_to(ctx, self, acc), convert_to(ctx, target, acc), Scalar(1)});
  Tensor loss = ctx.call1(kMul, {diff, diff});
  const int64_t reduction = args[2].to_int();
  if (reduction != kReductionNone) {
    loss =
        ctx.call1(reduction == kReductionMean ? kMean : kSum, {loss, every_dim(), false, IValue()});
  }
  return {convert_to(ctx, loss, dtype)};
}

// mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction): the
// gradient has the broadcast shape of the three (autograd sums it back to self's shape).
// As PyTorch, the three share one dtype (no promotion), any but bool: integers compute
// with the norm truncated to an integer, as PyTorch reads it in the tensor's type.
MetaResult mse_loss_backward_meta(const OpDef& op, std::span<IValue> args) {
  const ScalarType dtype = tensor_arg(op, args, 1).dtype();
  for (const size_t i : {size_t{0}, size_t{2}}) {
    const ScalarType other = tensor_arg(op, args, i).dtype();
    BP_CHECK(other == dtype, ErrorCode::Type,
             "{}: argument '{}' has dtype {}, but 'self' has {}; the gradient's inputs must "
             "have one dtype",
             op.name, arg_name(op, i), dtype_name(other), dtype_name(dtype));
  }
  check_not_bool(op, "input 'self'", dtype);
  check_reduction_arg(op, args, 3);
  Shape shape = broadcast_args(op, args, {1, 2, 0});
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{std::move(shape), dtype, std::nullopt});
  return r;
}

// norm * (self - target) * grad_output, norm = 2 (sum, none) or 2 / self.numel() (mean),
// multiplied in PyTorch's order.
std::vector<Tensor> mse_loss_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  const Tensor& self = args[1].tensor();
  const ScalarType dtype = self.dtype();
  const ScalarType acc = accumulate_dtype(dtype);
  const bool mean = args[3].to_int() == kReductionMean;
  const int64_t n = self.numel();
  // PyTorch reads the norm in the tensor's type: an integer norm is truncated (0 for an
  // empty mean, where nothing is computed).
  const Scalar norm = is_floating(dtype) ? Scalar(mean ? 2.0 / static_cast<double>(n) : 2.0)
                                         : Scalar(mean ? (n > 0 ? 2 / n : 0) : int64_t{2});
  const Tensor diff = ctx.call1(
      kSub, {convert_to(ctx, self, acc), convert_to(ctx, args[2].tensor(), acc), Scalar(1)});
  const Tensor scaled = ctx.call1(kMul, {ctx.scalar_tensor(norm, acc), diff});
  const Tensor grad = ctx.call1(kMul, {scaled, convert_to(ctx, args[0].tensor(), acc)});
  return {convert_to(ctx, grad, dtype)};
}

}  // namespace

// The nll ops and cross_entropy_loss are in loss_nll.cpp.
void register_nll_loss_ops(Catalog& c);

void register_loss_ops(Catalog& c) {
  c.add({"mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", OpKind::Composite,
         mse_loss_meta, mse_loss_decompose});
  c.add(
      {"mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor",
       OpKind::Composite, mse_loss_backward_meta, mse_loss_backward_decompose});
  register_nll_loss_ops(c);
}

}  // namespace bp::ops
