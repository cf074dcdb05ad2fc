// Writes through indices: index_add (a primitive). The gradient of every gather-like op is
// one of these (embedding's is index_add, nn_backward.cpp). Repeated indices accumulate in
// the order of the index, as PyTorch's CPU kernel does, so every backend's result is one
// defined sum (docs/ops.md, "index_add").
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// `t`'s sizes as a kernel sees them: a 0-d tensor as [1].
Shape kernel_sizes(const Tensor& t) {
  return t.dim() == 0 ? Shape{1} : t.sizes();
}

// source must have self's rank and sizes outside `dim` (or 1 there, broadcast as PyTorch
// 1.13's iterator does), and index.numel() along `dim`. Returns source as the kernel sees it.
Tensor index_add_source(const OpDef& op, const Tensor& self, int64_t dim, int64_t n,
                        const Tensor& source) {
  const Shape self_k = kernel_sizes(self);
  Shape source_k = kernel_sizes(source);
  BP_CHECK(source_k.size() == self_k.size(), ErrorCode::Shape,
           "{}: argument 'source' of shape {} must have as many dims as 'self' of shape {}",
           op.name, shape_str(as_ref(source.sizes())), shape_str(as_ref(self.sizes())));
  BP_CHECK(source_k[dim] == n, ErrorCode::Shape,
           "{}: argument 'index' has {} elements, but 'source' of shape {} has {} along dim {}; "
           "they must be equal",
           op.name, n, shape_str(as_ref(source.sizes())), source_k[dim], dim);
  Shape target = self_k;
  target[dim] = n;
  for (size_t d = 0; d < target.size(); ++d) {
    BP_CHECK(source_k[d] == target[d] || source_k[d] == 1, ErrorCode::Shape,
             "{}: argument 'source' of shape {} does not match 'self' of shape {} in dim {} "
             "(only dim {} may differ)",
             op.name, shape_str(as_ref(source.sizes())), shape_str(as_ref(self.sizes())), d, dim);
  }
  const Tensor viewed = source.dim() == 0 ? source.view({1}) : source;
  return source_k == target ? viewed : viewed.expand(as_ref(target));
}

// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1)
// Kernels see self, source and the output with at least one dim, a 1-D index, and alpha as
// PyTorch reads it for self's dtype (coefficient_for; bool self: any nonzero alpha is true).
MetaResult index_add_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor self = tensor_arg(op, args, 0);
  const Tensor index = tensor_arg(op, args, 2);
  const Tensor& source = tensor_arg(op, args, 3);
  check_dtype_in(op, "input 'index'", index.dtype(), kIndexDtypes);
  BP_CHECK(index.dim() <= 1, ErrorCode::Shape,
           "{}: argument 'index' must be 0-d or 1-D, got shape {}", op.name,
           shape_str(as_ref(index.sizes())));
  BP_CHECK(source.dtype() == self.dtype(), ErrorCode::Type,
           "{}: argument 'source' has dtype {}, but 'self' has {}; they must match", op.name,
           dtype_name(source.dtype()), dtype_name(self.dtype()));
  const int64_t dim = wrap_dim_arg(op, args, 1, self.dim());
  const Tensor kernel_source = index_add_source(op, self, dim, index.numel(), source);
  const ScalarType dtype = self.dtype();
  if (dtype != ScalarType::Bool) check_scalar_fits(op, "alpha", args[4].scalar(), dtype);
  args[4] = IValue(coefficient_for(args[4].scalar(), dtype));
  args[3] = IValue(kernel_source);
  if (index.dim() == 0) args[2] = IValue(index.view({1}));
  MetaResult r;
  r.compute_dtype = dtype;
  if (self.dim() == 0) {
    args[0] = IValue(self.view({1}));
    r.outputs.push_back(TensorMeta{Shape{}, dtype, Shape{1}});
    return r;
  }
  r.outputs.push_back(TensorMeta{self.sizes(), dtype, std::nullopt});
  return r;
}

}  // namespace

void register_indexed_write_ops(Catalog& c) {
  c.add(
      {"index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> "
       "Tensor",
       OpKind::Primitive, index_add_meta});
}

}  // namespace bp::ops
