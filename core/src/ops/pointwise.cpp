// The pointwise ops optimizers are written with, composites whose decomposition rounds
// where PyTorch's CPU kernels round, so their results are PyTorch's bits for f32 and f64:
//   addcmul    self + value * tensor1 * tensor2       ((value * t1) * t2, then + self)
//   addcdiv    self + value * tensor1 / tensor2       ((value * t1) / t2, then + self)
//   lerp       self + weight * (end - self)           for weight < 0.5, else
//              end - (end - self) * (1 - weight)      (PyTorch 1.13's two-sided form)
//   zero_      fill_(self, 0)
// The in-place forms (addcmul_, ...) are these ops with self as the output (bp::addcmul_,
// the bridge's in-place mapping). Inputs broadcast with PyTorch's type promotion and are
// converted to the promoted dtype; f16/bf16 compute in f32 and round once, as PyTorch's
// opmath does.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// addcmul / addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1)
template <bool kDivide>
MetaResult addc_meta(const OpDef& op, std::span<IValue> args) {
  for (size_t i = 0; i < 3; ++i) tensor_arg(op, args, i);
  const ScalarType dtype = result_type(op, args, {0, 1, 2});
  const Scalar value = args[3].scalar();
  if constexpr (kDivide) {
    BP_CHECK(is_floating(args[1].tensor().dtype()) || is_floating(args[2].tensor().dtype()),
             ErrorCode::Type,
             "{}: arguments 'tensor1' and 'tensor2' are integral ({} and {}); integer division "
             "with addcdiv is not supported: compute (self + value * trunc(tensor1 / tensor2)) "
             "for the historic result, or pass floating tensors",
             op.name, dtype_name(args[1].tensor().dtype()), dtype_name(args[2].tensor().dtype()));
  }
  check_not_bool(op, "the promoted dtype of 'self', 'tensor1' and 'tensor2'", dtype);
  BP_CHECK(!value.is_floating() || is_floating(dtype), ErrorCode::Type,
           "{}: argument 'value' = {} is a floating-point number, which is not supported for "
           "integral results (the result dtype is {})",
           op.name, value.str(), dtype_name(dtype));
  check_scalar_fits(op, "value", value, dtype);
  Shape shape = broadcast_args(op, args, {0, 1, 2});
  expand_args(args, {0, 1, 2}, as_ref(shape));
  MetaResult r;
  r.compute_dtype = dtype;
  request_conversion(r, args, {0, 1, 2});
  r.outputs.push_back(TensorMeta{std::move(shape), dtype, std::nullopt});
  return r;
}

template <bool kDivide>
std::vector<Tensor> addc_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kDiv = op_id("div.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  const Tensor &self = args[0].tensor(), &t1 = args[1].tensor(), &t2 = args[2].tensor();
  const ScalarType dtype = result_type_of({&self, &t1, &t2});
  const ScalarType acc = accumulate_dtype(dtype);
  const Tensor value = ctx.scalar_tensor(args[3].scalar(), acc);
  const Tensor scaled = ctx.call1(kMul, {value, convert_to(ctx, t1, acc)});
  const Tensor term = ctx.call1(kDivide ? kDiv : kMul, {scaled, convert_to(ctx, t2, acc)});
  const Tensor sum = ctx.call1(kAdd, {convert_to(ctx, self, acc), term, Scalar(1)});
  return {convert_to(ctx, sum, dtype)};
}

// lerp.Scalar(Tensor self, Tensor end, Scalar weight): self and end of one floating dtype.
MetaResult lerp_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& end = tensor_arg(op, args, 1);
  check_floating(op, "input 'self'", self.dtype());
  BP_CHECK(end.dtype() == self.dtype(), ErrorCode::Type,
           "{}: argument 'end' has dtype {}, but 'self' has {}; they must match", op.name,
           dtype_name(end.dtype()), dtype_name(self.dtype()));
  Shape shape = broadcast_args(op, args, {0, 1});
  expand_args(args, {0, 1}, as_ref(shape));
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{std::move(shape), self.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> lerp_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  const ScalarType dtype = args[0].tensor().dtype();
  const ScalarType acc = accumulate_dtype(dtype);
  const Tensor self = convert_to(ctx, args[0].tensor(), acc);
  const Tensor end = convert_to(ctx, args[1].tensor(), acc);
  // The weight in the compute precision, as PyTorch's opmath weight; 1 - weight in it too.
  double weight = args[2].scalar().to_double();
  double complement = 1.0 - weight;
  if (acc == ScalarType::Float32) {
    weight = static_cast<float>(weight);
    complement = 1.0f - static_cast<float>(weight);
  }
  const Tensor diff = ctx.call1(kSub, {end, self, Scalar(1)});
  Tensor out;
  // PyTorch 1.13 switches on weight < 0.5 (negative weights too; later releases on |weight|).
  if (weight < 0.5) {
    out = ctx.call1(kAdd,
                    {self, ctx.call1(kMul, {scalar_operand(ctx, weight, acc), diff}), Scalar(1)});
  } else {
    out = ctx.call1(
        kSub, {end, ctx.call1(kMul, {diff, scalar_operand(ctx, complement, acc)}), Scalar(1)});
  }
  return {convert_to(ctx, out, dtype)};
}

// zero_(Tensor(a!) self): any dtype.
MetaResult zero_meta(const OpDef& op, std::span<IValue> args) {
  MetaResult r;
  r.compute_dtype = tensor_arg(op, args, 0).dtype();
  return r;
}

std::vector<Tensor> zero_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kFill = op_id("fill_.Scalar");
  ctx.call(kFill, {args[0], Scalar(int64_t{0})});
  return {args[0].tensor()};
}

}  // namespace

void register_pointwise_ops(Catalog& c) {
  using K = OpKind;
  c.add({"addcmul(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
         K::Composite, addc_meta<false>, addc_decompose<false>});
  c.add({"addcdiv(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor",
         K::Composite, addc_meta<true>, addc_decompose<true>});
  c.add({"lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", K::Composite, lerp_meta,
         lerp_decompose});
  c.add({"zero_(Tensor(a!) self) -> Tensor(a!)", K::Composite, zero_meta, zero_decompose});
}

}  // namespace bp::ops
