// Internal: small helpers shared by the decompositions of the op groups (dtype conversion
// through copy_, contiguous copies, reshaping and flattening, inverse permutations, the dtype
// half-precision composites compute in, scalar operands). Header-only; every helper calls operators
// through OpContext only.
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

// A contiguous copy of `t` (copy_).
inline Tensor contiguous_copy(OpContext& ctx, const Tensor& t) {
  static const OpId kCopy = op_id("copy_");
  Tensor out = ctx.empty(as_ref(t.sizes()), t.dtype());
  ctx.call(kCopy, {out, t, false});
  return out;
}

// `t` with `shape`: a view when its strides allow one, else a contiguous copy viewed so.
inline Tensor reshaped(OpContext& ctx, const Tensor& t, IntArrayRef shape) {
  if (std::optional<Tensor> v = t.try_view(shape)) return *v;
  return contiguous_copy(ctx, t).view(shape);
}

// `t` as a 1-D tensor (reshaped).
inline Tensor flattened(OpContext& ctx, const Tensor& t) {
  const int64_t n = t.numel();
  return reshaped(ctx, t, {&n, 1});
}

// The permutation that undoes `perm` (inverse[perm[i]] = i).
inline Shape inverse_permutation(IntArrayRef perm) {
  Shape inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
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
