// Reductions of op set v1: sum, mean (composite), prod, amax, amin, argmax, argmin, all and
// any; and prod, all and any over every element (composites over the .dim forms). Op set v2
// adds max.dim and min.dim (values and indices; composites over amax/argmax, amin/argmin). The meta
// rules canonicalise the reduced dims in place (wrapped, sorted, unique and explicit) and give each
// output its keepdim shape as kernel shape, so a kernel always reduces a tensor into an output of
// the same rank (docs/ops.md, "What a kernel receives").
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include "backplane/core/error.hpp"

#include <algorithm>
#include <string_view>

namespace bp::ops {
namespace {

// The single reduced dim of an `int dim` argument (wrapped in place); none for a 0-d self.
Shape single_dim(const OpDef& op, std::span<IValue> args, size_t i, const Tensor& self) {
  const int64_t dim = wrap_dim_arg(op, args, i, self.dim());
  return self.dim() == 0 ? Shape{} : Shape{dim};
}

// amax/amin/argmax/argmin have no value for an empty reduction (sum and prod do: 0 and 1).
void check_nonempty_dims(const OpDef& op, const Tensor& self, IntArrayRef dims) {
  for (int64_t d : dims) {
    BP_CHECK(self.size(d) != 0, ErrorCode::InvalidArgument,
             "{}: cannot reduce dim {} of 'self', which has size 0 (shape {}); the result of "
             "reducing no elements is undefined",
             op.name, d, shape_str(as_ref(self.sizes())));
  }
}

// The `dtype` argument `i` when given; Undefined for None.
ScalarType optional_dtype_arg(const OpDef& op, std::span<const IValue> args, size_t i) {
  if (args[i].is_none()) return ScalarType::Undefined;
  const ScalarType t = args[i].dtype();
  BP_CHECK(is_valid(t), ErrorCode::Type, "{}: argument '{}' is not a valid dtype", op.name,
           arg_name(op, i));
  return t;
}

// The result dtype of sum and prod without a `dtype` argument: integers and bool give int64
// (as PyTorch), floats keep their dtype (f16/bf16 kernels accumulate in f32).
ScalarType sum_like_dtype(const Tensor& self) {
  return is_integral(self.dtype(), /*include_bool=*/true) ? ScalarType::Int64 : self.dtype();
}

// The result dtype of all and any: bool, except that a uint8 input gives uint8 (PyTorch 1.13).
ScalarType all_any_dtype(const Tensor& self) {
  return self.dtype() == ScalarType::UInt8 ? ScalarType::UInt8 : ScalarType::Bool;
}

// sum and prod (`dtype` is argument 3). With a dtype, self is converted to it and the
// result has it; without, sum_like_dtype.
MetaResult sum_like_meta(const OpDef& op, std::span<IValue> args, const Tensor& self,
                         IntArrayRef dims) {
  MetaResult r;
  ScalarType out = optional_dtype_arg(op, args, 3);
  if (out == ScalarType::Undefined) {
    out = sum_like_dtype(self);
    r.compute_dtype = self.dtype();
  } else {
    r.compute_dtype = out;
    request_conversion(r, args, {0});
  }
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), out));
  return r;
}

// sum.dim_IntList(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None)
MetaResult sum_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape dims = canonicalize_dims_arg(op, args, 1, self.dim());
  return sum_like_meta(op, args, self, dims);
}

// prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None)
MetaResult prod_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape dims = single_dim(op, args, 1, self);
  return sum_like_meta(op, args, self, dims);
}

// mean.dim(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None): the
// result dtype must be floating (PyTorch: "mean(): could not infer output dtype").
MetaResult mean_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  MetaResult r;
  ScalarType out = optional_dtype_arg(op, args, 3);
  if (out != ScalarType::Undefined) {
    BP_CHECK(is_floating(out), ErrorCode::Type,
             "{}: argument 'dtype' is {}, but mean needs a floating result dtype", op.name,
             dtype_name(out));
  } else {
    out = self.dtype();
    BP_CHECK(is_floating(out), ErrorCode::Type,
             "{}: argument 'self' has dtype {}, but mean needs a floating dtype; pass "
             "dtype=f32 (or another floating dtype) to average an integer or bool tensor",
             op.name, dtype_name(out));
  }
  r.compute_dtype = out;
  request_conversion(r, args, {0});
  const Shape dims = canonicalize_dims_arg(op, args, 1, self.dim());
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), out));
  return r;
}

// sum (in f32 for f16/bf16 results), divided by the number of reduced elements, converted
// to the result dtype once. An empty reduction gives 0/0 = NaN, as PyTorch.
std::vector<Tensor> mean_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSum = op_id("sum.dim_IntList");
  static const OpId kDiv = op_id("div.Tensor");
  const Tensor& self = args[0].tensor();
  // The dims again (canonicalising is idempotent), so this works on arguments as given.
  std::vector<IValue> dim_arg(args.begin(), args.end());
  const Shape dims = canonicalize_dims_arg(Catalog::get().at(kMean), dim_arg, 1, self.dim());
  const ScalarType out = args[3].is_none() ? self.dtype() : args[3].dtype();
  const ScalarType acc = accumulate_dtype(out);
  int64_t count = 1;
  for (int64_t d : dims) count *= self.size(d);
  Tensor sum = ctx.call1(kSum, {self, IValue(dims), args[2], IValue(acc)});
  Tensor mean = ctx.call1(kDiv, {sum, scalar_operand(ctx, static_cast<double>(count), acc)});
  return {convert_to(ctx, mean, out)};
}

