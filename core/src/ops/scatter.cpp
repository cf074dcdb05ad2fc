// Scatter ops of op set v2 (issue 28). out starts as self; then for every position p of
// index, in row-major order, out[..., index[p], ...] (along dim, the other coordinates p's)
// takes src[p]. Duplicate indices follow PyTorch's CPU order: the last write wins
// (scatter.src, where PyTorch calls the result undefined), or the values reduce in index
// order, each step rounded once in the dtype (docs/ops.md). Primitives:
//   scatter.src, scatter_reduce.two (sum, prod, mean, amax, amin; include_self)
// Composites over them:
//   scatter.value            scatter.src of the value expanded to index's shape
//   scatter.reduce, scatter.value_reduce   scatter_reduce.two, "add" as sum and "multiply"
//                            as prod, self included
//   scatter_add              scatter_reduce.two(sum, include_self=True)
// index is i64 with self's number of dims, no larger than src anywhere and than self outside
// dim; its values must be in [0, self.size(dim)) (BP_ERR_INDEX from the kernel otherwise).
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <fmt/format.h>

#include <string>

namespace bp::ops {
namespace {

// The checks every scatter op shares; `src` is nullptr for the value forms.
void check_scatter_args(const OpDef& op, std::span<IValue> args, const Tensor* src) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& index = tensor_arg(op, args, 2);
  const int64_t dim = wrap_dim_arg(op, args, 1, self.dim());
  BP_CHECK(index.dtype() == ScalarType::Int64, ErrorCode::Type,
           "{}: argument 'index' must be i64, got {}", op.name, dtype_name(index.dtype()));
  BP_CHECK(index.dim() == self.dim() && (!src || src->dim() == self.dim()), ErrorCode::Shape,
           "{}: 'index' ({} dims){} must have the {} dims of 'self'", op.name, index.dim(),
           src ? fmt::format(" and 'src' ({} dims)", src->dim()) : std::string(), self.dim());
  for (int64_t d = 0; d < self.dim(); ++d) {
    BP_CHECK(!src || index.size(d) <= src->size(d), ErrorCode::Shape,
             "{}: 'index' of shape {} is larger than 'src' of shape {} in dim {}", op.name,
             shape_str(as_ref(index.sizes())), shape_str(as_ref(src->sizes())), d);
    BP_CHECK(d == dim || index.size(d) <= self.size(d), ErrorCode::Shape,
             "{}: 'index' of shape {} is larger than 'self' of shape {} in dim {} (only dim {} "
             "may be larger)",
             op.name, shape_str(as_ref(index.sizes())), shape_str(as_ref(self.sizes())), d, dim);
  }
  if (src)
    BP_CHECK(src->dtype() == self.dtype(), ErrorCode::Type,
             "{}: 'src' has dtype {} but 'self' has {}", op.name, dtype_name(src->dtype()),
             dtype_name(self.dtype()));
}

MetaResult scatter_result(const Shape& sizes, ScalarType dtype, bool zero_dim) {
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{sizes, dtype, zero_dim ? std::optional(Shape{1}) : std::nullopt});
  return r;
}

// The primitives: (self, dim, index, src, ...); 0-d tensors reach the kernel as [1].
MetaResult scatter_src_meta(const OpDef& op, std::span<IValue> args) {
  check_scatter_args(op, args, &tensor_arg(op, args, 3));
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape sizes = self.sizes();  // before args[0] (which `self` refers to) is replaced
  const ScalarType dtype = self.dtype();
  const bool zero_dim = self.dim() == 0;
  if (zero_dim)
    for (size_t i : {size_t{0}, size_t{2}, size_t{3}}) args[i] = IValue(args[i].tensor().view({1}));
  return scatter_result(sizes, dtype, zero_dim);
}

// scatter_reduce.two(..., str reduce, *, bool include_self): also the reduction's name.
MetaResult scatter_reduce_meta(const OpDef& op, std::span<IValue> args) {
  const std::string& reduce = args[4].string();
  BP_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" ||
               reduce == "amin",
           ErrorCode::InvalidArgument,
           "{}: argument 'reduce' must be sum, prod, mean, amax or amin, got '{}'", op.name,
           reduce);
  BP_CHECK(!(reduce == "mean" && tensor_arg(op, args, 0).dtype() == ScalarType::Bool),
           ErrorCode::Type,
           "{}: reduce='mean' does not support bool (PyTorch has no kernel for it)", op.name);
  return scatter_src_meta(op, args);
}

