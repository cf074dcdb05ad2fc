// The negative log-likelihood loss, its gradient, and cross-entropy over it (loss.cpp says
// how the losses are written). With N rows of C classes (a 1-D `self` is one row and its
// target 0-d), w[i] = weight[target[i]] (1 without a weight, 0 where target[i] is
// ignore_index):
//   nll_loss_forward   none: -self[i, target[i]] * w[i] per row (0 for an ignored row);
//                      sum: their sum; mean: their sum / sum(w) (NaN when every row is
//                      ignored); total_weight = sum(w) (0 for none)
//   nll_loss_backward  -w[i] * grad at [i, target[i]] (grad / total_weight for mean), 0
//                      elsewhere
// A target outside [0, C) that is not ignore_index is an index error raised by gather (the
// composite cannot read the target's values without a device round trip).
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

// self [N, C] or [C] (floating), target [N] or [] (i64), weight None or [C] of self's dtype.
void check_nll_args(const OpDef& op, std::span<const IValue> args, size_t self_i) {
  const Tensor& self = tensor_arg(op, args, self_i);
  const Tensor& target = tensor_arg(op, args, self_i + 1);
  BP_CHECK(self.dim() == 1 || self.dim() == 2, ErrorCode::Shape,
           "{}: argument 'self' has {} dims, but it must have 1 (one row of classes) or 2 "
           "(rows, classes)",
           op.name, self.dim());
  check_floating(op, "input 'self'", self.dtype());
  BP_CHECK(target.dtype() == ScalarType::Int64, ErrorCode::Type,
           "{}: argument 'target' has dtype {}, but it must be i64 (class indices)", op.name,
           dtype_name(target.dtype()));
  const bool rows_match =
      self.dim() == 1 ? target.dim() == 0 : target.dim() == 1 && target.size(0) == self.size(0);
  BP_CHECK(rows_match, ErrorCode::Shape,
           "{}: 'self' has shape {}, 'target' {}; a target needs one class index per row of "
           "'self' (a 0-d target for a 1-D self)",
           op.name, shape_str(as_ref(self.sizes())), shape_str(as_ref(target.sizes())));
  if (const Tensor* weight = optional_tensor_arg(op, args, self_i + 2)) {
    const int64_t classes = self.size(-1);
    BP_CHECK(weight->dim() == 1 && weight->size(0) == classes, ErrorCode::Shape,
             "{}: argument 'weight' has shape {}, but it must have one value per class [{}]",
             op.name, shape_str(as_ref(weight->sizes())), classes);
    BP_CHECK(weight->dtype() == self.dtype(), ErrorCode::Type,
             "{}: argument 'weight' has dtype {}, but 'self' has {}; they must match", op.name,
             dtype_name(weight->dtype()), dtype_name(self.dtype()));
  }
}

// nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction,
//                  int ignore_index) -> (Tensor output, Tensor total_weight)
MetaResult nll_loss_forward_meta(const OpDef& op, std::span<IValue> args) {
  check_nll_args(op, args, 0);
  const Tensor& self = args[0].tensor();
  const bool per_row = check_reduction_arg(op, args, 3) == kReductionNone && self.dim() == 2;
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(
      TensorMeta{per_row ? Shape{self.size(0)} : Shape{}, self.dtype(), std::nullopt});
  r.outputs.push_back(TensorMeta{Shape{}, self.dtype(), std::nullopt});
  return r;
}

// What both directions compute per row, in the accumulate dtype: `valid` (bool [N]),
// `target` with ignored rows set to class 0 (i64 [N], safe to index with) and w (masked).
struct PickedRows {
  Tensor self;  // [N, C], accumulate dtype
  Tensor valid;
  Tensor target;
  Tensor weight;
};

