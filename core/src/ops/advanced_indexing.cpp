// Advanced indexing (op set v2, issue 28): PyTorch's index.Tensor (`x[i, :, j]` with index
// tensors) and index_put (`x[i, :, j] = v`, with accumulate), composites over one plan:
//   1. each bool (or u8) mask becomes its nonzero coordinates, one i64 index per masked dim;
//   2. the index tensors broadcast to one shape B, every value is checked against its dim's
//      size (amin/amax read to the host, as PyTorch's CPU kernel checks) and negative ones
//      wrap;
//   3. self is viewed with its indexed dims first, merged into one dim, and the indices
//      become one linear i64 index into it;
//   4. index is index_select along that dim; index_put is index_add (accumulate) or
//      scatter.src with the linear index along every row (the last write wins where
//      PyTorch calls repeated indices undefined, docs/ops.md).
// The result follows PyTorch's layout rule: when the indexed dims are adjacent, B takes
// their place; otherwise B comes first and the other dims follow in order.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace bp::ops {
namespace {

bool is_mask(ScalarType t) {
  return t == ScalarType::Bool || t == ScalarType::UInt8;
}

Shape broadcast_index_shapes(std::string_view op, const std::vector<Shape>& shapes) {
  Shape b;
  try {
    for (const Shape& s : shapes) b = broadcast_shapes(as_ref(b), as_ref(s));
  } catch (const Error&) {
    std::vector<std::string> texts;
    for (const Shape& s : shapes) texts.push_back(shape_str(as_ref(s)));
    BP_FAIL(ErrorCode::Shape, "{}: the index tensors of shapes {} cannot broadcast together", op,
            fmt::join(texts, ", "));
  }
  return b;
}

// Which dims of self the entries of `indices` index (a mask of m dims covers m), checked.
// B is the broadcast of the i64 indices' shapes; a mask adds its count, known only after
// nonzero (kDataDependentSize, as the last dim).
struct IndexedDims {
  std::vector<int64_t> dims;
  Shape index_shape;
};

IndexedDims check_indices(const OpDef& op, const Tensor& self, const TensorList& indices) {
  IndexedDims r;
  std::vector<Shape> shapes;
  bool has_mask = false;
  int64_t dim = 0;
  for (size_t k = 0; k < indices.size(); ++k) {
    const Tensor& t = indices[k];
    const int64_t covers = t.defined() && is_mask(t.dtype()) ? t.dim() : 1;
    BP_CHECK(dim + covers <= self.dim(), ErrorCode::Index,
             "{}: too many indices for 'self' of {} dims (indices[{}] would index dim {})", op.name,
             self.dim(), k, dim + covers - 1);
    if (t.defined()) {
      BP_CHECK(t.dtype() == ScalarType::Int64 || is_mask(t.dtype()), ErrorCode::Type,
               "{}: indices[{}] has dtype {}; index tensors must be i64, bool or u8", op.name, k,
               dtype_name(t.dtype()));
      BP_CHECK(!is_mask(t.dtype()) || t.dim() > 0, ErrorCode::Shape,
               "{}: indices[{}] is a 0-d mask; a mask needs at least one dim", op.name, k);
      for (int64_t j = 0; is_mask(t.dtype()) && j < t.dim(); ++j)
        BP_CHECK(t.size(j) == self.size(dim + j), ErrorCode::Shape,
                 "{}: the mask indices[{}] of shape {} does not match 'self' of shape {} at "
                 "dim {}",
                 op.name, k, shape_str(as_ref(t.sizes())), shape_str(as_ref(self.sizes())),
                 dim + j);
      for (int64_t j = 0; j < covers; ++j) r.dims.push_back(dim + j);
      if (is_mask(t.dtype()))
        has_mask = true;
      else
        shapes.push_back(t.sizes());
    }
    dim += covers;
  }
  BP_CHECK(!r.dims.empty(), ErrorCode::InvalidArgument,
           "{}: 'indices' holds no index tensor (every entry is None)", op.name);
  r.index_shape = broadcast_index_shapes(op.name, shapes);
  if (has_mask) {
    if (r.index_shape.empty()) r.index_shape.push_back(1);
    if (r.index_shape.back() == 1) r.index_shape.back() = kDataDependentSize;
  }
  return r;
}

bool adjacent(const std::vector<int64_t>& dims) {
  for (size_t i = 1; i < dims.size(); ++i)
    if (dims[i] != dims[i - 1] + 1) return false;
  return true;
}

// The dims of self no index covers, in order.
std::vector<int64_t> other_dims(int64_t ndim, const std::vector<int64_t>& dims) {
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < ndim; ++d)
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) rest.push_back(d);
  return rest;
}

// The other dims placed before B in the result: those before adjacent indexed dims.
int64_t dims_before(const std::vector<int64_t>& dims) {
  return adjacent(dims) ? dims[0] : 0;
}