// scatter.value(self, dim, index, Scalar value) and scatter.value_reduce: the value fits
// self's dtype.
MetaResult scatter_value_meta(const OpDef& op, std::span<IValue> args) {
  check_scatter_args(op, args, nullptr);
  const Tensor& self = tensor_arg(op, args, 0);
  check_scalar_fits(op, "value", args[3].scalar(), self.dtype());
  return scatter_result(self.sizes(), self.dtype(), false);
}

// scatter.reduce / scatter.value_reduce take "add" or "multiply".
std::string reduce_of(const OpDef& op, const IValue& reduce) {
  const std::string& r = reduce.string();
  BP_CHECK(r == "add" || r == "multiply", ErrorCode::InvalidArgument,
           "{}: argument 'reduce' must be add or multiply, got '{}'", op.name, r);
  return r == "add" ? "sum" : "prod";
}

MetaResult scatter_tensor_meta(const OpDef& op, std::span<IValue> args) {
  check_scatter_args(op, args, &tensor_arg(op, args, 3));
  if (args.size() == 5) reduce_of(op, args[4]);
  const Tensor& self = tensor_arg(op, args, 0);
  return scatter_result(self.sizes(), self.dtype(), false);
}

MetaResult scatter_value_reduce_meta(const OpDef& op, std::span<IValue> args) {
  reduce_of(op, args[4]);
  return scatter_value_meta(op, args);
}

// The value as a tensor of index's shape (a 0-d tensor expanded: stride 0).
Tensor value_as_src(OpContext& ctx, const IValue& value, const Tensor& self, const Tensor& index) {
  const Tensor scalar = ctx.scalar_tensor(value.scalar(), self.dtype());
  return scalar.view({}).expand(as_ref(index.sizes()));
}

std::vector<Tensor> scatter_value_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kScatter = op_id("scatter.src");
  const Tensor src = value_as_src(ctx, args[3], args[0].tensor(), args[2].tensor());
  return {ctx.call1(kScatter, {args[0], args[1], args[2], src})};
}

std::vector<Tensor> reduce_call(OpContext& ctx, std::span<const IValue> args, const Tensor& src,
                                const char* reduce) {
  static const OpId kReduce = op_id("scatter_reduce.two");
  return {ctx.call1(kReduce, {args[0], args[1], args[2], src, std::string(reduce), true})};
}

std::vector<Tensor> scatter_reduce_decompose(OpContext& ctx, std::span<const IValue> args) {
  return reduce_call(ctx, args, args[3].tensor(), args[4].string() == "add" ? "sum" : "prod");
}

std::vector<Tensor> scatter_value_reduce_decompose(OpContext& ctx, std::span<const IValue> args) {
  const Tensor src = value_as_src(ctx, args[3], args[0].tensor(), args[2].tensor());
  return reduce_call(ctx, args, src, args[4].string() == "add" ? "sum" : "prod");
}

std::vector<Tensor> scatter_add_decompose(OpContext& ctx, std::span<const IValue> args) {
  return reduce_call(ctx, args, args[3].tensor(), "sum");
}

}  // namespace

void register_scatter_ops(Catalog& c) {
  using K = OpKind;
  c.add({"scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", K::Primitive,
         scatter_src_meta});
  c.add(
      {"scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool "
       "include_self=True) -> Tensor",
       K::Primitive, scatter_reduce_meta});
  c.add({"scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor", K::Composite,
         scatter_value_meta, scatter_value_decompose});
  c.add({"scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
         K::Composite, scatter_tensor_meta, scatter_reduce_decompose});
  c.add(
      {"scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) "
       "-> Tensor",
       K::Composite, scatter_value_reduce_meta, scatter_value_reduce_decompose});
  c.add({"scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor", K::Composite,
         scatter_tensor_meta, scatter_add_decompose});
}

}  // namespace bp::ops
