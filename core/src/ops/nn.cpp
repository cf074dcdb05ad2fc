// Normalisation and attention of op set v1, all composites: softmax, log_softmax,
// layer_norm, rms_norm and scaled_dot_product_attention. Each has a meta rule (what a fused
// kernel may rely on) and a decomposition into primitives; f16/bf16 inputs are computed in
// f32 and converted back once, as PyTorch's kernels do.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include "backplane/core/error.hpp"

#include <cmath>
#include <limits>
#include <string_view>

namespace bp::ops {

void check_norm_args(const OpDef& op, std::span<const IValue> args, size_t input_arg,
                     std::initializer_list<size_t> params) {
  const Tensor& input = tensor_arg(op, args, input_arg);
  const Shape& normalized = args[input_arg + 1].int_list();
  const std::string in_shape = shape_str(as_ref(input.sizes()));
  BP_CHECK(!normalized.empty(), ErrorCode::InvalidArgument,
           "{}: argument 'normalized_shape' is [], but it must name at least one dim", op.name);
  const int64_t k = static_cast<int64_t>(normalized.size());
  bool trailing = input.dim() >= k;
  for (int64_t i = 0; trailing && i < k; ++i) {
    trailing = input.size(input.dim() - k + i) == normalized[static_cast<size_t>(i)];
  }
  BP_CHECK(trailing, ErrorCode::Shape,
           "{}: argument 'normalized_shape' is {}, but 'input' has shape {}; its last {} dims "
           "must equal normalized_shape",
           op.name, shape_str(as_ref(normalized)), in_shape, k);
  BP_CHECK(is_floating(input.dtype()), ErrorCode::Type,
           "{}: argument 'input' has dtype {}, but {} needs a floating dtype", op.name,
           dtype_name(input.dtype()), op.name);
  for (size_t i : params) {
    const Tensor* param = optional_tensor_arg(op, args, i);
    if (param == nullptr) continue;
    const Tensor& p = *param;
    const std::string_view name = arg_name(op, i);
    BP_CHECK(p.sizes() == normalized, ErrorCode::Shape,
             "{}: argument '{}' has shape {}, but it must equal normalized_shape {}", op.name, name,
             shape_str(as_ref(p.sizes())), shape_str(as_ref(normalized)));
    BP_CHECK(p.dtype() == input.dtype(), ErrorCode::Type,
             "{}: argument '{}' has dtype {}, but 'input' has {}; they must match", op.name, name,
             dtype_name(p.dtype()), dtype_name(input.dtype()));
  }
}

namespace {

// ---- softmax.int / log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) ---------

// The result dtype is `dtype` when given (self is converted to it first, as PyTorch) and
// self's dtype otherwise; it must be floating.
MetaResult softmax_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  wrap_dim_arg(op, args, 1, self.dim());
  MetaResult r;
  ScalarType out = self.dtype();
  if (!args[2].is_none()) {
    out = args[2].dtype();
    BP_CHECK(is_floating(out), ErrorCode::Type,
             "{}: argument 'dtype' is {}, but {} needs a floating dtype", op.name,
             is_valid(out) ? dtype_name(out) : "undefined", op.name);
  } else {
    BP_CHECK(is_floating(out), ErrorCode::Type,
             "{}: argument 'self' has dtype {}, but {} needs a floating dtype; pass dtype=f32 "
             "(or another floating dtype) to convert it",
             op.name, dtype_name(out), op.name);
  }
  r.compute_dtype = out;
  request_conversion(r, args, {0});
  r.outputs.push_back(TensorMeta{self.sizes(), out, std::nullopt});
  return r;
}

// x - amax(x) keeps exp() in range; the rows are then normalised by their sum.
std::vector<Tensor> softmax_impl(OpContext& ctx, std::span<const IValue> args, bool log) {
  static const OpId kAmax = op_id("amax");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kExp = op_id("exp");
  static const OpId kSum = op_id("sum.dim_IntList");
  static const OpId kDiv = op_id("div.Tensor");
  static const OpId kLog = op_id("log");
  const Tensor& self = args[0].tensor();
  const ScalarType out = args[2].is_none() ? self.dtype() : args[2].dtype();
  // Rounded to the requested dtype first, as PyTorch's input.to(dtype).
  Tensor x = convert_to(ctx, self, out);
  // amax has no value for an empty dim, and there is nothing to compute.
  if (x.numel() == 0) return {ctx.empty(as_ref(x.sizes()), out)};
  x = convert_to(ctx, x, accumulate_dtype(out));
  const IValue dim_list(Shape{args[1].to_int()});
  Tensor max = ctx.call1(kAmax, {x, dim_list, true});
  Tensor shifted = ctx.call1(kSub, {x, max, Scalar(1)});
  Tensor e = ctx.call1(kExp, {shifted});
  Tensor sum = ctx.call1(kSum, {e, dim_list, true, IValue()});
  Tensor y = log ? ctx.call1(kSub, {shifted, ctx.call1(kLog, {sum}), Scalar(1)})
                 : ctx.call1(kDiv, {e, sum});
  return {convert_to(ctx, y, out)};
}

std::vector<Tensor> softmax_decompose(OpContext& ctx, std::span<const IValue> args) {
  return softmax_impl(ctx, args, /*log=*/false);
}
std::vector<Tensor> log_softmax_decompose(OpContext& ctx, std::span<const IValue> args) {
  return softmax_impl(ctx, args, /*log=*/true);
}

// ---- layer_norm / rms_norm ---------------------------------------------------------------

// layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
//            float eps=1e-05)
MetaResult layer_norm_meta(const OpDef& op, std::span<IValue> args) {
  check_norm_args(op, args, 0, {2, 3});
  const Tensor& input = args[0].tensor();
  MetaResult r;
  r.compute_dtype = input.dtype();
  r.outputs.push_back(TensorMeta{input.sizes(), input.dtype(), std::nullopt});
  return r;
}

// What layer_norm computes, in the accumulate dtype: y = (x - mean) * rstd [* weight]
// [+ bias], and the statistics native_layer_norm also returns (keepdim shapes).
struct LayerNormParts {
  Tensor y, mean, rstd;
};

// rstd = rsqrt(biased variance + eps); the variance is the mean of the squared centred
// values (two passes: no cancellation). `input` is not empty.
LayerNormParts layer_norm_parts(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMean = op_id("mean.dim");
  static const OpId kSub = op_id("sub.Tensor");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kRsqrt = op_id("rsqrt");
  const Tensor& input = args[0].tensor();
  const ScalarType acc = accumulate_dtype(input.dtype());
  const IValue dims =
      dim_range(input.dim() - static_cast<int64_t>(args[1].int_list().size()), input.dim());
  Tensor x = convert_to(ctx, input, acc);
  LayerNormParts p;
  p.mean = ctx.call1(kMean, {x, dims, true, IValue()});
  Tensor centred = ctx.call1(kSub, {x, p.mean, Scalar(1)});
  Tensor var = ctx.call1(kMean, {ctx.call1(kMul, {centred, centred}), dims, true, IValue()});
  Tensor eps = ctx.scalar_tensor(Scalar(args[4].to_double()), acc);
  p.rstd = ctx.call1(kRsqrt, {ctx.call1(kAdd, {var, eps, Scalar(1)})});
  p.y = ctx.call1(kMul, {centred, p.rstd});
  // weight/bias have input's dtype; for f16/bf16 promotion with the f32 y keeps f32.
  if (const Tensor* weight = optional_tensor(args[2])) p.y = ctx.call1(kMul, {p.y, *weight});
  if (const Tensor* bias = optional_tensor(args[3])) p.y = ctx.call1(kAdd, {p.y, *bias, Scalar(1)});
  return p;
}

std::vector<Tensor> layer_norm_decompose(OpContext& ctx, std::span<const IValue> args) {
  const Tensor& input = args[0].tensor();
  if (input.numel() == 0) return {ctx.empty(as_ref(input.sizes()), input.dtype())};
  return {convert_to(ctx, layer_norm_parts(ctx, args).y, input.dtype())};
}

// The shape of native_layer_norm's mean and rstd: input's with size 1 in the normalized dims.
Shape norm_stats_shape(const Tensor& input, size_t normalized_dims) {
  Shape s = input.sizes();
  for (size_t i = s.size() - normalized_dims; i < s.size(); ++i) s[i] = 1;
  return s;
}

// native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias,
//     float eps) -> (Tensor, Tensor, Tensor): layer_norm's result, and the mean and rstd of
// each normalized slice (input's dtype, as PyTorch's CPU kernel) for the backward.
MetaResult native_layer_norm_meta(const OpDef& op, std::span<IValue> args) {
  check_norm_args(op, args, 0, {2, 3});
  const Tensor& input = args[0].tensor();
  const Shape stats = norm_stats_shape(input, args[1].int_list().size());
  return norm_results(as_ref(input.sizes()), as_ref(stats), input.dtype());
}

std::vector<Tensor> native_layer_norm_decompose(OpContext& ctx, std::span<const IValue> args) {
  const Tensor& input = args[0].tensor();
  const ScalarType dtype = input.dtype();
  const Shape stats = norm_stats_shape(input, args[1].int_list().size());
  if (input.numel() == 0)
    return {ctx.empty(as_ref(input.sizes()), dtype), ctx.empty(as_ref(stats), dtype),
            ctx.empty(as_ref(stats), dtype)};
  const LayerNormParts p = layer_norm_parts(ctx, args);
  return {convert_to(ctx, p.y, dtype), convert_to(ctx, p.mean, dtype),
          convert_to(ctx, p.rstd, dtype)};
}

// torch.finfo(t).eps: the distance from 1 to the next representable value.
double machine_epsilon(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
      return 0.0009765625;  // 2^-10
    case ScalarType::BFloat16:
      return 0.0078125;  // 2^-7
    case ScalarType::Float32:
      return std::numeric_limits<float>::epsilon();
    default:
      return std::numeric_limits<double>::epsilon();
  }
}

// rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None)
MetaResult rms_norm_meta(const OpDef& op, std::span<IValue> args) {
  check_norm_args(op, args, 0, {2});
  const Tensor& input = args[0].tensor();
  MetaResult r;
  r.compute_dtype = input.dtype();
  r.outputs.push_back(TensorMeta{input.sizes(), input.dtype(), std::nullopt});
  // Made explicit so a fused kernel needs no table of machine epsilons.
  if (args[3].is_none()) args[3] = IValue(machine_epsilon(input.dtype()));
  return r;
}

// x * rsqrt(mean(x^2) + eps) [* weight], in f32 for f16/bf16 inputs.
std::vector<Tensor> rms_norm_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMean = op_id("mean.dim");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kRsqrt = op_id("rsqrt");
  const Tensor& input = args[0].tensor();
  const ScalarType dtype = input.dtype();
  if (input.numel() == 0) return {ctx.empty(as_ref(input.sizes()), dtype)};
  const ScalarType acc = accumulate_dtype(dtype);
  const IValue dims =
      dim_range(input.dim() - static_cast<int64_t>(args[1].int_list().size()), input.dim());
  const double eps = args[3].is_none() ? machine_epsilon(dtype) : args[3].to_double();
  Tensor x = convert_to(ctx, input, acc);
  Tensor ms = ctx.call1(kMean, {ctx.call1(kMul, {x, x}), dims, true, IValue()});
  Tensor rrms =
      ctx.call1(kRsqrt, {ctx.call1(kAdd, {ms, ctx.scalar_tensor(Scalar(eps), acc), Scalar(1)})});
  Tensor y = ctx.call1(kMul, {x, rrms});
  if (const Tensor* weight = optional_tensor(args[2])) y = ctx.call1(kMul, {y, *weight});
  return {convert_to(ctx, y, dtype)};
}

