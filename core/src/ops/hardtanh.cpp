// hardtanh and hardtanh_backward (op set v2, issue 28: ReLU6 of mobilenet_v2 is
// hardtanh(0, 6)), composites:
//   hardtanh            clamp(self, min_val, max_val) in self's dtype (NaN stays NaN)
//   hardtanh_backward   where(self <= min_val or self >= max_val, 0, grad_output): the
//                       gradient passes strictly inside the range, and for a NaN self (as
//                       PyTorch 1.13's CPU kernel)
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1): any dtype but bool; an
// unsigned self needs limits >= 0 (PyTorch's checks).
MetaResult hardtanh_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_not_bool(op, "input 'self'", self.dtype());
  if (self.dtype() == ScalarType::UInt8)
    BP_CHECK(args[1].scalar().to_double() >= 0 && args[2].scalar().to_double() >= 0,
             ErrorCode::InvalidArgument,
             "{}: an unsigned 'self' (u8) needs limits >= 0, got min_val = {}, max_val = {}",
             op.name, args[1].scalar().str(), args[2].scalar().str());
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{self.sizes(), self.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> hardtanh_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kClamp = op_id("clamp");
  const Tensor& self = args[0].tensor();
  // clamp promotes an integer self with floating limits; hardtanh keeps self's dtype.
  return {convert_to(ctx, ctx.call1(kClamp, {self, args[1], args[2]}), self.dtype())};
}

// hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val):
// floating grad_output and self that broadcast together; the result has their promoted dtype.
MetaResult hardtanh_backward_meta(const OpDef& op, std::span<IValue> args) {
  const ScalarType dtype = result_type(op, args, {0, 1});
  check_floating(op, "the promoted dtype of 'grad_output' and 'self'", dtype);
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{broadcast_args(op, args, {0, 1}), dtype, std::nullopt});
  return r;
}

std::vector<Tensor> hardtanh_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kLe = op_id("le.Scalar");
  static const OpId kGe = op_id("ge.Scalar");
  static const OpId kOr = op_id("logical_or");
  static const OpId kWhere = op_id("where.self");
  const Tensor& grad = args[0].tensor();
  const Tensor& self = args[1].tensor();
  const ScalarType dtype = result_type_of({&grad, &self});
  const Tensor outside =
      ctx.call1(kOr, {ctx.call1(kLe, {self, args[2]}), ctx.call1(kGe, {self, args[3]})});
  const Tensor zero = ctx.scalar_tensor(Scalar(0.0), dtype);
  return {ctx.call1(kWhere, {outside, zero.view({}), convert_to(ctx, grad, dtype)})};
}

}  // namespace

void register_hardtanh_ops(Catalog& c) {
  c.add({"hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", OpKind::Composite,
         hardtanh_meta, hardtanh_decompose});
  c.add(
      {"hardtanh_backward(Tensor grad_output, Tensor self, Scalar min_val, Scalar max_val) -> "
       "Tensor",
       OpKind::Composite, hardtanh_backward_meta, hardtanh_backward_decompose});
}

}  // namespace bp::ops