// amax / amin(Tensor self, int[] dim=[], bool keepdim=False): NaN propagates (kernels);
// bool is allowed; an empty reduced dim is an error.
MetaResult amax_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape dims = canonicalize_dims_arg(op, args, 1, self.dim());
  check_nonempty_dims(op, self, dims);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), self.dtype()));
  return r;
}

// argmax / argmin(Tensor self, int? dim=None, bool keepdim=False) -> int64. dim=None stays
// None: the kernel returns the flat index, its output seen as all-ones of self's rank.
MetaResult argmax_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_not_bool(op, "input 'self'", self.dtype(), "convert it to an integer dtype first");
  MetaResult r;
  r.compute_dtype = self.dtype();
  Shape dims;
  if (args[1].is_none()) {
    BP_CHECK(self.numel() > 0, ErrorCode::InvalidArgument,
             "{}: argument 'self' is empty (shape {}) and 'dim' is None; the index over no "
             "elements is undefined",
             op.name, shape_str(as_ref(self.sizes())));
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  } else {
    dims = single_dim(op, args, 1, self);
    check_nonempty_dims(op, self, dims);
  }
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), ScalarType::Int64));
  return r;
}

// all.dim / any.dim(Tensor self, int dim, bool keepdim=False): bool, except that a uint8
// input gives uint8 (as PyTorch 1.13).
MetaResult all_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape dims = single_dim(op, args, 1, self);
  const ScalarType out = all_any_dtype(self);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), out));
  return r;
}

// prod(Tensor self, *, ScalarType? dtype=None) / all(Tensor self) / any(Tensor self): the
// reduction of every element to a 0-d result, with the dtype rule of the .dim form.
MetaResult prod_all_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  MetaResult r;
  ScalarType out = optional_dtype_arg(op, args, 1);
  if (out == ScalarType::Undefined) out = sum_like_dtype(self);
  r.compute_dtype = out;
  r.outputs.push_back(TensorMeta{Shape{}, out, std::nullopt});
  return r;
}

MetaResult all_any_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{Shape{}, all_any_dtype(self), std::nullopt});
  return r;
}

// The .dim form over the flattened input, viewed as 0-d.
template <const char* DimForm>
std::vector<Tensor> reduce_all_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kDimForm = op_id(DimForm);
  std::vector<IValue> call{flattened(ctx, args[0].tensor()), int64_t{0}, false};
  if (args.size() > 1) call.push_back(args[1]);  // prod's dtype
  return {ctx.call1(kDimForm, std::move(call)).view({})};
}

// max.dim / min.dim(Tensor self, int dim, bool keepdim=False) -> (values, indices): the
// values of amax/amin and the indices of argmax/argmin over one dim (NaN is the extreme,
// at its first index; ties give the first index). An empty dim is an error, as PyTorch's.
MetaResult extreme_dim_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape dims = single_dim(op, args, 1, self);
  check_nonempty_dims(op, self, dims);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), self.dtype()));
  r.outputs.push_back(reduction_output(self, dims, args[2].to_bool(), ScalarType::Int64));
  return r;
}

template <bool kMax>
std::vector<Tensor> extreme_dim_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kValues = op_id(kMax ? "amax" : "amin");
  static const OpId kIndices = op_id(kMax ? "argmax" : "argmin");
  const Tensor& self = args[0].tensor();
  const IValue dims = self.dim() == 0 ? IValue(Shape{}) : IValue(Shape{args[1].to_int()});
  Tensor values = ctx.call1(kValues, {self, dims, args[2]});
  // argmax has no bool kernel (PyTorch's neither); u8 orders false < true the same way.
  const Tensor ordered =
      self.dtype() == ScalarType::Bool ? convert_to(ctx, self, ScalarType::UInt8) : self;
  return {std::move(values), ctx.call1(kIndices, {ordered, args[1], args[2]})};
}

constexpr char kProdDim[] = "prod.dim_int";
constexpr char kAllDim[] = "all.dim";
constexpr char kAnyDim[] = "any.dim";

}  // namespace

void register_reduction_ops(Catalog& c) {
  using K = OpKind;
  c.add(
      {"sum.dim_IntList(Tensor self, int[]? dim, bool keepdim=False, *, "
       "ScalarType? dtype=None) -> Tensor",
       K::Primitive, sum_meta});
  c.add(
      {"mean.dim(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
       "-> Tensor",
       K::Composite, mean_meta, mean_decompose});
  c.add(
      {"prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) "
       "-> Tensor",
       K::Primitive, prod_meta});
  c.add({"amax(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor", K::Primitive, amax_meta});
  c.add({"amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor", K::Primitive, amax_meta});
  c.add({"argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", K::Primitive,
         argmax_meta});
  c.add({"argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", K::Primitive,
         argmax_meta});
  c.add({"all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", K::Primitive, all_meta});
  c.add({"any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", K::Primitive, all_meta});
  c.add({"prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", K::Composite, prod_all_meta,
         reduce_all_decompose<kProdDim>});
  c.add({"all(Tensor self) -> Tensor", K::Composite, all_any_meta, reduce_all_decompose<kAllDim>});
  c.add({"any(Tensor self) -> Tensor", K::Composite, all_any_meta, reduce_all_decompose<kAnyDim>});
}

void register_extreme_dim_ops(Catalog& c) {
  c.add({"max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
         OpKind::Composite, extreme_dim_meta, extreme_dim_decompose<true>});
  c.add({"min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
         OpKind::Composite, extreme_dim_meta, extreme_dim_decompose<false>});
}

}  // namespace bp::ops
