// Sorting of op set v2 (issue 28). sort.stable is the primitive: each line of self along
// dim sorted stably (equal elements keep their order, -0.0 equals 0.0) with NaN above every
// number, as PyTorch's CPU orders it (last ascending, first descending); the indices are
// i64 positions along dim. Composites over it:
//   sort                 sort.stable with stable=None: stable too (PyTorch leaves the order
//                        of equal elements unspecified there; docs/ops.md)
//   argsort, argsort.stable   the indices
//   topk                 the first k of sort.stable(descending=largest), so NaN is the
//                        largest and equal elements come in index order (sorted or not)
// A 0-d self is sorted as [1] (dim -1 or 0).
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False)
//   -> (Tensor values, Tensor indices)
MetaResult sort_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  wrap_dim_arg(op, args, 2, self.dim());
  const Shape sizes = self.sizes();  // before args[0] (which `self` refers to) is replaced
  const ScalarType dtype = self.dtype();
  std::optional<Shape> kernel_sizes;
  if (self.dim() == 0) {
    kernel_sizes = Shape{1};
    args[0] = IValue(self.view({1}));
  }
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{sizes, dtype, kernel_sizes});
  r.outputs.push_back(TensorMeta{sizes, ScalarType::Int64, kernel_sizes});
  return r;
}

std::vector<Tensor> sort_stable_call(OpContext& ctx, const IValue& self, const IValue& dim,
                                     bool descending) {
  static const OpId kSort = op_id("sort.stable");
  return ctx.call(kSort, {self, IValue(), dim, descending});
}

// sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)
MetaResult sort_default_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  wrap_dim_arg(op, args, 1, self.dim());
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{self.sizes(), self.dtype(), std::nullopt});
  r.outputs.push_back(TensorMeta{self.sizes(), ScalarType::Int64, std::nullopt});
  return r;
}

std::vector<Tensor> sort_default_decompose(OpContext& ctx, std::span<const IValue> args) {
  return sort_stable_call(ctx, args[0], args[1], args[2].to_bool());
}

// argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor, and
// argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor
// `DimArg` is the index of `dim` (argsort.stable has `stable` before it).
template <size_t DimArg>
MetaResult argsort_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  wrap_dim_arg(op, args, DimArg, self.dim());
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{self.sizes(), ScalarType::Int64, std::nullopt});
  return r;
}

template <size_t DimArg>
std::vector<Tensor> argsort_decompose(OpContext& ctx, std::span<const IValue> args) {
  return {sort_stable_call(ctx, args[0], args[DimArg], args[DimArg + 1].to_bool())[1]};
}

// topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True)
//   -> (Tensor values, Tensor indices): 0 <= k <= size(dim) (1 for a 0-d self).
MetaResult topk_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const int64_t dim = wrap_dim_arg(op, args, 2, self.dim());
  const int64_t k = args[1].to_int();
  const int64_t size = self.dim() == 0 ? 1 : self.size(dim);
  BP_CHECK(k >= 0 && k <= size, ErrorCode::InvalidArgument,
           "{}: argument 'k' = {} is out of range: dim {} of 'self' ({}) has {} elements", op.name,
           k, dim, self.meta_str(), size);
  Shape sizes = self.sizes();
  if (self.dim() > 0) sizes[static_cast<size_t>(dim)] = k;
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(TensorMeta{sizes, self.dtype(), std::nullopt});
  r.outputs.push_back(TensorMeta{sizes, ScalarType::Int64, std::nullopt});
  return r;
}

// The first k of the sorted line, copied out (the outputs own their memory).
std::vector<Tensor> topk_decompose(OpContext& ctx, std::span<const IValue> args) {
  const Tensor& self = args[0].tensor();
  const std::vector<Tensor> sorted = sort_stable_call(ctx, args[0], args[2], args[3].to_bool());
  if (self.dim() == 0) return sorted;  // PyTorch gives the element for k = 0 and 1 alike
  const int64_t dim = args[2].to_int(), k = args[1].to_int();
  std::vector<Tensor> out;
  for (const Tensor& full : sorted) {
    out.push_back(contiguous_copy(ctx, full.slice(dim, 0, k)));
  }
  return out;
}

}  // namespace

void register_sort_ops(Catalog& c) {
  c.add(
      {"sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
       "(Tensor values, Tensor indices)",
       OpKind::Primitive, sort_meta});
  c.add(
      {"sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor "
       "indices)",
       OpKind::Composite, sort_default_meta, sort_default_decompose});
  c.add({"argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor", OpKind::Composite,
         argsort_meta<1>, argsort_decompose<1>});
  c.add(
      {"argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> "
       "Tensor",
       OpKind::Composite, argsort_meta<2>, argsort_decompose<2>});
  c.add(
      {"topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor "
       "values, Tensor indices)",
       OpKind::Composite, topk_meta, topk_decompose});
}

}  // namespace bp::ops
