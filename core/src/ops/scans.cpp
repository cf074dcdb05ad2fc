// Scans of op set v2 (issue 28): cumsum and cumprod (primitives). out[..., i, ...] is the sum
// (product) of self[..., 0..i, ...] along `dim`, accumulated in order and rounded at each
// output: floating inputs accumulate in f64 for f32 and f64 (PyTorch's CPU accumulate type)
// and in f32 for f16/bf16; integers in int64, wrapping. Every backend keeps that order, so
// the result does not depend on the device.
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// cumsum / cumprod(Tensor self, int dim, *, ScalarType? dtype=None): the result has `dtype`,
// or i64 for integral and bool inputs, or self's floating dtype; self is converted to it
// first. A bool result is refused (PyTorch has no bool kernel). Kernels see self and the
// output with at least one dim.
MetaResult scan_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  wrap_dim_arg(op, args, 1, self.dim());
  ScalarType out = args[2].is_none()
                       ? (is_floating(self.dtype()) ? self.dtype() : ScalarType::Int64)
                       : args[2].dtype();
  check_not_bool(op, "the result dtype", out, "pass dtype=i64, or leave dtype unset");
  MetaResult r;
  r.compute_dtype = out;
  request_conversion(r, args, {0});
  if (self.dim() == 0) {
    args[0] = IValue(self.view({1}));
    r.outputs.push_back(TensorMeta{Shape{}, out, Shape{1}});
    return r;
  }
  r.outputs.push_back(TensorMeta{self.sizes(), out, std::nullopt});
  return r;
}

}  // namespace

void register_scan_ops(Catalog& c) {
  c.add({"cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", OpKind::Primitive,
         scan_meta});
  c.add({"cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", OpKind::Primitive,
         scan_meta});
}

}  // namespace bp::ops
