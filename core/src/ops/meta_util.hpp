// Internal: the helpers every meta rule is written with (core/src/ops/*.cpp). They read the
// boxed arguments of one call, check them with errors that name the op, the argument and
// the value, and canonicalise them in place into the form kernels receive (docs/ops.md,
// "What a kernel receives"). Pure functions of their arguments; thread-safe.
#pragma once

#include "backplane/core/catalog.hpp"

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace bp::ops {

// ---- reading arguments ---------------------------------------------------------------

// Name of argument `i` in op's schema ("self").
std::string_view arg_name(const OpDef& op, size_t i);

// The defined tensor held by argument `i`. Throws bp::Error(InvalidArgument)
// "add.Tensor: argument 'other' is an undefined tensor" (or "... must be a Tensor, got int").
const Tensor& tensor_arg(const OpDef& op, std::span<const IValue> args, size_t i);
// The tensor of a `Tensor?` argument, or nullptr when it is None (or an undefined tensor).
const Tensor* optional_tensor_arg(const OpDef& op, std::span<const IValue> args, size_t i);

// ---- dtypes --------------------------------------------------------------------------

// Adds a tensor to a torch.result_type computation with its priority: dimensioned, 0-d, or
// wrapped number (a Scalar argument turned into a 0-d tensor by a .Scalar composite).
void add_to_result_type(ResultTypeState& state, const Tensor& t);

// torch.result_type of the tensors held by the arguments `indices` (each must be defined).
ScalarType result_type(const OpDef& op, std::span<const IValue> args,
                       std::initializer_list<size_t> indices);

// Sets bit i of r.convert_mask for each argument i (Tensor, Tensor? or Tensor[]) holding a
// defined tensor whose dtype differs from r.compute_dtype, which must be set first. Bits
// are set only where a conversion is needed, so a mask of 0 means "no copies".
void request_conversion(MetaResult& r, std::span<const IValue> args,
                        std::initializer_list<size_t> indices);

// A set of dtypes: bit (1 << code).
using DtypeMask = uint16_t;
constexpr DtypeMask dtype_bit(ScalarType t) {
  return DtypeMask(1u << static_cast<uint8_t>(t));
}
inline constexpr DtypeMask kFloatingDtypes =
    dtype_bit(ScalarType::Float16) | dtype_bit(ScalarType::BFloat16) |
    dtype_bit(ScalarType::Float32) | dtype_bit(ScalarType::Float64);
inline constexpr DtypeMask kIntegralDtypes =
    dtype_bit(ScalarType::Int8) | dtype_bit(ScalarType::UInt8) | dtype_bit(ScalarType::Int16) |
    dtype_bit(ScalarType::Int32) | dtype_bit(ScalarType::Int64);
inline constexpr DtypeMask kAllDtypes =
    kFloatingDtypes | kIntegralDtypes | dtype_bit(ScalarType::Bool);
// The dtypes of an index tensor (index_select, index_add, embedding's indices).
inline constexpr DtypeMask kIndexDtypes =
    dtype_bit(ScalarType::Int32) | dtype_bit(ScalarType::Int64);

// `subject` describes where the dtype comes from and is completed with " is <dtype>", e.g.
// "input 'self'" or "the promoted dtype of 'self' and 'other'"; `hint` (optional) is
// appended as advice. All throw bp::Error(Type).
//   "neg: bool tensors are not supported (input 'self' is bool)"
void check_not_bool(const OpDef& op, std::string_view subject, ScalarType dtype,
                    std::string_view hint = {});
//   "gelu: only floating-point tensors are supported (input 'self' is i64)"
void check_floating(const OpDef& op, std::string_view subject, ScalarType dtype);
//   "index_select: input 'index' has dtype f32; supported: i32, i64"
void check_dtype_in(const OpDef& op, std::string_view subject, ScalarType dtype, DtypeMask allowed);

// The largest finite value of a floating dtype; [lowest, max] of an integral one (i64's for
// any other dtype).
double max_finite(ScalarType t);
std::pair<int64_t, int64_t> integral_range(ScalarType t);

// Whether `value` converts to `dtype` without overflow, with PyTorch's rules
// (c10::checked_convert): integers must be in range (unsigned types also accept negatives
// down to -max, which wrap), floating values must be in the finite range of the target or
// be +-inf for a floating target; NaN converts only to floating types; any value converts
// to bool. Unlike PyTorch, a double >= 2^63 never converts to i64 (that cast is undefined
// behaviour in C++).
bool scalar_fits(const Scalar& value, ScalarType dtype);
// Throws bp::Error(InvalidArgument)
//   "fill_.Scalar: argument 'value' = 300 cannot be converted to i8 without overflow"
void check_scalar_fits(const OpDef& op, std::string_view arg, const Scalar& value,
                       ScalarType dtype);

// A coefficient (alpha, beta) as PyTorch reads it for a tensor of `dtype`: for integer
// tensors a floating one is truncated (addmm(..., alpha=2.9) multiplies by 2); a bool
// becomes 0 or 1. Range checks are the caller's (check_scalar_fits).
inline Scalar coefficient_for(const Scalar& s, ScalarType dtype) {
  if (s.is_bool() || (s.is_floating() && is_integral(dtype))) return Scalar(s.to_int());
  return s;
}

// Throws bp::Error(InvalidArgument) when `t` (argument i, which the op writes) has a dim of
// size > 1 with stride 0: several of its elements would be one memory location.
void check_no_internal_overlap(const OpDef& op, size_t i, const Tensor& t);

// The values of a loss's `int reduction` argument (PyTorch's at::Reduction).
inline constexpr int64_t kReductionNone = 0;
inline constexpr int64_t kReductionMean = 1;
inline constexpr int64_t kReductionSum = 2;
// Returns the `int reduction` argument `i`; throws bp::Error(InvalidArgument)
//   "mse_loss: argument 'reduction' is 5, but it must be 0 (none), 1 (mean) or 2 (sum)"
int64_t check_reduction_arg(const OpDef& op, std::span<const IValue> args, size_t i);

// ---- shapes --------------------------------------------------------------------------

// Broadcast shape of the tensors held by the arguments `indices` (numpy rules). Throws
// bp::Error(Shape) naming the argument that does not fit and the ones before it:
//   "add.Tensor: argument 'other' has shape [3, 4] which cannot broadcast with 'self' of
//    shape [2, 3]"
Shape broadcast_args(const OpDef& op, std::span<const IValue> args,
                     std::initializer_list<size_t> indices);

// Replaces each tensor argument in `indices` whose shape differs from `shape` by its
// expanded (stride 0) view, so kernels see equal shapes. `shape` must be a broadcast of it.
void expand_args(std::span<IValue> args, std::initializer_list<size_t> indices, IntArrayRef shape);

// Whether `from` broadcasts to exactly `to` (one-directional, as copy_'s src to self).
bool broadcasts_to(IntArrayRef from, IntArrayRef to);

// ---- normalisation ---------------------------------------------------------------------

// The checks every norm shares (layer_norm, rms_norm, native_layer_norm and its backward):
// `input` at argument `input_arg` and normalized_shape after it, non-empty and equal to
// input's trailing dims; a floating input; each tensor of `params` (Tensor? arguments:
// weight, bias) of exactly normalized_shape and input's dtype. Throws bp::Error naming them.
void check_norm_args(const OpDef& op, std::span<const IValue> args, size_t input_arg,
                     std::initializer_list<size_t> params);

// The metadata of a norm's three results, all of `dtype` and of compute dtype `dtype`: the
// output (or input gradient) of shape `first`, and two of shape `stats` (the saved mean and
// inverse deviation, or the weight and bias gradients).
MetaResult norm_results(IntArrayRef first, IntArrayRef stats, ScalarType dtype);

// ---- dims ----------------------------------------------------------------------------

// Wraps the `int` argument `i` into [0, ndim) in place and returns it. A 0-d tensor
// (ndim 0) accepts 0 and -1, both becoming 0. Throws bp::Error naming op, argument and range.
int64_t wrap_dim_arg(const OpDef& op, std::span<IValue> args, size_t i, int64_t ndim);

// Canonicalises the `int[]?` / `int[]` dim-list argument `i` in place and returns it:
// None and [] mean every dim; entries are wrapped, sorted and made unique (a dim given
// twice, e.g. [1, -1] for ndim 2, is an error). For ndim 0 the result is always [] after
// checking each entry is 0 or -1: a 0-d tensor has no dim to reduce, its one element is
// its own reduction.
Shape canonicalize_dims_arg(const OpDef& op, std::span<IValue> args, size_t i, int64_t ndim);

// Shape of a reduction of `sizes` over the sorted unique `dims`: size 1 in each reduced
// dim when keepdim, else those dims removed.
Shape reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim);
// The output of reducing `self` over the sorted `dims` in `dtype`: the user's shape (keepdim
// or not) and, when it differs, the keepdim shape a kernel sees.
TensorMeta reduction_output(const Tensor& self, IntArrayRef dims, bool keepdim, ScalarType dtype);
inline Shape keepdim_shape(IntArrayRef sizes, IntArrayRef dims) {
  return reduced_shape(sizes, dims, /*keepdim=*/true);
}

}  // namespace bp::ops
