// Elementwise binary ops with broadcasting and PyTorch's type promotion: the .Tensor
// primitives (add sub mul div pow maximum minimum eq ne lt le gt ge logical_and logical_or),
// clamp, and the .Scalar composites, which wrap their scalar into a 0-d wrapped-number
// tensor (ctx.scalar_tensor) and call the .Tensor form, exactly as PyTorch does (pow.Scalar,
// whose Scalar is the base, too). clamp.Tensor is a composite over maximum and minimum.
//
// The dtype rule of each op lives in one function (binary_dtypes) used by both the .Tensor
// meta rule and the .Scalar one, so a composite's meta rule and its decomposition always
// agree on the output dtype.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

enum class BinaryRule {
  Add,      // promoted dtype; alpha checked against it
  Sub,      // as Add, and bool operands are refused
  Mul,      // promoted dtype
  Div,      // true division: integral and bool results become the default float
  DivMode,  // rounding_mode None (true division), 'trunc' or 'floor' (promoted dtype)
  Pow,      // promoted dtype, bool refused
  MinMax,   // promoted dtype
  Compare,  // computed in the promoted dtype, bool out
  Logical,  // as Compare
};

struct BinaryDtypes {
  ScalarType compute;
  ScalarType out;
};

// PyTorch's alpha_check, plus the range check its kernels do when converting alpha.
void check_alpha(const OpDef& op, const Scalar& alpha, ScalarType result) {
  BP_CHECK(!alpha.is_bool() || result == ScalarType::Bool, ErrorCode::Type,
           "{}: argument 'alpha' = {} is a bool, which is only supported for bool results "
           "(the result dtype is {})",
           op.name, alpha.str(), dtype_name(result));
  BP_CHECK(!alpha.is_floating() || is_floating(result), ErrorCode::Type,
           "{}: argument 'alpha' = {} is a floating-point number, which is not supported for "
           "integral results (the result dtype is {})",
           op.name, alpha.str(), dtype_name(result));
  check_scalar_fits(op, "alpha", alpha, result);
}

// Checks the operands of one call and returns its compute and output dtypes. `self_dt` and
// `other_dt` are the operands' own dtypes (a Scalar operand counts with its wrapped-number
// dtype), `promoted` their torch.result_type. Arguments after the operands (alpha,
// rounding_mode) are at index 2 in both the .Tensor and the .Scalar forms.
template <BinaryRule R>
BinaryDtypes binary_dtypes(const OpDef& op, std::span<const IValue> args, ScalarType self_dt,
                           ScalarType other_dt, ScalarType promoted) {
  if constexpr (R == BinaryRule::Sub) {
    BP_CHECK(self_dt != ScalarType::Bool || other_dt != ScalarType::Bool, ErrorCode::Type,
             "{}: subtraction of two bool tensors is not supported (inputs 'self' and "
             "'other' are bool); use logical_xor() instead",
             op.name);
    check_not_bool(op, "input 'self'", self_dt, "to invert a mask use logical_not() (or ~)");
    check_not_bool(op, "input 'other'", other_dt, "to invert a mask use logical_not() (or ~)");
  }
  if constexpr (R == BinaryRule::Add || R == BinaryRule::Sub) {
    check_alpha(op, args[2].scalar(), promoted);
  }
  if constexpr (R == BinaryRule::Pow) {
    check_not_bool(op, fmt::format("the promoted dtype of 'self' and '{}'", arg_name(op, 1)),
                   promoted);
  }
  if constexpr (R == BinaryRule::Div) {
    const ScalarType t = is_floating(promoted) ? promoted : kDefaultFloat;
    return {t, t};
  }
  if constexpr (R == BinaryRule::DivMode) {
    if (args[2].is_none())
      return binary_dtypes<BinaryRule::Div>(op, args, self_dt, other_dt, promoted);
    const std::string& mode = args[2].string();
    BP_CHECK(mode == "trunc" || mode == "floor", ErrorCode::InvalidArgument,
             "{}: argument 'rounding_mode' must be None, 'trunc' or 'floor', got '{}'", op.name,
             mode);
    check_not_bool(op, "the promoted dtype of 'self' and 'other'", promoted,
                   fmt::format("{} division needs a numeric dtype", mode));
  }
  if constexpr (R == BinaryRule::Compare || R == BinaryRule::Logical) {
    return {promoted, ScalarType::Bool};
  }
  return {promoted, promoted};
}