Shape result_shape(const Tensor& self, const std::vector<int64_t>& dims, const Shape& b) {
  const std::vector<int64_t> rest = other_dims(self.dim(), dims);
  const auto before = static_cast<size_t>(dims_before(dims));
  Shape out;
  for (size_t i = 0; i < before; ++i) out.push_back(self.size(rest[i]));
  out.insert(out.end(), b.begin(), b.end());
  for (size_t i = before; i < rest.size(); ++i) out.push_back(self.size(rest[i]));
  return out;
}

// index.Tensor(Tensor self, Tensor?[] indices) -> Tensor
MetaResult index_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const IndexedDims indexed = check_indices(op, self, args[1].tensor_list());
  MetaResult r;
  r.outputs.push_back(
      TensorMeta{result_shape(self, indexed.dims, indexed.index_shape), self.dtype(), {}});
  return r;
}

// index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor
MetaResult index_put_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& values = tensor_arg(op, args, 2);
  BP_CHECK(values.dtype() == self.dtype(), ErrorCode::Type,
           "{}: argument 'values' has dtype {}, but 'self' has {}; they must match", op.name,
           dtype_name(values.dtype()), dtype_name(self.dtype()));
  const IndexedDims indexed = check_indices(op, self, args[1].tensor_list());
  const Shape target = result_shape(self, indexed.dims, indexed.index_shape);
  const bool known = std::find(target.begin(), target.end(), kDataDependentSize) == target.end();
  BP_CHECK(!known || broadcasts_to(as_ref(values.sizes()), as_ref(target)), ErrorCode::Shape,
           "{}: argument 'values' of shape {} cannot broadcast to the indexing result of "
           "shape {}",
           op.name, shape_str(as_ref(values.sizes())), shape_str(as_ref(target)));
  MetaResult r;
  r.outputs.push_back(TensorMeta{self.sizes(), self.dtype(), {}});
  return r;
}

// ---- the plan ---------------------------------------------------------------------------

struct IndexPlan {
  std::vector<int64_t> dims;  // the indexed dims of self, in order
  Shape index_shape;          // B
  Tensor linear;              // [N] i64: the position in self's indexed dims, row-major
  Shape perm;                 // self's dims, the indexed ones first
  Shape rest;                 // the sizes of the other dims
  int64_t positions = 1;      // L: the product of the indexed dims' sizes
};

// Checks every value of `index` against `size` (dim `dim` of self); returns its smallest.
int64_t checked_lowest(OpContext& ctx, std::string_view op, const Tensor& index, int64_t dim,
                       int64_t size) {
  static const OpId kAmin = op_id("amin");
  static const OpId kAmax = op_id("amax");
  if (index.numel() == 0) return 0;
  const IValue all = dim_range(0, index.dim());
  const int64_t lowest = ctx.item(ctx.call1(kAmin, {index, all, false})).to_int();
  const int64_t highest = ctx.item(ctx.call1(kAmax, {index, all, false})).to_int();
  const int64_t bad = lowest < -size ? lowest : highest;
  BP_CHECK(lowest >= -size && highest < size, ErrorCode::Index,
           "{}: index {} is out of bounds for dim {} with size {}", op, bad, dim, size);
  return lowest;
}

// Steps 1-3: the masks expanded, the indices checked, wrapped and made one linear index.
IndexPlan plan_indexing(OpContext& ctx, std::string_view op, const Tensor& self,
                        const TensorList& indices) {
  static const OpId kNonzero = op_id("nonzero");
  static const OpId kLt = op_id("lt.Scalar");
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kAddScalar = op_id("add.Scalar");
  static const OpId kMul = op_id("mul.Scalar");
  static const OpId kWhere = op_id("where.self");
  IndexPlan plan;
  std::vector<Tensor> longs;
  std::vector<Shape> shapes;
  int64_t dim = 0;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      ++dim;
    } else if (is_mask(t.dtype())) {
      const Tensor coordinates = ctx.call1(kNonzero, {t});  // [count, t.dim()]
      for (int64_t j = 0; j < t.dim(); ++j, ++dim) {
        plan.dims.push_back(dim);
        longs.push_back(coordinates.select(1, j));
        shapes.push_back(longs.back().sizes());
      }
    } else {
      plan.dims.push_back(dim++);
      longs.push_back(t);
      shapes.push_back(t.sizes());
    }
  }
  plan.index_shape = broadcast_index_shapes(op, shapes);
  Tensor linear;
  for (size_t i = longs.size(); i-- > 0;) {
    const int64_t size = self.size(plan.dims[i]);
    Tensor index = longs[i];
    if (checked_lowest(ctx, op, index, plan.dims[i], size) < 0) {
      const Tensor negative = ctx.call1(kLt, {index, Scalar(int64_t{0})});
      const Tensor wrapped = ctx.call1(kAddScalar, {index, Scalar(size), Scalar(int64_t{1})});
      index = ctx.call1(kWhere, {negative, wrapped, index});
    }
    if (plan.positions != 1) index = ctx.call1(kMul, {index, Scalar(plan.positions)});
    linear = linear.defined() ? ctx.call1(kAdd, {linear, index, Scalar(int64_t{1})}) : index;
    plan.positions *= size;
  }
  plan.linear = flattened(ctx, linear.expand(as_ref(plan.index_shape)));
  plan.perm.assign(plan.dims.begin(), plan.dims.end());
  for (const int64_t d : other_dims(self.dim(), plan.dims)) {
    plan.perm.push_back(d);
    plan.rest.push_back(self.size(d));
  }
  return plan;
}

