// Data movement and factory ops: copy_, fill_.Scalar, arange.start_step, cat, index_select,
// gather, where.self (primitives); embedding (composite over index_select), fill_.Tensor
// (over copy_) and where.Scalar / where.ScalarSelf / where.ScalarOther (over where.self).
// Each meta rule establishes the contract of docs/ops.md, "What a kernel receives".
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <cmath>
#include <limits>

namespace bp::ops {
namespace {

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False)
MetaResult copy_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& src = tensor_arg(op, args, 1);
  BP_CHECK(broadcasts_to(as_ref(src.sizes()), as_ref(self.sizes())), ErrorCode::Shape,
           "{}: argument 'src' of shape {} cannot be broadcast to the shape {} of 'self'", op.name,
           shape_str(as_ref(src.sizes())), shape_str(as_ref(self.sizes())));
  check_no_internal_overlap(op, 0, self);
  MetaResult r;
  r.compute_dtype = self.dtype();  // the kernel converts src to self's dtype itself
  const Shape shape = self.sizes();
  expand_args(args, {1}, as_ref(shape));
  return r;
}

// fill_.Scalar(Tensor(a!) self, Scalar value)
MetaResult fill_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_scalar_fits(op, "value", args[1].scalar(), self.dtype());
  MetaResult r;
  r.compute_dtype = self.dtype();
  return r;
}

// fill_.Tensor(Tensor(a!) self, Tensor value): `value` must be 0-d. As PyTorch does for a
// value on self's device, the value is copied (copy_'s conversion, with no range check:
// the value stays on the device, and no meta rule reads device memory).
MetaResult fill_tensor_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& value = tensor_arg(op, args, 1);
  BP_CHECK(value.dim() == 0, ErrorCode::Shape,
           "{}: argument 'value' must be a 0-d tensor, got shape {} (use copy_ to copy a "
           "tensor into self)",
           op.name, shape_str(as_ref(value.sizes())));
  MetaResult r;
  r.compute_dtype = self.dtype();
  return r;
}

// fill_ may write a view whose stride-0 dims make several elements one memory location
// (as fill_.Scalar); copy_ refuses such a target, so it writes each location once through
// the view with those dims at size 1.
Tensor distinct_locations(const Tensor& t) {
  Shape sizes = t.sizes();
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0) sizes[static_cast<size_t>(d)] = std::min<int64_t>(t.size(d), 1);
  }
  return sizes == t.sizes() ? t : t.as_strided(as_ref(sizes), as_ref(t.strides()));
}

std::vector<Tensor> fill_tensor_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kCopy = op_id("copy_");
  const Tensor& self = args[0].tensor();
  Tensor value = args[1].tensor();
  if (value.storage() == self.storage()) {
    // A value that is an element of self: read it before self is overwritten (PyTorch
    // clones it too).
    Tensor copy = ctx.empty({}, value.dtype());
    ctx.call(kCopy, {copy, value, false});
    value = copy;
  }
  ctx.call(kCopy, {distinct_locations(self), value, false});
  return {self};
}

// Number of elements of arange for an i64 result: exact integer arithmetic (PyTorch
// computes end - start + step in int64, which overflows for ranges wider than 2^63).
uint64_t arange_count_i64(int64_t start, int64_t end, int64_t step) {
  const bool up = step > 0;
  const uint64_t span = up ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start)
                           : static_cast<uint64_t>(start) - static_cast<uint64_t>(end);
  const uint64_t mag = up ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
  return span / mag + (span % mag != 0 ? 1 : 0);
}

