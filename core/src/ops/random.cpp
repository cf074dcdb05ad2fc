// Random ops of op set v2 (issue 28, docs/random.md). Every random op takes `int seed, int
// offset` where PyTorch takes `Generator? generator`: element i (row-major) of the result is
// a function of Philox 4x32-10 at key `seed`, counter `offset + i` (sdk/philox.hpp), so a
// call is a pure function of its arguments and every backend gives the same bits. Primitives:
//   uniform_, normal_, random_.from
// Composites over them:
//   random_, random_.to        random_.from(0, None) and random_.from(0, to)
//   bernoulli_.float / .Tensor self = (u < p), u = uniform_ of an f32 tensor of self's shape
//   native_dropout             mask = bernoulli(1 - p), output = input * mask / (1 - p)
//   native_dropout_backward    grad_output * mask * scale
// A call uses numel(self) counters: bp::Generator (dispatch) advances its offset by that.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <cmath>
#include <optional>

namespace bp::ops {
namespace {

// The written tensor of an in-place random op: no two elements share a location.
MetaResult in_place_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_no_internal_overlap(op, 0, self);
  MetaResult r;
  r.compute_dtype = self.dtype();
  return r;
}

// uniform_(Tensor(a!) self, float from=0, float to=1, *, int seed, int offset): floating self;
// from <= to, both finite in self's dtype, and to - from finite too (PyTorch's checks).
MetaResult uniform_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_floating(op, "input 'self'", self.dtype());
  const double from = args[1].to_double(), to = args[2].to_double();
  const double max = max_finite(self.dtype());
  for (const auto& [name, value] : {std::pair{"from", from}, std::pair{"to", to}})
    BP_CHECK(value >= -max && value <= max, ErrorCode::InvalidArgument,
             "{}: argument '{}' = {} is outside the finite range of {}", op.name, name, value,
             dtype_name(self.dtype()));
  BP_CHECK(from <= to, ErrorCode::InvalidArgument,
           "{}: expects a [from, to) range, but from = {} > to = {}", op.name, from, to);
  BP_CHECK(to - from <= max, ErrorCode::InvalidArgument,
           "{}: to - from = {} - {} exceeds the largest finite {}", op.name, to, from,
           dtype_name(self.dtype()));
  return in_place_meta(op, args);
}

// normal_(Tensor(a!) self, float mean=0, float std=1, *, int seed, int offset): floating self,
// std >= 0 (NaN refused, as PyTorch).
MetaResult normal_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_floating(op, "input 'self'", self.dtype());
  const double std = args[2].to_double();
  BP_CHECK(std >= 0.0, ErrorCode::InvalidArgument, "{}: argument 'std' must be >= 0, got {}",
           op.name, std);
  return in_place_meta(op, args);
}

// The largest value random_ draws for `dtype` when `to` is None: 2^digits for a floating
// dtype, 1 for bool, the largest value of an integral one.
int64_t largest_draw(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float64:
      return int64_t{1} << 53;
    case ScalarType::Float32:
      return int64_t{1} << 24;
    case ScalarType::Float16:
      return int64_t{1} << 11;
    case ScalarType::BFloat16:
      return int64_t{1} << 8;
    case ScalarType::Bool:
      return 1;
    default:
      return integral_range(dtype).second;
  }
}

// A bound of random_ must be a value of self's dtype (PyTorch's check_from_to_in_range).
void check_draw_bound(const OpDef& op, const char* what, int64_t value, ScalarType dtype) {
  bool fits = true;
  if (is_floating(dtype)) {
    fits = std::fabs(static_cast<double>(value)) <= max_finite(dtype);
  } else if (dtype == ScalarType::Bool) {
    fits = value == 0 || value == 1;
  } else {
    const auto [lo, hi] = integral_range(dtype);
    fits = value >= lo && value <= hi;
  }
  BP_CHECK(fits, ErrorCode::InvalidArgument, "{}: {} = {} is out of bounds for {}", op.name, what,
           value, dtype_name(dtype));
}

