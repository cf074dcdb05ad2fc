// Ops whose result shape depends on the values of their inputs (op set v2, issue 28). One
// primitive has a shape its arguments fix:
//   nonzero_static   the coordinates of the first `size` nonzeros in row-major order, padded
//                    with fill_value (PyTorch 2.1's op; sdk/nonzero_kernels.hpp)
// and the composites read a count to the host first (OpContext::item, a synchronisation, as
// PyTorch's CUDA kernels synchronise), so their meta rules report that size as
// kDataDependentSize:
//   nonzero          count = sum(self != 0), then nonzero_static(self, size=count)
//   masked_select    self and mask broadcast, then index_select of the flattened self at
//                    nonzero of the flattened mask
//   masked_scatter   self and mask broadcast, then scatter.src of source's first elements
//                    into the flattened self at those positions (masked_select's gradient)
//   one_hot          zeros [*self.shape, num_classes] with scatter of 1 at each class
//                    (num_classes=-1: max(self) + 1, read to the host)
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

MetaResult single_output(Shape sizes, ScalarType dtype) {
  MetaResult r;
  r.outputs.push_back(TensorMeta{std::move(sizes), dtype, std::nullopt});
  return r;
}

// nonzero_static(Tensor self, *, int size, int fill_value=-1) -> Tensor [size, self.dim()]
MetaResult nonzero_static_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const int64_t size = args[1].to_int();
  BP_CHECK(size >= 0, ErrorCode::InvalidArgument,
           "{}: argument 'size' must not be negative, got {}", op.name, size);
  return single_output(Shape{size, self.dim()}, ScalarType::Int64);
}

// nonzero(Tensor self) -> Tensor [count, self.dim()]
MetaResult nonzero_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  return single_output(Shape{kDataDependentSize, self.dim()}, ScalarType::Int64);
}

// The number of nonzero elements of `t` (NaN counts, -0.0 does not), read to the host.
int64_t count_nonzero(OpContext& ctx, const Tensor& t) {
  static const OpId kNe = op_id("ne.Scalar");
  static const OpId kSum = op_id("sum.dim_IntList");
  const Tensor flags = ctx.call1(kNe, {t, Scalar(int64_t{0})});
  const Tensor count = ctx.call1(kSum, {flags, IValue(), false, ScalarType::Int64});
  return ctx.item(count).to_int();
}

Tensor nonzero_of(OpContext& ctx, const Tensor& t) {
  static const OpId kNonzeroStatic = op_id("nonzero_static");
  return ctx.call1(kNonzeroStatic, {t, count_nonzero(ctx, t), int64_t{-1}});
}

std::vector<Tensor> nonzero_decompose(OpContext& ctx, std::span<const IValue> args) {
  return {nonzero_of(ctx, args[0].tensor())};
}

// masked_select(Tensor self, Tensor mask) -> Tensor [count]: mask is bool (docs/ops.md) and
// broadcasts with self.
MetaResult masked_select_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& mask = tensor_arg(op, args, 1);
  BP_CHECK(mask.dtype() == ScalarType::Bool, ErrorCode::Type,
           "{}: argument 'mask' must be bool, got {}", op.name, dtype_name(mask.dtype()));
  broadcast_args(op, args, {0, 1});
  return single_output(Shape{kDataDependentSize}, tensor_arg(op, args, 0).dtype());
}

std::vector<Tensor> masked_select_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kIndexSelect = op_id("index_select");
  const Tensor& self = args[0].tensor();
  const Tensor& mask = args[1].tensor();
  const Shape shape = broadcast_shapes(as_ref(self.sizes()), as_ref(mask.sizes()));
  const Tensor flat_mask = flattened(ctx, mask.expand(as_ref(shape)));
  const Tensor rows = nonzero_of(ctx, flat_mask);  // [count, 1]
  const int64_t count = rows.size(0);
  return {ctx.call1(kIndexSelect,
                    {flattened(ctx, self.expand(as_ref(shape))), int64_t{0}, rows.view({count})})};
}

// masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor: source has self's dtype.
MetaResult masked_scatter_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& mask = tensor_arg(op, args, 1);
  const Tensor& source = tensor_arg(op, args, 2);
  BP_CHECK(mask.dtype() == ScalarType::Bool, ErrorCode::Type,
           "{}: argument 'mask' must be bool, got {}", op.name, dtype_name(mask.dtype()));
  BP_CHECK(source.dtype() == self.dtype(), ErrorCode::Type,
           "{}: argument 'source' has dtype {}, but 'self' has {}; they must match", op.name,
           dtype_name(source.dtype()), dtype_name(self.dtype()));
  return single_output(broadcast_args(op, args, {0, 1}), self.dtype());
}

