// Internal: small helpers shared by the decompositions of the op groups (dtype conversion
// through copy_, flattening to 1-D, the dtype half-precision composites compute in, scalar
// operands). Header-only; every helper calls operators through OpContext only.
#pragma once

#include "backplane/core/catalog.hpp"
#include "meta_util.hpp"

#include <optional>

namespace bp::ops {

// The dtype a composite computes in for inputs of dtype `t`: f16 and bf16 go through f32
// (one conversion in, one out), as PyTorch's own kernels accumulate them.
constexpr ScalarType accumulate_dtype(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32 : t;
}

// torch.result_type of `tensors`, as a meta rule computes it with result_type(): the
// dispatcher converts inputs for kernels only, so a decomposition converts its own.
inline ScalarType result_type_of(std::initializer_list<const Tensor*> tensors) {
  ResultTypeState state;
  for (const Tensor* t : tensors) add_to_result_type(state, *t);
  return state.result();
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

// `t` as a 1-D tensor: a view when its strides allow one, else a contiguous copy (copy_).
inline Tensor flattened(OpContext& ctx, const Tensor& t) {
  static const OpId kCopy = op_id("copy_");
  const int64_t n = t.numel();
  if (std::optional<Tensor> flat = t.try_view({&n, 1})) return *flat;
  Tensor tmp = ctx.empty(as_ref(t.sizes()), t.dtype());
  ctx.call(kCopy, {tmp, t, false});
  return tmp.view({&n, 1});
}

// The dims [first, end) as an int[] argument (the normalized dims of a norm, the batch dims).
inline IValue dim_range(int64_t first, int64_t end) {
  Shape dims;
  for (int64_t d = first; d < end; ++d) dims.push_back(d);
  return IValue(std::move(dims));
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
