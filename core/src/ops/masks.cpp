// Masking ops of op set v2 (issue 28), composites over where.self:
//   masked_fill.Scalar / masked_fill.Tensor  where(mask, value, self), value in self's dtype
//   tril / triu                              where(col - row <= diagonal (tril) or
//                                            >= diagonal (triu), self, 0)
// The result keeps self's dtype (no promotion, as PyTorch: masked_fill of an i32 tensor with
// 2.5 writes 2) and masked_fill broadcasts self and mask (PyTorch 1.13's functional form
// expands both).
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) and
// masked_fill.Tensor(Tensor self, Tensor mask, Tensor value): mask is bool (PyTorch 1.13
// still takes u8 with a deprecation warning, and reads a floating mask as all false; both are
// refused here, docs/ops.md); a Tensor value is 0-d. A Scalar value must fit self's dtype.
MetaResult masked_fill_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& mask = tensor_arg(op, args, 1);
  BP_CHECK(mask.dtype() == ScalarType::Bool, ErrorCode::Type,
           "{}: argument 'mask' must be a bool tensor, got {}", op.name, dtype_name(mask.dtype()));
  if (args[2].is_tensor()) {
    const Tensor& value = tensor_arg(op, args, 2);
    BP_CHECK(value.dim() == 0, ErrorCode::Shape,
             "{}: argument 'value' must be a 0-d tensor, got shape {}", op.name,
             shape_str(as_ref(value.sizes())));
  } else if (self.dtype() != ScalarType::Bool) {
    check_scalar_fits(op, "value", args[2].scalar(), self.dtype());
  }
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{broadcast_args(op, args, {0, 1}), self.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> masked_fill_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kWhere = op_id("where.self");
  const Tensor& self = args[0].tensor();
  // The value as a 0-d tensor of self's dtype: where.self then keeps that dtype.
  const Tensor value = args[2].is_tensor() ? convert_to(ctx, args[2].tensor(), self.dtype())
                                           : ctx.scalar_tensor(args[2].scalar(), self.dtype());
  return {ctx.call1(kWhere, {args[1].tensor(), value.view({}), self})};
}

// tril / triu(Tensor self, int diagonal=0): self has at least 2 dims; the last two are the
// matrix.
MetaResult triangle_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  BP_CHECK(self.dim() >= 2, ErrorCode::Shape,
           "{}: argument 'self' must have at least 2 dims (a matrix or a batch of them), got "
           "shape {}",
           op.name, shape_str(as_ref(self.sizes())));
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{self.sizes(), self.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> triangle_impl(OpContext& ctx, std::span<const IValue> args, bool lower) {
  static const OpId kArange = op_id("arange.start_step");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kCompare[2] = {op_id("ge.Scalar"), op_id("le.Scalar")};
  static const OpId kWhere = op_id("where.self");
  const Tensor& self = args[0].tensor();
  const int64_t rows = self.size(-2), cols = self.size(-1);
  auto range = [&](int64_t n) {
    return ctx.call1(kArange,
                     {Scalar(0), Scalar(n), Scalar(1), ScalarType::Int64, IValue(self.device())});
  };
  // col - row for every position of the matrix, [rows, cols].
  const Tensor offset =
      ctx.call1(kSub, {range(cols).view({1, cols}), range(rows).view({rows, 1}), Scalar(1)});
  const Tensor keep = ctx.call1(kCompare[lower], {offset, Scalar(args[1].to_int())});
  const Tensor zero = ctx.scalar_tensor(Scalar(false), self.dtype());
  return {ctx.call1(kWhere, {keep, self, zero.view({})})};
}

std::vector<Tensor> tril_decompose(OpContext& ctx, std::span<const IValue> args) {
  return triangle_impl(ctx, args, /*lower=*/true);
}
std::vector<Tensor> triu_decompose(OpContext& ctx, std::span<const IValue> args) {
  return triangle_impl(ctx, args, /*lower=*/false);
}

}  // namespace

void register_mask_ops(Catalog& c) {
  c.add({"masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", OpKind::Composite,
         masked_fill_meta, masked_fill_decompose});
  c.add({"masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", OpKind::Composite,
         masked_fill_meta, masked_fill_decompose});
  c.add({"tril(Tensor self, int diagonal=0) -> Tensor", OpKind::Composite, triangle_meta,
         tril_decompose});
  c.add({"triu(Tensor self, int diagonal=0) -> Tensor", OpKind::Composite, triangle_meta,
         triu_decompose});
}

}  // namespace bp::ops
