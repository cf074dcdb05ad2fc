// Statistics of op set v2 (issue 28), composites over the reductions and elementwise ops:
//   var.correction  sum((x - mean(x))^2) / max(0, N - correction), correction 1 by default
//   std.correction  sqrt(var)
//   logsumexp       log(sum(exp(x - m))) + m, m = amax(x) where finite, else 0
// over the `dim` list (None or [] is every dim), keepdim as the reductions. f16/bf16 compute
// in f32 and round once. A divisor of 0 gives inf, or NaN for 0/0 (PyTorch warns and does
// the same); logsumexp over no elements is -inf, as PyTorch.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <algorithm>
#include <limits>

namespace bp::ops {
namespace {

int64_t count_of(const Tensor& self, IntArrayRef dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= self.size(d);
  return n;
}

// var.correction / std.correction(Tensor self, int[]? dim=None, *, int? correction=None,
//     bool keepdim=False): floating self (PyTorch: "std and var only support floating point
//     and complex dtypes").
MetaResult variance_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_floating(op, "input 'self'", self.dtype());
  const Shape dims = canonicalize_dims_arg(op, args, 1, self.dim());
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(reduction_output(self, as_ref(dims), args[3].to_bool(), self.dtype()));
  return r;
}

Tensor variance(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kSum = op_id("sum.dim_IntList");
  static const OpId kDiv = op_id("div.Tensor");
  const Tensor& self = args[0].tensor();
  const ScalarType acc = accumulate_dtype(self.dtype());
  const Shape& dims = args[1].int_list();
  const bool keepdim = args[3].to_bool();
  const int64_t correction = args[2].is_none() ? 1 : args[2].to_int();
  const Tensor x = convert_to(ctx, self, acc);
  const Tensor centred =
      ctx.call1(kSub, {x, ctx.call1(kMean, {x, IValue(dims), true, IValue()}), Scalar(1)});
  const Tensor squares =
      ctx.call1(kSum, {ctx.call1(kMul, {centred, centred}), IValue(dims), keepdim, IValue()});
  const int64_t divisor = std::max<int64_t>(0, count_of(self, as_ref(dims)) - correction);
  return ctx.call1(kDiv, {squares, scalar_operand(ctx, static_cast<double>(divisor), acc)});
}

std::vector<Tensor> var_decompose(OpContext& ctx, std::span<const IValue> args) {
  return {convert_to(ctx, variance(ctx, args), args[0].tensor().dtype())};
}

std::vector<Tensor> std_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSqrt = op_id("sqrt");
  return {convert_to(ctx, ctx.call1(kSqrt, {variance(ctx, args)}), args[0].tensor().dtype())};
}

// logsumexp(Tensor self, int[] dim, bool keepdim=False): integral and bool inputs give f32
// (PyTorch's default dtype), floating ones keep their dtype.
MetaResult logsumexp_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Shape dims = canonicalize_dims_arg(op, args, 1, self.dim());
  const ScalarType out = is_floating(self.dtype()) ? self.dtype() : ScalarType::Float32;
  MetaResult r;
  r.compute_dtype = out;
  r.outputs.push_back(reduction_output(self, as_ref(dims), args[2].to_bool(), out));
  return r;
}

std::vector<Tensor> logsumexp_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kFill = op_id("fill_.Scalar");
  static const OpId kAmax = op_id("amax");
  static const OpId kAbs = op_id("abs");
  static const OpId kEq = op_id("eq.Scalar");
  static const OpId kWhere = op_id("where.self");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kExp = op_id("exp");
  static const OpId kSum = op_id("sum.dim_IntList");
  static const OpId kLog = op_id("log");
  static const OpId kAdd = op_id("add.Tensor");
  const Tensor& self = args[0].tensor();
  const Shape& dims = args[1].int_list();
  const bool keepdim = args[2].to_bool();
  const ScalarType out = is_floating(self.dtype()) ? self.dtype() : ScalarType::Float32;
  const ScalarType acc = accumulate_dtype(out);
  const Shape result_shape = reduced_shape(as_ref(self.sizes()), as_ref(dims), keepdim);
  if (count_of(self, as_ref(dims)) == 0) {  // amax has no value here; the sum of none is 0
    Tensor result = ctx.empty(as_ref(result_shape), out);
    ctx.call(kFill, {result, Scalar(-std::numeric_limits<double>::infinity())});
    return {result};
  }
  const Tensor x = convert_to(ctx, self, acc);
  // The shift: the row maximum, or 0 where it is infinite (an all -inf row stays -inf, a row
  // with +inf stays +inf); NaN passes through to the result.
  Tensor shift = ctx.call1(kAmax, {x, IValue(dims), true});
  const Tensor infinite =
      ctx.call1(kEq, {ctx.call1(kAbs, {shift}), Scalar(std::numeric_limits<double>::infinity())});
  shift = ctx.call1(kWhere, {infinite, scalar_operand(ctx, 0.0, acc), shift});
  const Tensor sums = ctx.call1(kSum, {ctx.call1(kExp, {ctx.call1(kSub, {x, shift, Scalar(1)})}),
                                       IValue(dims), keepdim, IValue()});
  const Tensor result =
      ctx.call1(kAdd, {ctx.call1(kLog, {sums}), shift.view(as_ref(result_shape)), Scalar(1)});
  return {convert_to(ctx, result, out)};
}

}  // namespace

void register_statistics_ops(Catalog& c) {
  c.add(
      {"var.correction(Tensor self, int[]? dim=None, *, int? correction=None, "
       "bool keepdim=False) -> Tensor",
       OpKind::Composite, variance_meta, var_decompose});
  c.add(
      {"std.correction(Tensor self, int[]? dim=None, *, int? correction=None, "
       "bool keepdim=False) -> Tensor",
       OpKind::Composite, variance_meta, std_decompose});
  c.add({"logsumexp(Tensor self, int[] dim, bool keepdim=False) -> Tensor", OpKind::Composite,
         logsumexp_meta, logsumexp_decompose});
}

}  // namespace bp::ops