// The element count of a floating arange, computed in double; the range must be finite and
// the step finite, nonzero and pointing from start to end.
double arange_count_floating(const OpDef& op, const Scalar& start, const Scalar& end,
                             const Scalar& step) {
  const double xstart = start.to_double(), xend = end.to_double(), xstep = step.to_double();
  BP_CHECK(std::isfinite(xstart) && std::isfinite(xend), ErrorCode::InvalidArgument,
           "{}: unsupported range {} -> {}: 'start' and 'end' must be finite", op.name, start.str(),
           end.str());
  BP_CHECK(std::isfinite(xstep) && xstep != 0, ErrorCode::InvalidArgument,
           "{}: argument 'step' = {} must be finite and nonzero", op.name, step.str());
  BP_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
           ErrorCode::InvalidArgument,
           "{}: argument 'step' = {} has the wrong sign for the range {} -> {}", op.name,
           step.str(), start.str(), end.str());
  return std::ceil((xend - xstart) / xstep);
}

MetaResult arange_result(ScalarType dtype, int64_t count) {
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{Shape{count}, dtype, std::nullopt});
  return r;
}

// arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None,
//                   Device? device=None)
// Sizes follow PyTorch: an i64 result counts in integers; other integral results take
// start/end/step truncated to integers for the checks and count with doubles; floating
// results compute in double.
MetaResult arange_meta(const OpDef& op, std::span<IValue> args) {
  const Scalar start = args[0].scalar();
  const Scalar end = args[1].scalar();
  const Scalar step = args[2].scalar();
  ScalarType dtype;
  if (!args[3].is_none()) {
    dtype = args[3].dtype();
  } else {
    const auto integral = [](const Scalar& s) { return !s.is_floating(); };
    dtype = integral(start) && integral(end) && integral(step) ? ScalarType::Int64 : kDefaultFloat;
  }
  BP_CHECK(dtype != ScalarType::Bool, ErrorCode::Type, "{}: dtype bool is not supported", op.name);

  double count = 0;
  if (is_integral(dtype)) {
    // Values are computed in int64 (PyTorch's accumulate type), so the bounds must fit it.
    check_scalar_fits(op, "start", start, ScalarType::Int64);
    check_scalar_fits(op, "end", end, ScalarType::Int64);
    check_scalar_fits(op, "step", step, ScalarType::Int64);
    const int64_t xstart = start.to_int(), xend = end.to_int(), xstep = step.to_int();
    BP_CHECK(xstep != 0, ErrorCode::InvalidArgument,
             "{}: argument 'step' = {} must be nonzero (as an integer for dtype {})", op.name,
             step.str(), dtype_name(dtype));
    BP_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
             ErrorCode::InvalidArgument,
             "{}: argument 'step' = {} has the wrong sign for the range {} -> {}", op.name,
             step.str(), start.str(), end.str());
    if (dtype == ScalarType::Int64) {
      const uint64_t n = arange_count_i64(xstart, xend, xstep);
      BP_CHECK(n <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
               ErrorCode::InvalidArgument,
               "{}: the range {} -> {} with step {} has too many elements ({})", op.name,
               start.str(), end.str(), step.str(), n);
      return arange_result(dtype, static_cast<int64_t>(n));
    }
    count = std::ceil((end.to_double() - start.to_double()) / step.to_double());
  } else {
    count = arange_count_floating(op, start, end, step);
  }
  // Negative for an integral range whose truncated bounds passed the sign check (PyTorch
  // refuses it too); at or above 2^63 there is no int64 size.
  BP_CHECK(count >= 0 && count < 0x1p63, ErrorCode::InvalidArgument,
           "{}: the range {} -> {} with step {} gives an invalid size {}", op.name, start.str(),
           end.str(), step.str(), count);
  return arange_result(dtype, static_cast<int64_t>(count));
}