// self with its indexed dims merged into one, first: [L, *rest].
Tensor merged_self(OpContext& ctx, const Tensor& self, const IndexPlan& plan) {
  Shape shape{plan.positions};
  shape.insert(shape.end(), plan.rest.begin(), plan.rest.end());
  return reshaped(ctx, self.permute(as_ref(plan.perm)), as_ref(shape));
}

// The permutation taking [B, before, after] to [before, B, after].
Shape b_to_place(int64_t nb, int64_t before, int64_t ndim) {
  Shape order;
  for (int64_t i = 0; i < before; ++i) order.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i) order.push_back(i);
  for (int64_t i = nb + before; i < ndim; ++i) order.push_back(i);
  return order;
}

std::vector<Tensor> index_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kIndexSelect = op_id("index_select");
  const Tensor& self = args[0].tensor();
  const IndexPlan plan = plan_indexing(ctx, "index.Tensor", self, args[1].tensor_list());
  Shape b_first = plan.index_shape;
  b_first.insert(b_first.end(), plan.rest.begin(), plan.rest.end());
  const Tensor picked =
      ctx.call1(kIndexSelect, {merged_self(ctx, self, plan), int64_t{0}, plan.linear});
  const Tensor result = picked.view(as_ref(b_first));
  const int64_t before = dims_before(plan.dims);
  if (before == 0) return {result};
  const auto nb = static_cast<int64_t>(plan.index_shape.size());
  return {contiguous_copy(ctx, result.permute(as_ref(b_to_place(nb, before, result.dim()))))};
}

std::vector<Tensor> index_put_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kIndexAdd = op_id("index_add");
  static const OpId kScatter = op_id("scatter.src");
  const Tensor& self = args[0].tensor();
  const IndexPlan plan = plan_indexing(ctx, "index_put", self, args[1].tensor_list());
  const Shape target = result_shape(self, plan.dims, plan.index_shape);
  const Tensor& values = args[2].tensor();
  BP_CHECK(broadcasts_to(as_ref(values.sizes()), as_ref(target)), ErrorCode::Shape,
           "index_put: argument 'values' of shape {} cannot broadcast to the indexing result "
           "of shape {}",
           shape_str(as_ref(values.sizes())), shape_str(as_ref(target)));
  Tensor ordered = values.expand(as_ref(target));  // to [B, *rest], as merged_self's rows
  const int64_t before = dims_before(plan.dims);
  const auto nb = static_cast<int64_t>(plan.index_shape.size());
  if (before > 0)
    ordered =
        ordered.permute(as_ref(inverse_permutation(as_ref(b_to_place(nb, before, ordered.dim())))));
  const int64_t n = plan.linear.numel(), row = checked_numel(as_ref(plan.rest));
  const Tensor rows = flattened(ctx, ordered).view({n, row});
  const Tensor base =
      reshaped(ctx, self.permute(as_ref(plan.perm)), as_ref(Shape{plan.positions, row}));
  const Tensor written =
      args[3].to_bool()
          ? ctx.call1(kIndexAdd, {base, int64_t{0}, plan.linear, rows, Scalar(int64_t{1})})
          : ctx.call1(kScatter,
                      {base, int64_t{0}, plan.linear.view({n, 1}).expand({n, row}), rows});
  Shape permuted;
  for (const int64_t d : plan.perm) permuted.push_back(self.size(d));
  const Tensor result =
      written.view(as_ref(permuted)).permute(as_ref(inverse_permutation(as_ref(plan.perm))));
  const bool identity = std::is_sorted(plan.perm.begin(), plan.perm.end());
  return {identity ? result : contiguous_copy(ctx, result)};
}

}  // namespace

void register_advanced_indexing_ops(Catalog& c) {
  c.add({"index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", OpKind::Composite, index_meta,
         index_decompose});
  c.add(
      {"index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> "
       "Tensor",
       OpKind::Composite, index_put_meta, index_put_decompose});
}

}  // namespace bp::ops
