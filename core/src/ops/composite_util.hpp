// Internal: small helpers shared by the decompositions of reductions.cpp, nn.cpp and
// linalg.cpp (dtype conversion through copy_, the dtype half-precision composites compute
// in, scalar operands). Header-only; every helper calls operators through OpContext only.
#pragma once

#include "backplane/core/catalog.hpp"

namespace bp::ops {

// The dtype a composite computes in for inputs of dtype `t`: f16 and bf16 go through f32
// (one conversion in, one out), as PyTorch's own kernels accumulate them.
constexpr ScalarType accumulate_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}

// `t` converted to `dtype` (a new tensor written by copy_), or `t` itself when it already
// has that dtype.
inline Tensor convert_to(OpContext& ctx, const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  static const OpId kCopy = op_id("copy_");
  Tensor out = ctx.empty(as_ref(t.sizes()), dtype);
  ctx.call(kCopy, {out, t, false});
  return out;
}

// The tensor of a `Tensor?` argument, or nullptr for None or an undefined tensor (the meta
// rule has already checked the argument's kind).
inline const Tensor* optional_tensor(const IValue& v) {
  return v.is_tensor() && v.tensor().defined() ? &v.tensor() : nullptr;
}

// A 0-d wrapped-number operand holding `value` in `dtype`: combined with a tensor of that
// dtype it never changes the result's dtype.
inline IValue scalar_operand(OpContext& ctx, double value, ScalarType dtype) {
  return ctx.scalar_tensor(Scalar(value), dtype);
}

}  // namespace bp::ops