// cat(Tensor[] tensors, int dim=0)
MetaResult cat_meta(const OpDef& op, std::span<IValue> args) {
  const TensorList& tensors = args[0].tensor_list();
  BP_CHECK(!tensors.empty(), ErrorCode::InvalidArgument,
           "{}: argument 'tensors' is an empty list; expected at least one tensor", op.name);
  ResultTypeState promotion;
  // PyTorch skips 1-D empty tensors ("legacy" empty tensors of shape [0]) in every shape
  // check, but they still take part in type promotion.
  const auto skipped = [](const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; };
  TensorList kept;
  std::vector<size_t> positions;  // index in the user's list of each kept tensor
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    BP_CHECK(t.defined(), ErrorCode::InvalidArgument,
             "{}: tensor {} of argument 'tensors' is undefined", op.name, i);
    BP_CHECK(t.dim() > 0, ErrorCode::Shape,
             "{}: tensor {} of argument 'tensors' is 0-d and cannot be concatenated "
             "(unsqueeze it to 1-D)",
             op.name, i);
    add_to_result_type(promotion, t);
    if (!skipped(t)) {
      kept.push_back(t);
      positions.push_back(i);
    }
  }
  // All skipped: the result is an empty 1-D tensor; keep one so kernels never see [].
  if (kept.empty()) {
    kept.push_back(tensors[0]);
    positions.push_back(0);
  }
  const Tensor& ref = kept[0];
  const int64_t dim = wrap_dim_arg(op, args, 1, ref.dim());
  Shape out = ref.sizes();
  for (size_t j = 1; j < kept.size(); ++j) {
    const Tensor& t = kept[j];
    BP_CHECK(t.dim() == ref.dim(), ErrorCode::Shape,
             "{}: tensor {} has shape {} but tensor {} has shape {}: tensors must have the "
             "same number of dims",
             op.name, positions[j], shape_str(as_ref(t.sizes())), positions[0],
             shape_str(as_ref(ref.sizes())));
    for (int64_t d = 0; d < ref.dim(); ++d) {
      if (d == dim) continue;
      BP_CHECK(t.size(d) == ref.size(d), ErrorCode::Shape,
               "{}: tensor {} has shape {} which does not match tensor {} of shape {} in dim {} "
               "(only dim {} may differ)",
               op.name, positions[j], shape_str(as_ref(t.sizes())), positions[0],
               shape_str(as_ref(ref.sizes())), d, dim);
    }
    BP_CHECK(!__builtin_add_overflow(out[dim], t.size(dim), &out[dim]), ErrorCode::Shape,
             "{}: the concatenated size of dim {} overflows int64", op.name, dim);
  }
  checked_numel(as_ref(out), op.name);
  MetaResult r;
  r.compute_dtype = promotion.result();
  args[0] = IValue(std::move(kept));
  request_conversion(r, args, {0});
  r.outputs.push_back(TensorMeta{std::move(out), r.compute_dtype, std::nullopt});
  return r;
}

// index_select(Tensor self, int dim, Tensor index)
MetaResult index_select_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor self = tensor_arg(op, args, 0);
  const Tensor index = tensor_arg(op, args, 2);
  check_dtype_in(op, "input 'index'", index.dtype(), kIndexDtypes);
  BP_CHECK(index.dim() <= 1, ErrorCode::Shape,
           "{}: argument 'index' must be 0-d or 1-D, got shape {}", op.name,
           shape_str(as_ref(index.sizes())));
  const int64_t dim = wrap_dim_arg(op, args, 1, self.dim());
  if (index.dim() == 0) args[2] = IValue(index.view({1}));
  MetaResult r;
  r.compute_dtype = self.dtype();
  if (self.dim() == 0) {
    // The output of a 0-d self is 0-d; the kernel sees both as [1].
    BP_CHECK(index.numel() == 1, ErrorCode::Shape,
             "{}: a 0-d 'self' takes an 'index' of exactly one element, got shape {}", op.name,
             shape_str(as_ref(index.sizes())));
    args[0] = IValue(self.view({1}));
    r.outputs.push_back(TensorMeta{Shape{}, self.dtype(), Shape{1}});
    return r;
  }
  Shape out = self.sizes();
  out[dim] = index.numel();
  r.outputs.push_back(TensorMeta{std::move(out), self.dtype(), std::nullopt});
  return r;
}