// The bounds of random_ (random_.from's, and random_ / random_.to with from = 0): values in
// [from, to), or [from, largest_draw] when `to` is None; from = i64's lowest with no `to`
// draws all 64 bits (i64, f64, f32 and bf16, as PyTorch).
void check_random_bounds(const OpDef& op, ScalarType dtype, int64_t from,
                         std::optional<int64_t> to) {
  if (to) {
    BP_CHECK(from < *to, ErrorCode::InvalidArgument,
             "{}: expects 'from' to be less than 'to', but from = {} >= to = {}", op.name, from,
             *to);
    check_draw_bound(op, "from", from, dtype);
    check_draw_bound(op, "to - 1", *to - 1, dtype);
  } else if (from == INT64_MIN) {
    constexpr DtypeMask kFullRange = dtype_bit(ScalarType::Int64) | dtype_bit(ScalarType::Float64) |
                                     dtype_bit(ScalarType::Float32) |
                                     dtype_bit(ScalarType::BFloat16);
    check_dtype_in(op, "input 'self' (drawing all 64 bits: from = -2^63, to = None)", dtype,
                   kFullRange);
  } else {
    check_draw_bound(op, "from", from, dtype);
    BP_CHECK(from <= largest_draw(dtype), ErrorCode::InvalidArgument,
             "{}: 'from' = {} is above {}, the largest value drawn for {}", op.name, from,
             largest_draw(dtype), dtype_name(dtype));
  }
}

// random_.from(Tensor(a!) self, int from, int? to, *, int seed, int offset)
MetaResult random_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_random_bounds(op, self.dtype(), args[1].to_int(),
                      args[2].is_none() ? std::nullopt : std::optional(args[2].to_int()));
  return in_place_meta(op, args);
}

// random_(Tensor(a!) self, *, int seed, int offset) and random_.to(Tensor(a!) self, int to,
// *, int seed, int offset): random_.from with from = 0.
MetaResult random_composite_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const bool has_to = args.size() == 4;
  check_random_bounds(op, self.dtype(), 0, has_to ? std::optional(args[1].to_int()) : std::nullopt);
  return in_place_meta(op, args);
}

std::vector<Tensor> random_default_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kRandom = op_id("random_.from");
  ctx.call(kRandom, {args[0], int64_t{0}, IValue(), args[1], args[2]});
  return {args[0].tensor()};
}

std::vector<Tensor> random_to_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kRandom = op_id("random_.from");
  ctx.call(kRandom, {args[0], int64_t{0}, args[1], args[2], args[3]});
  return {args[0].tensor()};
}

void check_probability(const OpDef& op, const char* name, double p) {
  BP_CHECK(p >= 0.0 && p <= 1.0, ErrorCode::InvalidArgument,
           "{}: argument '{}' must be in [0, 1], got {}", op.name, name, p);
}

// bernoulli_.float(Tensor(a!) self, float p=0.5, *, int seed, int offset): any dtype.
MetaResult bernoulli_float_meta(const OpDef& op, std::span<IValue> args) {
  check_probability(op, "p", args[1].to_double());
  return in_place_meta(op, args);
}

// bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, int seed, int offset): a floating p that
// broadcasts to self. Its values are not checked (that would read device memory): p >= 1
// gives 1, p <= 0 and NaN give 0 (docs/random.md).
MetaResult bernoulli_tensor_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& p = tensor_arg(op, args, 1);
  check_floating(op, "input 'p'", p.dtype());
  BP_CHECK(broadcasts_to(as_ref(p.sizes()), as_ref(self.sizes())), ErrorCode::Shape,
           "{}: argument 'p' of shape {} cannot be broadcast to the shape {} of 'self'", op.name,
           shape_str(as_ref(p.sizes())), shape_str(as_ref(self.sizes())));
  return in_place_meta(op, args);
}

// self = (u < p) with u = uniform_ of a contiguous f32 tensor of self's shape drawn at
// (seed, offset): u's element i is self's element i, whatever self's strides.
void bernoulli_into(OpContext& ctx, const Tensor& self, const IValue& p, const IValue& seed,
                    const IValue& offset) {
  static const OpId kUniform = op_id("uniform_");
  static const OpId kLtScalar = op_id("lt.Scalar");
  static const OpId kLtTensor = op_id("lt.Tensor");
  static const OpId kCopy = op_id("copy_");
  const Tensor u = ctx.empty(as_ref(self.sizes()), ScalarType::Float32);
  ctx.call(kUniform, {u, 0.0, 1.0, seed, offset});
  const Tensor mask = p.is_tensor() ? ctx.call1(kLtTensor, {u, p})
                                    : ctx.call1(kLtScalar, {u, Scalar(p.to_double())});
  ctx.call(kCopy, {self, mask, false});
}

std::vector<Tensor> bernoulli_decompose(OpContext& ctx, std::span<const IValue> args) {
  bernoulli_into(ctx, args[0].tensor(), args[1], args[2], args[3]);
  return {args[0].tensor()};
}