// ---- scaled_dot_product_attention ---------------------------------------------------------

Shape batch_of(const Tensor& t) {
  return Shape(t.sizes().begin(), t.sizes().end() - 2);
}

// query, key and value: at least 2 dims each, and one floating dtype.
void check_attention_operands(const OpDef& op, const Tensor& q, const Tensor& k, const Tensor& v) {
  const char* names[] = {"query", "key", "value"};
  const Tensor* qkv[] = {&q, &k, &v};
  for (int i = 0; i < 3; ++i) {
    BP_CHECK(qkv[i]->dim() >= 2, ErrorCode::Shape,
             "{}: argument '{}' has shape {}, but it must have at least 2 dims", op.name, names[i],
             shape_str(as_ref(qkv[i]->sizes())));
  }
  BP_CHECK(is_floating(q.dtype()), ErrorCode::Type,
           "{}: argument 'query' has dtype {}, but attention needs a floating dtype", op.name,
           dtype_name(q.dtype()));
  for (int i = 1; i < 3; ++i) {
    BP_CHECK(qkv[i]->dtype() == q.dtype(), ErrorCode::Type,
             "{}: argument '{}' has dtype {}, but 'query' has {}; they must match", op.name,
             names[i], dtype_name(qkv[i]->dtype()), dtype_name(q.dtype()));
  }
}