// gather(Tensor self, int dim, Tensor index)
MetaResult gather_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor self = tensor_arg(op, args, 0);
  const Tensor index = tensor_arg(op, args, 2);
  check_dtype_in(op, "input 'index'", index.dtype(), dtype_bit(ScalarType::Int64));
  // As PyTorch, a 0-d tensor counts as 1-D of size 1.
  const int64_t ndim = std::max<int64_t>(self.dim(), 1);
  BP_CHECK(std::max<int64_t>(index.dim(), 1) == ndim, ErrorCode::Shape,
           "{}: argument 'index' of shape {} must have as many dims as 'self' of shape {}", op.name,
           shape_str(as_ref(index.sizes())), shape_str(as_ref(self.sizes())));
  const int64_t dim = wrap_dim_arg(op, args, 1, self.dim());
  const auto size_of = [](const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); };
  if (index.numel() != 0) {
    for (int64_t d = 0; d < ndim; ++d) {
      BP_CHECK(d == dim || size_of(index, d) <= size_of(self, d), ErrorCode::Shape,
               "{}: argument 'index' of shape {} is larger than 'self' of shape {} in dim {} "
               "(only dim {} may be larger)",
               op.name, shape_str(as_ref(index.sizes())), shape_str(as_ref(self.sizes())), d, dim);
    }
  }
  MetaResult r;
  r.compute_dtype = self.dtype();
  // Kernels see both operands with ndim >= 1.
  if (self.dim() == 0) args[0] = IValue(self.view({1}));
  if (index.dim() == 0) args[2] = IValue(index.view({1}));
  r.outputs.push_back(TensorMeta{index.sizes(), self.dtype(),
                                 index.dim() == 0 ? std::optional<Shape>(Shape{1}) : std::nullopt});
  return r;
}

// where's condition is bool (PyTorch 1.13 still takes u8, deprecated; docs/ops.md).
void check_condition(const OpDef& op, const Tensor& condition) {
  BP_CHECK(condition.dtype() == ScalarType::Bool, ErrorCode::Type,
           "{}: argument 'condition' must be a bool tensor, got {}", op.name,
           dtype_name(condition.dtype()));
}

// where.self(Tensor condition, Tensor self, Tensor other)
MetaResult where_meta(const OpDef& op, std::span<IValue> args) {
  check_condition(op, tensor_arg(op, args, 0));
  MetaResult r;
  // Promotion first: expanding drops the 0-d / wrapped-number priority of an operand.
  r.compute_dtype = result_type(op, args, {1, 2});
  Shape shape = broadcast_args(op, args, {0, 1, 2});
  expand_args(args, {0, 1, 2}, as_ref(shape));
  request_conversion(r, args, {1, 2});
  r.outputs.push_back(TensorMeta{std::move(shape), r.compute_dtype, std::nullopt});
  return r;
}

// where.Scalar / where.ScalarSelf / where.ScalarOther: where.self with each Scalar operand as
// a wrapped-number tensor. As PyTorch, a Scalar must fit the result dtype (where.ScalarOther
// of an i8 tensor and 300 is an error, not 44).
MetaResult where_scalar_meta(const OpDef& op, std::span<IValue> args) {
  check_condition(op, tensor_arg(op, args, 0));
  ResultTypeState state;
  Shape shape = tensor_arg(op, args, 0).sizes();
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (args[i].is_tensor()) {
      const Tensor& t = tensor_arg(op, args, i);
      add_to_result_type(state, t);
      shape = broadcast_shapes(as_ref(shape), as_ref(t.sizes()), op.name);
    } else {
      state.add_tensor(args[i].scalar().dtype(), /*dim=*/0, /*wrapped_number=*/true);
    }
  }
  const ScalarType dtype = state.result();
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!args[i].is_tensor()) check_scalar_fits(op, arg_name(op, i), args[i].scalar(), dtype);
  }
  MetaResult r;
  r.compute_dtype = dtype;
  r.outputs.push_back(TensorMeta{std::move(shape), dtype, std::nullopt});
  return r;
}