// op.Tensor(Tensor self, Tensor other, ...)
template <BinaryRule R>
MetaResult binary_tensor_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor& other = tensor_arg(op, args, 1);
  // Promotion first: expanding drops the 0-d / wrapped-number priority of an operand.
  const BinaryDtypes dt =
      binary_dtypes<R>(op, args, self.dtype(), other.dtype(), result_type(op, args, {0, 1}));
  Shape shape = broadcast_args(op, args, {0, 1});
  expand_args(args, {0, 1}, as_ref(shape));
  MetaResult r;
  r.compute_dtype = dt.compute;
  request_conversion(r, args, {0, 1});
  r.outputs.push_back(TensorMeta{std::move(shape), dt.out, std::nullopt});
  return r;
}

// op.Scalar(Tensor self, Scalar other, ...): the .Tensor rule with `other` as the 0-d
// wrapped number its decomposition creates.
template <BinaryRule R>
MetaResult binary_scalar_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Scalar other = args[1].scalar();
  ResultTypeState state;
  add_to_result_type(state, self);
  state.add_tensor(other.dtype(), /*dim=*/0, /*wrapped_number=*/true);
  const BinaryDtypes dt = binary_dtypes<R>(op, args, self.dtype(), other.dtype(), state.result());
  MetaResult r;
  r.compute_dtype = dt.compute;
  request_conversion(r, args, {0});
  r.outputs.push_back(TensorMeta{self.sizes(), dt.out, std::nullopt});
  return r;
}

// pow.Tensor_Scalar also refuses integers to negative integer powers (as numpy and PyTorch;
// with a tensor exponent the kernel checks the values).
MetaResult pow_scalar_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Scalar exponent = args[1].scalar();
  BP_CHECK(!(is_integral(self.dtype(), /*include_bool=*/true) && exponent.is_integral() &&
             exponent.to_int() < 0),
           ErrorCode::InvalidArgument,
           "{}: integers to negative integer powers are not supported ('self' is {}, "
           "argument 'exponent' = {}); use a floating-point exponent",
           op.name, dtype_name(self.dtype()), exponent.str());
  MetaResult r = binary_scalar_meta<BinaryRule::Pow>(op, args);
  // PyTorch converts the exponent into an integral or half-precision result dtype with its
  // checked conversion (pow(i8, 300) is an error); f32 and f64 use it as a double.
  const ScalarType out = r.outputs[0].dtype;
  if (out != ScalarType::Float32 && out != ScalarType::Float64) {
    check_scalar_fits(op, "exponent", exponent, out);
  }
  return r;
}

// pow.Scalar(Scalar self, Tensor exponent): the base becomes a wrapped number; unlike the
// exponent of pow.Tensor_Scalar it is converted without a range check (PyTorch:
// pow(2**40, i8 tensor) is 0).
MetaResult pow_scalar_base_meta(const OpDef& op, std::span<IValue> args) {
  const Scalar base = args[0].scalar();
  const Tensor& exponent = tensor_arg(op, args, 1);
  ResultTypeState state;
  state.add_tensor(base.dtype(), /*dim=*/0, /*wrapped_number=*/true);
  add_to_result_type(state, exponent);
  const BinaryDtypes dt =
      binary_dtypes<BinaryRule::Pow>(op, args, base.dtype(), exponent.dtype(), state.result());
  MetaResult r;
  r.compute_dtype = dt.compute;
  request_conversion(r, args, {1});
  r.outputs.push_back(TensorMeta{exponent.sizes(), dt.out, std::nullopt});
  return r;
}

std::vector<Tensor> pow_scalar_base_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kPow = op_id("pow.Tensor_Tensor");
  const Scalar base = args[0].scalar();
  return ctx.call(kPow, {ctx.scalar_tensor(base, base.dtype()), args[1]});
}