// native_dropout(Tensor input, float p, bool? train, *, int seed, int offset)
//   -> (Tensor output, Tensor mask): mask is bool.
MetaResult native_dropout_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& input = tensor_arg(op, args, 0);
  check_floating(op, "input 'input'", input.dtype());
  check_probability(op, "p", args[1].to_double());
  MetaResult r;
  r.compute_dtype = input.dtype();
  r.outputs.push_back(TensorMeta{input.sizes(), input.dtype(), std::nullopt});
  r.outputs.push_back(TensorMeta{input.sizes(), ScalarType::Bool, std::nullopt});
  return r;
}

// Training (train None or true): mask = bernoulli(1 - p), output = input * mask * scale with
// scale = 1 / (1 - p) (0 when p = 1), as PyTorch's CPU kernel. Evaluation: a copy of input and
// an all-true mask.
std::vector<Tensor> native_dropout_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMulTensor = op_id("mul.Tensor");
  static const OpId kMulScalar = op_id("mul.Scalar");
  static const OpId kFill = op_id("fill_.Scalar");
  const Tensor& input = args[0].tensor();
  const bool train = args[2].is_none() || args[2].to_bool();
  Tensor mask = ctx.empty(as_ref(input.sizes()), ScalarType::Bool);
  if (!train) {
    ctx.call(kFill, {mask, Scalar(true)});
    return {contiguous_copy(ctx, input), mask};
  }
  const double keep = 1.0 - args[1].to_double();
  bernoulli_into(ctx, mask, IValue(keep), args[3], args[4]);
  const double scale = keep == 0.0 ? 0.0 : 1.0 / keep;
  const Tensor kept = ctx.call1(kMulTensor, {input, mask});
  return {ctx.call1(kMulScalar, {kept, Scalar(scale)}), mask};
}

// native_dropout_backward(Tensor grad_output, Tensor mask, float scale): a bool mask that
// broadcasts with grad_output; grad_output * mask * scale in grad_output's dtype.
MetaResult native_dropout_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& mask = tensor_arg(op, args, 1);
  check_floating(op, "input 'grad_output'", grad.dtype());
  BP_CHECK(mask.dtype() == ScalarType::Bool, ErrorCode::Type,
           "{}: argument 'mask' must be a bool tensor, got {}", op.name, dtype_name(mask.dtype()));
  MetaResult r;
  r.compute_dtype = grad.dtype();
  r.outputs.push_back(TensorMeta{broadcast_args(op, args, {0, 1}), grad.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> native_dropout_backward_decompose(OpContext& ctx,
                                                      std::span<const IValue> args) {
  static const OpId kMulTensor = op_id("mul.Tensor");
  static const OpId kMulScalar = op_id("mul.Scalar");
  const Tensor kept = ctx.call1(kMulTensor, {args[0], args[1]});
  return {ctx.call1(kMulScalar, {kept, Scalar(args[2].to_double())})};
}

}  // namespace

void register_random_ops(Catalog& c) {
  using K = OpKind;
  c.add(
      {"uniform_(Tensor(a!) self, float from=0, float to=1, *, int seed, int offset) -> "
       "Tensor(a!)",
       K::Primitive, uniform_meta});
  c.add(
      {"normal_(Tensor(a!) self, float mean=0, float std=1, *, int seed, int offset) -> "
       "Tensor(a!)",
       K::Primitive, normal_meta});
  c.add(
      {"random_.from(Tensor(a!) self, int from, int? to, *, int seed, int offset) -> "
       "Tensor(a!)",
       K::Primitive, random_meta});
  c.add({"random_.to(Tensor(a!) self, int to, *, int seed, int offset) -> Tensor(a!)", K::Composite,
         random_composite_meta, random_to_decompose});
  c.add({"random_(Tensor(a!) self, *, int seed, int offset) -> Tensor(a!)", K::Composite,
         random_composite_meta, random_default_decompose});
  c.add({"bernoulli_.float(Tensor(a!) self, float p=0.5, *, int seed, int offset) -> Tensor(a!)",
         K::Composite, bernoulli_float_meta, bernoulli_decompose});
  c.add({"bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, int seed, int offset) -> Tensor(a!)",
         K::Composite, bernoulli_tensor_meta, bernoulli_decompose});
  c.add(
      {"native_dropout(Tensor input, float p, bool? train, *, int seed, int offset) -> "
       "(Tensor, Tensor)",
       K::Composite, native_dropout_meta, native_dropout_decompose});
  c.add({"native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor",
         K::Composite, native_dropout_backward_meta, native_dropout_backward_decompose});
}

}  // namespace bp::ops