std::vector<Tensor> where_scalar_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kWhere = op_id("where.self");
  std::vector<IValue> call(args.begin(), args.end());
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!call[i].is_tensor()) {
      const Scalar value = call[i].scalar();
      call[i] = IValue(ctx.scalar_tensor(value, value.dtype()));
    }
  }
  return ctx.call(kWhere, std::move(call));
}

// embedding(Tensor weight, Tensor indices, int padding_idx=-1)
MetaResult embedding_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& weight = tensor_arg(op, args, 0);
  const Tensor& indices = tensor_arg(op, args, 1);
  BP_CHECK(weight.dim() == 2, ErrorCode::Shape,
           "{}: argument 'weight' must be 2-D [num_embeddings, embedding_dim], got shape {}",
           op.name, shape_str(as_ref(weight.sizes())));
  check_dtype_in(op, "input 'indices'", indices.dtype(), kIndexDtypes);
  // padding_idx only changes gradients; it is validated so that a wrong value is noticed.
  const int64_t padding_idx = args[2].to_int();
  BP_CHECK(padding_idx == -1 || (padding_idx >= 0 && padding_idx < weight.size(0)),
           ErrorCode::InvalidArgument,
           "{}: argument 'padding_idx' = {} is out of range for 'weight' with {} rows "
           "(expected -1 for none, or 0..{})",
           op.name, padding_idx, weight.size(0), weight.size(0) - 1);
  Shape out = indices.sizes();
  out.push_back(weight.size(1));
  MetaResult r;
  r.compute_dtype = weight.dtype();
  r.outputs.push_back(TensorMeta{std::move(out), weight.dtype(), std::nullopt});
  return r;
}

// embedding = index_select(weight, 0, indices.flatten()) viewed as indices.shape + [dim].
std::vector<Tensor> embedding_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kIndexSelect = op_id("index_select");
  const Tensor& weight = args[0].tensor();
  const Tensor& indices = args[1].tensor();
  const Tensor rows = ctx.call1(kIndexSelect, {weight, int64_t{0}, flattened(ctx, indices)});
  Shape out = indices.sizes();
  out.push_back(weight.size(1));
  return {rows.view(as_ref(out))};
}

}  // namespace

void register_data_movement_ops(Catalog& c) {
  c.add({"copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
         OpKind::Primitive, copy_meta});
  c.add(
      {"fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", OpKind::Primitive, fill_meta});
  c.add(
      {"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, "
       "ScalarType? dtype=None, Device? device=None) -> Tensor",
       OpKind::Primitive, arange_meta, nullptr, /*can_fall_back=*/false});
  c.add({"cat(Tensor[] tensors, int dim=0) -> Tensor", OpKind::Primitive, cat_meta});
  c.add({"index_select(Tensor self, int dim, Tensor index) -> Tensor", OpKind::Primitive,
         index_select_meta});
  c.add({"gather(Tensor self, int dim, Tensor index) -> Tensor", OpKind::Primitive, gather_meta});
  c.add({"where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", OpKind::Primitive,
         where_meta});
  c.add({"fill_.Tensor(Tensor(a!) self, Tensor value) -> Tensor(a!)", OpKind::Composite,
         fill_tensor_meta, fill_tensor_decompose});
  c.add({"where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor", OpKind::Composite,
         where_scalar_meta, where_scalar_decompose});
  c.add({"where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
         OpKind::Composite, where_scalar_meta, where_scalar_decompose});
  c.add({"where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
         OpKind::Composite, where_scalar_meta, where_scalar_decompose});
  c.add({"embedding(Tensor weight, Tensor indices, int padding_idx=-1) -> Tensor",
         OpKind::Composite, embedding_meta, embedding_decompose});
}

}  // namespace bp::ops