// Decomposition of every .Scalar form: the scalar becomes a wrapped-number 0-d tensor and
// the call goes to the .Tensor form with the other arguments unchanged.
template <const char* TensorForm>
std::vector<Tensor> scalar_form_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kTensorForm = op_id(TensorForm);
  std::vector<IValue> call(args.begin(), args.end());
  const Scalar value = args[1].scalar();
  call[1] = IValue(ctx.scalar_tensor(value, value.dtype()));
  return ctx.call(kTensorForm, std::move(call));
}

// clamp(Tensor self, Scalar? min=None, Scalar? max=None): as PyTorch, a floating self keeps
// its dtype; otherwise the bounds take part in promotion as wrapped numbers.
MetaResult clamp_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  BP_CHECK(!args[1].is_none() || !args[2].is_none(), ErrorCode::InvalidArgument,
           "{}: at least one of 'min' and 'max' must be given (both are None)", op.name);
  ScalarType compute = self.dtype();
  if (!is_floating(compute)) {
    ResultTypeState state;
    add_to_result_type(state, self);
    for (size_t i : {size_t{1}, size_t{2}}) {
      if (!args[i].is_none()) state.add_tensor(args[i].scalar().dtype(), 0, true);
    }
    compute = state.result();
  }
  check_not_bool(op, "the promoted dtype of 'self', 'min' and 'max'", compute);
  for (size_t i : {size_t{1}, size_t{2}}) {
    if (!args[i].is_none()) check_scalar_fits(op, arg_name(op, i), args[i].scalar(), compute);
  }
  MetaResult r;
  r.compute_dtype = compute;
  request_conversion(r, args, {0});
  r.outputs.push_back(TensorMeta{self.sizes(), compute, std::nullopt});
  return r;
}

// clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None): the three tensors promote
// together (torch.result_type, 0-d ones with lower priority) and broadcast; unlike clamp's
// Scalar bounds, a NaN in a bound tensor gives NaN (maximum/minimum propagate it).
// torch.result_type of self and the bounds given.
ScalarType clamp_tensor_dtype(const Tensor& self, const Tensor* lo, const Tensor* hi) {
  ResultTypeState state;
  for (const Tensor* t : {&self, lo, hi})
    if (t) add_to_result_type(state, *t);
  return state.result();
}

MetaResult clamp_tensor_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const Tensor* lo = optional_tensor_arg(op, args, 1);
  const Tensor* hi = optional_tensor_arg(op, args, 2);
  BP_CHECK(lo || hi, ErrorCode::InvalidArgument,
           "{}: at least one of 'min' and 'max' must be given (both are None)", op.name);
  Shape shape = self.sizes();
  for (const Tensor* bound : {lo, hi})
    if (bound) shape = broadcast_shapes(as_ref(shape), as_ref(bound->sizes()), op.name);
  MetaResult r;
  r.compute_dtype = clamp_tensor_dtype(self, lo, hi);
  check_not_bool(op, "the promoted dtype of 'self', 'min' and 'max'", r.compute_dtype);
  r.outputs.push_back(TensorMeta{std::move(shape), r.compute_dtype, std::nullopt});
  return r;
}

// min(max(self, min), max) in the promoted dtype: a min above max gives max, as PyTorch.
std::vector<Tensor> clamp_tensor_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMaximum = op_id("maximum");
  static const OpId kMinimum = op_id("minimum");
  const ScalarType dtype =
      clamp_tensor_dtype(args[0].tensor(), optional_tensor(args[1]), optional_tensor(args[2]));
  Tensor result = convert_to(ctx, args[0].tensor(), dtype);
  if (const Tensor* lo = optional_tensor(args[1]))
    result = ctx.call1(kMaximum, {result, convert_to(ctx, *lo, dtype)});
  if (const Tensor* hi = optional_tensor(args[2]))
    result = ctx.call1(kMinimum, {result, convert_to(ctx, *hi, dtype)});
  return {result};
}

constexpr char kAddTensor[] = "add.Tensor";
constexpr char kSubTensor[] = "sub.Tensor";
constexpr char kMulTensor[] = "mul.Tensor";
constexpr char kDivTensor[] = "div.Tensor";
constexpr char kDivTensorMode[] = "div.Tensor_mode";
constexpr char kPowTensor[] = "pow.Tensor_Tensor";
constexpr char kEqTensor[] = "eq.Tensor";
constexpr char kNeTensor[] = "ne.Tensor";
constexpr char kLtTensor[] = "lt.Tensor";
constexpr char kLeTensor[] = "le.Tensor";
constexpr char kGtTensor[] = "gt.Tensor";
constexpr char kGeTensor[] = "ge.Tensor";