// attn_mask: bool or query's dtype, not with is_causal, and it must broadcast to the scores
// [*qk_batch, L, S] without growing them.
void check_attention_mask(const OpDef& op, const Tensor& mask, ScalarType query_dtype,
                          bool is_causal, const Shape& qk_batch, int64_t L, int64_t S) {
  BP_CHECK(mask.dtype() == ScalarType::Bool || mask.dtype() == query_dtype, ErrorCode::Type,
           "{}: argument 'attn_mask' has dtype {}, but it must be bool (True = attend) or "
           "query's dtype {} (added to the scores)",
           op.name, dtype_name(mask.dtype()), dtype_name(query_dtype));
  BP_CHECK(!is_causal, ErrorCode::InvalidArgument,
           "{}: argument 'is_causal' is True and 'attn_mask' is given; pass one of them", op.name);
  // The mask is applied to the scores in place (as PyTorch): it may not grow them.
  Shape scores = qk_batch;
  scores.push_back(L);
  scores.push_back(S);
  BP_CHECK(broadcasts_to(as_ref(mask.sizes()), as_ref(scores)), ErrorCode::Shape,
           "{}: argument 'attn_mask' has shape {}, which does not broadcast to the attention "
           "scores' shape {}",
           op.name, shape_str(as_ref(mask.sizes())), shape_str(as_ref(scores)));
}

// scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
//     float dropout_p=0.0, bool is_causal=False, *, float? scale=None)
// query [*, L, E], key [*, S, E], value [*, S, Ev] (batch dims broadcast) -> [*, L, Ev].
MetaResult sdpa_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& q = tensor_arg(op, args, 0);
  const Tensor& k = tensor_arg(op, args, 1);
  const Tensor& v = tensor_arg(op, args, 2);
  check_attention_operands(op, q, k, v);
  const std::string shapes =
      fmt::format("query {}, key {}, value {}", shape_str(as_ref(q.sizes())),
                  shape_str(as_ref(k.sizes())), shape_str(as_ref(v.sizes())));
  BP_CHECK(q.size(-1) == k.size(-1), ErrorCode::Shape,
           "{}: argument 'key' has embedding size {} in its last dim, but 'query' has {} ({})",
           op.name, k.size(-1), q.size(-1), shapes);
  BP_CHECK(k.size(-2) == v.size(-2), ErrorCode::Shape,
           "{}: argument 'value' has sequence length {} in dim -2, but 'key' has {} ({})", op.name,
           v.size(-2), k.size(-2), shapes);
  const Shape qk_batch = broadcast_shapes(as_ref(batch_of(q)), as_ref(batch_of(k)), op.name);
  Shape out = broadcast_shapes(as_ref(qk_batch), as_ref(batch_of(v)), op.name);
  const int64_t L = q.size(-2);
  const int64_t S = k.size(-2);

  if (const Tensor* mask = optional_tensor_arg(op, args, 3))
    check_attention_mask(op, *mask, q.dtype(), args[5].to_bool(), qk_batch, L, S);
  const double dropout = args[4].to_double();
  BP_CHECK(dropout == 0.0, ErrorCode::InvalidArgument,
           "{}: argument 'dropout_p' is {}, but only 0 is supported (v1 has no random "
           "dropout); apply dropout separately",
           op.name, dropout);

  out.push_back(L);
  out.push_back(v.size(-1));
  MetaResult r;
  r.compute_dtype = q.dtype();
  r.outputs.push_back(TensorMeta{std::move(out), q.dtype(), std::nullopt});
  return r;
}