PickedRows pick_rows(OpContext& ctx, const Tensor& self, const Tensor& target,
                     const IValue& weight_arg, int64_t ignore_index) {
  static const OpId kNe = op_id("ne.Scalar");
  static const OpId kWhereScalarOther = op_id("where.ScalarOther");
  static const OpId kIndexSelect = op_id("index_select");
  const ScalarType acc = accumulate_dtype(self.dtype());
  const int64_t classes = self.size(-1);
  const int64_t rows = self.dim() == 2 ? self.size(0) : 1;
  PickedRows p;
  p.self = convert_to(ctx, self.view({rows, classes}), acc);
  const Tensor t = target.view({rows});
  p.valid = ctx.call1(kNe, {t, Scalar(ignore_index)});
  p.target = ctx.call1(kWhereScalarOther, {p.valid, t, Scalar(int64_t{0})});
  if (const Tensor* weight = optional_tensor(weight_arg)) {
    const Tensor picked =
        ctx.call1(kIndexSelect, {convert_to(ctx, *weight, acc), int64_t{0}, p.target});
    p.weight = ctx.call1(kWhereScalarOther, {p.valid, picked, Scalar(0.0)});
  } else {
    p.weight = convert_to(ctx, p.valid, acc);  // 1 for a counted row, 0 for an ignored one
  }
  return p;
}

std::vector<Tensor> nll_loss_forward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kGather = op_id("gather");
  static const OpId kNeg = op_id("neg");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kWhereScalarOther = op_id("where.ScalarOther");
  static const OpId kSum = op_id("sum.dim_IntList");
  static const OpId kDiv = op_id("div.Tensor");
  static const OpId kFill = op_id("fill_.Scalar");
  const Tensor& self = args[0].tensor();
  const ScalarType dtype = self.dtype();
  const int64_t reduction = args[3].to_int();
  const PickedRows p = pick_rows(ctx, self, args[1].tensor(), args[2], args[4].to_int());
  const int64_t rows = p.target.size(0);
  const Tensor picked =
      ctx.call1(kGather, {p.self, int64_t{1}, p.target.view({rows, 1})}).view({rows});
  // -self * w, and 0 for an ignored row even where self is infinite.
  Tensor losses = ctx.call1(kMul, {ctx.call1(kNeg, {picked}), p.weight});
  losses = ctx.call1(kWhereScalarOther, {p.valid, losses, Scalar(0.0)});
  // PyTorch 1.13 leaves total_weight 0 for unreduced rows, but sums it for a 1-D self.
  Tensor total;
  if (reduction == kReductionNone && self.dim() == 2) {
    total = ctx.empty({}, p.weight.dtype());
    ctx.call(kFill, {total, Scalar(0.0)});
  } else {
    total = ctx.call1(kSum, {p.weight, IValue(), false, IValue()});
  }
  if (reduction == kReductionNone) {
    const Tensor out = self.dim() == 2 ? losses : losses.view({});
    return {convert_to(ctx, out, dtype), convert_to(ctx, total, dtype)};
  }
  Tensor loss = ctx.call1(kSum, {losses, IValue(), false, IValue()});
  if (reduction == kReductionMean) loss = ctx.call1(kDiv, {loss, total});
  return {convert_to(ctx, loss, dtype), convert_to(ctx, total, dtype)};
}

// nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight,
//     int reduction, int ignore_index, Tensor total_weight) -> Tensor (self's shape)
MetaResult nll_loss_backward_meta(const OpDef& op, std::span<IValue> args) {
  check_nll_args(op, args, 1);
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& self = args[1].tensor();
  const Tensor& total = tensor_arg(op, args, 6);
  const bool per_row = check_reduction_arg(op, args, 4) == kReductionNone && self.dim() == 2;
  const Shape expected = per_row ? Shape{self.size(0)} : Shape{};
  BP_CHECK(grad.sizes() == expected, ErrorCode::Shape,
           "{}: argument 'grad_output' has shape {}, but the loss it is the gradient of has "
           "shape {}",
           op.name, shape_str(as_ref(grad.sizes())), shape_str(as_ref(expected)));
  BP_CHECK(total.numel() == 1, ErrorCode::Shape,
           "{}: argument 'total_weight' has shape {}, but it must hold one value", op.name,
           shape_str(as_ref(total.sizes())));
  MetaResult r;
  r.compute_dtype = self.dtype();
  request_conversion(r, args, {0, 6});
  r.outputs.push_back(TensorMeta{self.sizes(), self.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> nll_loss_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kDiv = op_id("div.Tensor");
  static const OpId kNeg = op_id("neg");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kArange = op_id("arange.start_step");
  static const OpId kEq = op_id("eq.Tensor");
  static const OpId kAnd = op_id("logical_and");
  static const OpId kWhereScalarOther = op_id("where.ScalarOther");
  const Tensor& self = args[1].tensor();
  const ScalarType acc = accumulate_dtype(self.dtype());
  const PickedRows p = pick_rows(ctx, self, args[2].tensor(), args[3], args[5].to_int());
  const int64_t rows = p.self.size(0), classes = p.self.size(1);
  Tensor grad = convert_to(ctx, args[0].tensor(), acc);
  if (args[4].to_int() == kReductionNone) {
    grad = grad.view({rows});
  } else if (args[4].to_int() == kReductionMean) {
    grad = ctx.call1(kDiv, {grad, convert_to(ctx, args[6].tensor(), acc).view({})});
  }
  const Tensor values = ctx.call1(kMul, {ctx.call1(kNeg, {grad}), p.weight}).view({rows, 1});
  const Tensor class_ids = ctx.call1(
      kArange, {Scalar(0), Scalar(classes), Scalar(1), ScalarType::Int64, IValue(self.device())});
  Tensor hit = ctx.call1(kEq, {class_ids.view({1, classes}), p.target.view({rows, 1})});
  hit = ctx.call1(kAnd, {hit, p.valid.view({rows, 1})});
  const Tensor grad_input = ctx.call1(kWhereScalarOther, {hit, values, Scalar(0.0)});
  return {convert_to(ctx, grad_input.view(as_ref(self.sizes())), self.dtype())};
}

// nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1,
//          int ignore_index=-100): nll_loss_forward's loss.
MetaResult nll_loss_meta(const OpDef& op, std::span<IValue> args) {
  MetaResult r = nll_loss_forward_meta(op, args);
  r.outputs.resize(1);
  return r;
}

std::vector<Tensor> nll_loss_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kForward = op_id("nll_loss_forward");
  return {ctx.call(kForward, std::vector<IValue>(args.begin(), args.end())).at(0)};
}

// cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1,
//     int ignore_index=-100, float label_smoothing=0.0): nll_loss of log_softmax over the
// class dim. Class-index targets only, without label smoothing.
MetaResult cross_entropy_meta(const OpDef& op, std::span<IValue> args) {
  const double smoothing = args[5].to_double();
  BP_CHECK(smoothing == 0.0, ErrorCode::InvalidArgument,
           "{}: argument 'label_smoothing' is {}, but only 0.0 is supported; smooth the "
           "targets with one_hot and use a probability loss instead",
           op.name, smoothing);
  return nll_loss_meta(op, args);
}

std::vector<Tensor> cross_entropy_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kLogSoftmax = op_id("log_softmax.int");
  static const OpId kForward = op_id("nll_loss_forward");
  const Tensor& self = args[0].tensor();
  const int64_t class_dim = self.dim() == 2 ? 1 : 0;
  const Tensor log_probs = ctx.call1(kLogSoftmax, {self, class_dim, IValue()});
  return {ctx.call(kForward, {log_probs, args[1], args[2], args[3], args[4]}).at(0)};
}

}  // namespace

void register_nll_loss_ops(Catalog& c) {
  using K = OpKind;
  c.add(
      {"nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, "
       "int ignore_index) -> (Tensor output, Tensor total_weight)",
       K::Composite, nll_loss_forward_meta, nll_loss_forward_decompose});
  c.add(
      {"nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, "
       "int reduction, int ignore_index, Tensor total_weight) -> Tensor",
       K::Composite, nll_loss_backward_meta, nll_loss_backward_decompose});
  c.add(
      {"nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
       "int ignore_index=-100) -> Tensor",
       K::Composite, nll_loss_meta, nll_loss_decompose});
  c.add(
      {"cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
       "int ignore_index=-100, float label_smoothing=0.0) -> Tensor",
       K::Composite, cross_entropy_meta, cross_entropy_decompose});
}

}  // namespace bp::ops