// A .Tensor primitive followed by its .Scalar composite.
template <BinaryRule R, const char* TensorForm>
void add_pair(Catalog& c, std::string_view tensor_schema, std::string_view scalar_schema) {
  c.add({tensor_schema, OpKind::Primitive, binary_tensor_meta<R>});
  c.add(
      {scalar_schema, OpKind::Composite, binary_scalar_meta<R>, scalar_form_decompose<TensorForm>});
}

}  // namespace

void register_binary_ops(Catalog& c) {
  using enum BinaryRule;
  add_pair<Add, kAddTensor>(c, "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                            "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  add_pair<Sub, kSubTensor>(c, "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                            "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor");
  add_pair<Mul, kMulTensor>(c, "mul.Tensor(Tensor self, Tensor other) -> Tensor",
                            "mul.Scalar(Tensor self, Scalar other) -> Tensor");
  c.add({"div.Tensor(Tensor self, Tensor other) -> Tensor", OpKind::Primitive,
         binary_tensor_meta<Div>});
  c.add({"div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
         OpKind::Primitive, binary_tensor_meta<DivMode>});
  c.add({"div.Scalar(Tensor self, Scalar other) -> Tensor", OpKind::Composite,
         binary_scalar_meta<Div>, scalar_form_decompose<kDivTensor>});
  c.add({"div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
         OpKind::Composite, binary_scalar_meta<DivMode>, scalar_form_decompose<kDivTensorMode>});
  c.add({"pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", OpKind::Primitive,
         binary_tensor_meta<Pow>});
  c.add({"pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", OpKind::Composite,
         pow_scalar_meta, scalar_form_decompose<kPowTensor>});
  c.add({"pow.Scalar(Scalar self, Tensor exponent) -> Tensor", OpKind::Composite,
         pow_scalar_base_meta, pow_scalar_base_decompose});
  c.add({"maximum(Tensor self, Tensor other) -> Tensor", OpKind::Primitive,
         binary_tensor_meta<MinMax>});
  c.add({"minimum(Tensor self, Tensor other) -> Tensor", OpKind::Primitive,
         binary_tensor_meta<MinMax>});
  add_pair<Compare, kEqTensor>(c, "eq.Tensor(Tensor self, Tensor other) -> Tensor",
                               "eq.Scalar(Tensor self, Scalar other) -> Tensor");
  add_pair<Compare, kNeTensor>(c, "ne.Tensor(Tensor self, Tensor other) -> Tensor",
                               "ne.Scalar(Tensor self, Scalar other) -> Tensor");
  add_pair<Compare, kLtTensor>(c, "lt.Tensor(Tensor self, Tensor other) -> Tensor",
                               "lt.Scalar(Tensor self, Scalar other) -> Tensor");
  add_pair<Compare, kLeTensor>(c, "le.Tensor(Tensor self, Tensor other) -> Tensor",
                               "le.Scalar(Tensor self, Scalar other) -> Tensor");
  add_pair<Compare, kGtTensor>(c, "gt.Tensor(Tensor self, Tensor other) -> Tensor",
                               "gt.Scalar(Tensor self, Scalar other) -> Tensor");
  add_pair<Compare, kGeTensor>(c, "ge.Tensor(Tensor self, Tensor other) -> Tensor",
                               "ge.Scalar(Tensor self, Scalar other) -> Tensor");
  c.add({"logical_and(Tensor self, Tensor other) -> Tensor", OpKind::Primitive,
         binary_tensor_meta<Logical>});
  c.add({"logical_or(Tensor self, Tensor other) -> Tensor", OpKind::Primitive,
         binary_tensor_meta<Logical>});
  c.add({"clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", OpKind::Primitive,
         clamp_meta});
  c.add({"clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
         OpKind::Composite, clamp_tensor_meta, clamp_tensor_decompose});
}

}  // namespace bp::ops