// softmax(q @ k^T * scale [+ mask | masked with -inf]) @ v, in f32 for f16/bf16.
std::vector<Tensor> sdpa_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMatmul = op_id("matmul");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  static const OpId kWhere = op_id("where.self");
  static const OpId kArange = op_id("arange.start_step");
  static const OpId kGe = op_id("ge.Tensor");
  static const OpId kSoftmax = op_id("softmax.int");
  const Tensor& query = args[0].tensor();
  const ScalarType dtype = query.dtype();
  const ScalarType acc = accumulate_dtype(dtype);
  const Tensor q = convert_to(ctx, query, acc);
  const Tensor k = convert_to(ctx, args[1].tensor(), acc);
  const Tensor v = convert_to(ctx, args[2].tensor(), acc);
  const int64_t L = q.size(-2);
  const int64_t S = k.size(-2);
  const double scale =
      args[6].is_none() ? 1.0 / std::sqrt(static_cast<double>(q.size(-1))) : args[6].to_double();

  Tensor scores = ctx.call1(kMatmul, {q, k.transpose(-2, -1)});
  scores = ctx.call1(kMul, {scores, ctx.scalar_tensor(Scalar(scale), acc)});
  const IValue neg_inf = ctx.scalar_tensor(Scalar(-std::numeric_limits<double>::infinity()), acc);
  if (const Tensor* m = optional_tensor(args[3])) {
    const Tensor& mask = *m;
    scores = mask.dtype() == ScalarType::Bool ? ctx.call1(kWhere, {mask, scores, neg_inf})
                                              : ctx.call1(kAdd, {scores, mask, Scalar(1)});
  } else if (args[5].to_bool()) {
    // Query i attends keys j <= i (the lower triangle, aligned to the top-left corner).
    const IValue device(query.device());
    Tensor rows = ctx.call1(kArange, {Scalar(0), Scalar(L), Scalar(1), ScalarType::Int64, device});
    Tensor cols = ctx.call1(kArange, {Scalar(0), Scalar(S), Scalar(1), ScalarType::Int64, device});
    Tensor causal = ctx.call1(kGe, {rows.view({L, 1}), cols.view({1, S})});
    scores = ctx.call1(kWhere, {causal, scores, neg_inf});
  }
  Tensor probs = ctx.call1(kSoftmax, {scores, int64_t{-1}, IValue()});
  return {convert_to(ctx, ctx.call1(kMatmul, {probs, v}), dtype)};
}

}  // namespace

void register_nn_ops(Catalog& c) {
  using K = OpKind;
  c.add({"softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", K::Composite,
         softmax_meta, softmax_decompose});
  c.add({"log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", K::Composite,
         softmax_meta, log_softmax_decompose});
  c.add(
      {"layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
       "Tensor? bias=None, float eps=1e-05) -> Tensor",
       K::Composite, layer_norm_meta, layer_norm_decompose});
  c.add(
      {"native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, "
       "float eps) -> (Tensor, Tensor, Tensor)",
       K::Composite, native_layer_norm_meta, native_layer_norm_decompose});
  c.add(
      {"rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, "
       "float? eps=None) -> Tensor",
       K::Composite, rms_norm_meta, rms_norm_decompose});
  c.add(
      {"scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, "
       "Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, "
       "float? scale=None) -> Tensor",
       K::Composite, sdpa_meta, sdpa_decompose});
}

}  // namespace bp::ops