std::vector<Tensor> masked_scatter_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kScatter = op_id("scatter.src");
  const Tensor& self = args[0].tensor();
  const Tensor& mask = args[1].tensor();
  const Shape shape = broadcast_shapes(as_ref(self.sizes()), as_ref(mask.sizes()));
  const Tensor rows = nonzero_of(ctx, flattened(ctx, mask.expand(as_ref(shape))));
  const int64_t count = rows.size(0);
  const Tensor source = flattened(ctx, args[2].tensor());
  BP_CHECK(source.numel() >= count, ErrorCode::Shape,
           "masked_scatter: 'source' has {} elements, but 'mask' selects {}", source.numel(),
           count);
  const Tensor flat_self = flattened(ctx, self.expand(as_ref(shape)));
  const Tensor written =
      ctx.call1(kScatter, {flat_self, int64_t{0}, rows.view({count}), source.narrow(0, 0, count)});
  return {written.view(as_ref(shape))};
}

// one_hot(Tensor self, int num_classes=-1) -> Tensor [*self.shape, num_classes], i64
MetaResult one_hot_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const int64_t num_classes = args[1].to_int();
  BP_CHECK(self.dtype() == ScalarType::Int64, ErrorCode::Type,
           "{}: argument 'self' must be i64 (class indices), got {}", op.name,
           dtype_name(self.dtype()));
  BP_CHECK(num_classes >= -1, ErrorCode::InvalidArgument,
           "{}: argument 'num_classes' must be -1 (one more than the largest class) or at least "
           "0, got {}",
           op.name, num_classes);
  BP_CHECK(self.numel() > 0 || num_classes > 0, ErrorCode::InvalidArgument,
           "{}: cannot infer the number of classes from an empty 'self'; pass num_classes",
           op.name);
  Shape sizes = self.sizes();
  sizes.push_back(num_classes == -1 ? kDataDependentSize : num_classes);
  return single_output(std::move(sizes), ScalarType::Int64);
}

std::vector<Tensor> one_hot_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kAmin = op_id("amin");
  static const OpId kAmax = op_id("amax");
  static const OpId kFill = op_id("fill_.Scalar");
  static const OpId kScatter = op_id("scatter.value");
  const Tensor& self = args[0].tensor();
  int64_t num_classes = args[1].to_int();
  if (self.numel() > 0) {
    const IValue all_dims = dim_range(0, self.dim());
    const int64_t lowest = ctx.item(ctx.call1(kAmin, {self, all_dims, false})).to_int();
    const int64_t highest = ctx.item(ctx.call1(kAmax, {self, all_dims, false})).to_int();
    BP_CHECK(lowest >= 0, ErrorCode::Index, "one_hot: class values must not be negative, got {}",
             lowest);
    if (num_classes == -1) num_classes = highest + 1;
    BP_CHECK(highest < num_classes, ErrorCode::Index,
             "one_hot: class values must be smaller than num_classes ({}), got {}", num_classes,
             highest);
  }
  Shape sizes = self.sizes();
  sizes.push_back(num_classes);
  Tensor zeros = ctx.empty(as_ref(sizes), ScalarType::Int64);
  ctx.call(kFill, {zeros, Scalar(int64_t{0})});
  if (self.numel() == 0) return {zeros};
  return {
      ctx.call1(kScatter, {zeros, int64_t{-1}, self.unsqueeze(self.dim()), Scalar(int64_t{1})})};
}

}  // namespace

void register_nonzero_ops(Catalog& c) {
  using K = OpKind;
  c.add({"nonzero_static(Tensor self, *, int size, int fill_value=-1) -> Tensor", K::Primitive,
         nonzero_static_meta});
  c.add({"nonzero(Tensor self) -> Tensor", K::Composite, nonzero_meta, nonzero_decompose});
  c.add({"masked_select(Tensor self, Tensor mask) -> Tensor", K::Composite, masked_select_meta,
         masked_select_decompose});
  c.add({"masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor", K::Composite,
         masked_scatter_meta, masked_scatter_decompose});
  c.add({"one_hot(Tensor self, int num_classes=-1) -> Tensor", K::Composite, one_hot_meta,
         one_hot_decompose});
}

}  // namespace bp::ops
