// The typed operator API (ops.hpp): each function boxes its arguments in schema order and
// calls the dispatcher. The op's id is looked up once per function (a function-local
// static), so a call does no string lookup.
#include "backplane/ops.hpp"

#include "backplane/core/error.hpp"
#include "backplane/dispatch/dispatcher.hpp"
#include "backplane/tensor_api.hpp"
#include "fast_path.hpp"
#include "runtime_impl.hpp"

namespace bp {
namespace {

Tensor call1(OpId id, std::vector<IValue> args) {
  return call(id, std::move(args))[0];
}

Tensor& out1(Tensor& out, OpId id, std::vector<IValue> args) {
  Tensor* outs[] = {&out};
  call_out(id, std::move(args), outs);
  return out;
}

Tensor& inplace1(Tensor& self, OpId id, std::vector<IValue> args) {
  Tensor* outs[] = {&self};
  call_out(id, std::move(args), outs, /*in_place=*/true);
  return self;
}

// ---- elementwise ops: the fast path (fast_path.hpp) first, else the boxed call ----------
// `t` are the op's tensors and `s` its Scalars, both in schema order (tensors first).
template <size_t N, size_t S>
std::vector<IValue> boxed(const Tensor* const (&t)[N], const Scalar (&s)[S]) {
  std::vector<IValue> args;
  args.reserve(N + S);
  for (const Tensor* x : t) args.emplace_back(*x);
  for (const Scalar& x : s) args.emplace_back(x);
  return args;
}

template <size_t N, size_t S>
Tensor elementwise(detail::ElementwiseCall& op, const Tensor* const (&t)[N], const Scalar (&s)[S]) {
  Tensor result;  // one named result: returned without a move (NRVO)
  if (!op.template run<N, S>(t, s, result, /*allocate=*/true)) result = call1(op.id(), boxed(t, s));
  return result;
}
template <size_t N, size_t S>
Tensor& elementwise_out(Tensor& out, detail::ElementwiseCall& op, const Tensor* const (&t)[N],
                        const Scalar (&s)[S]) {
  if (op.template run<N, S>(t, s, out, /*allocate=*/false)) return out;
  return out1(out, op.id(), boxed(t, s));
}
// In place: `self` is t[0] and the output.
template <size_t N, size_t S>
Tensor& elementwise_(Tensor& self, detail::ElementwiseCall& op, const Tensor* const (&t)[N],
                     const Scalar (&s)[S]) {
  if (op.template run<N, S>(t, s, self, /*allocate=*/false)) return self;
  return inplace1(self, op.id(), boxed(t, s));
}

// The same without Scalars (a zero-length array cannot be a parameter).
constexpr Scalar kNoScalars[1] = {};
template <size_t N>
std::vector<IValue> boxed(const Tensor* const (&t)[N]) {
  std::vector<IValue> args;
  args.reserve(N);
  for (const Tensor* x : t) args.emplace_back(*x);
  return args;
}
template <size_t N>
Tensor elementwise(detail::ElementwiseCall& op, const Tensor* const (&t)[N]) {
  Tensor result;
  if (!op.template run<N, 0>(t, kNoScalars, result, /*allocate=*/true))
    result = call1(op.id(), boxed(t));
  return result;
}
template <size_t N>
Tensor& elementwise_out(Tensor& out, detail::ElementwiseCall& op, const Tensor* const (&t)[N]) {
  if (op.template run<N, 0>(t, kNoScalars, out, /*allocate=*/false)) return out;
  return out1(out, op.id(), boxed(t));
}
template <size_t N>
Tensor& elementwise_(Tensor& self, detail::ElementwiseCall& op, const Tensor* const (&t)[N]) {
  if (op.template run<N, 0>(t, kNoScalars, self, /*allocate=*/false)) return self;
  return inplace1(self, op.id(), boxed(t));
}

IValue dims(const OptionalIntList& d) {
  return d ? IValue(Shape(d->begin(), d->end())) : IValue();
}
IValue dims(const std::vector<int64_t>& d) {
  return IValue(Shape(d.begin(), d.end()));
}
IValue opt(const std::optional<std::string>& s) {
  return s ? IValue(*s) : IValue();
}
IValue opt(const std::optional<Tensor>& t) {
  return t ? IValue(*t) : IValue();
}

}  // namespace

#define BP_OP_ID(name)                 \
  static const OpId kOp = op_id(name); \
  (void)kOp
// An elementwise op's fast-path state (fast_path.hpp), one per typed function.
#define BP_ELEMENTWISE(name, num_tensors, num_scalars) \
  static detail::ElementwiseCall kOp(name, num_tensors, num_scalars)

// ---- data movement and factories -------------------------------------------------------
Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  BP_OP_ID("copy_");
  // Between devices the bytes move through the device APIs first; the kernel of self's
  // device then converts dtype and layout.
  Tensor source = src.device() == self.device() ? src : to(src, self.device());
  call(kOp, {self, source, non_blocking});
  return self;
}

Tensor& fill_(Tensor& self, Scalar value) {
  BP_OP_ID("fill_.Scalar");
  call(kOp, {self, value});
  return self;
}

Tensor& fill_(Tensor& self, const Tensor& value) {
  BP_OP_ID("fill_.Tensor");
  call(kOp, {self, value});
  return self;
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<ScalarType> dtype,
              std::optional<Device> device) {
  BP_OP_ID("arange.start_step");
  return call1(kOp, {start, end, step, dtype, device});
}

Tensor arange(Scalar end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), dtype, device);
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  BP_OP_ID("cat");
  return call1(kOp, {TensorList(tensors), dim});
}
Tensor& cat_out(Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  BP_OP_ID("cat");
  return out1(out, kOp, {TensorList(tensors), dim});
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  BP_OP_ID("index_select");
  return call1(kOp, {self, dim, index});
}
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  BP_OP_ID("index_select");
  return out1(out, kOp, {self, dim, index});
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  BP_OP_ID("gather");
  return call1(kOp, {self, dim, index});
}
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  BP_OP_ID("gather");
  return out1(out, kOp, {self, dim, index});
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  BP_OP_ID("where.self");
  return call1(kOp, {condition, self, other});
}
Tensor where(const Tensor& condition, Scalar self, Scalar other) {
  BP_OP_ID("where.Scalar");
  return call1(kOp, {condition, self, other});
}
Tensor where(const Tensor& condition, Scalar self, const Tensor& other) {
  BP_OP_ID("where.ScalarSelf");
  return call1(kOp, {condition, self, other});
}
Tensor where(const Tensor& condition, const Tensor& self, Scalar other) {
  BP_OP_ID("where.ScalarOther");
  return call1(kOp, {condition, self, other});
}
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other) {
  BP_OP_ID("where.self");
  return out1(out, kOp, {condition, self, other});
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  BP_OP_ID("embedding");
  return call1(kOp, {weight, indices, padding_idx});
}

// ---- elementwise unary -----------------------------------------------------------------
#define BP_DEFINE_UNARY(name, op_name)                  \
  Tensor name(const Tensor& self) {                     \
    BP_ELEMENTWISE(op_name, 1, 0);                      \
    return elementwise(kOp, {&self});                   \
  }                                                     \
  Tensor& name##_out(Tensor& out, const Tensor& self) { \
    BP_ELEMENTWISE(op_name, 1, 0);                      \
    return elementwise_out(out, kOp, {&self});          \
  }                                                     \
  Tensor& name##_(Tensor& self) {                       \
    BP_ELEMENTWISE(op_name, 1, 0);                      \
    return elementwise_(self, kOp, {&self});            \
  }
BP_DEFINE_UNARY(neg, "neg")
BP_DEFINE_UNARY(abs, "abs")
BP_DEFINE_UNARY(sign, "sign")
BP_DEFINE_UNARY(exp, "exp")
BP_DEFINE_UNARY(log, "log")
BP_DEFINE_UNARY(sqrt, "sqrt")
BP_DEFINE_UNARY(rsqrt, "rsqrt")
BP_DEFINE_UNARY(reciprocal, "reciprocal")
BP_DEFINE_UNARY(sin, "sin")
BP_DEFINE_UNARY(cos, "cos")
BP_DEFINE_UNARY(tanh, "tanh")
BP_DEFINE_UNARY(sigmoid, "sigmoid")
BP_DEFINE_UNARY(erf, "erf")
BP_DEFINE_UNARY(relu, "relu")
BP_DEFINE_UNARY(floor, "floor")
BP_DEFINE_UNARY(ceil, "ceil")
BP_DEFINE_UNARY(logical_not, "logical_not")
BP_DEFINE_UNARY(silu, "silu")
#undef BP_DEFINE_UNARY

Tensor gelu(const Tensor& self, const std::string& approximate) {
  BP_OP_ID("gelu");
  return call1(kOp, {self, approximate});
}
Tensor& gelu_out(Tensor& out, const Tensor& self, const std::string& approximate) {
  BP_OP_ID("gelu");
  return out1(out, kOp, {self, approximate});
}
Tensor& gelu_(Tensor& self, const std::string& approximate) {
  BP_OP_ID("gelu");
  return inplace1(self, kOp, {self, approximate});
}

// ---- elementwise binary ----------------------------------------------------------------
#define BP_DEFINE_ALPHA_BINARY(name, tensor_op, scalar_op)                                 \
  Tensor name(const Tensor& self, const Tensor& other, Scalar alpha) {                     \
    BP_ELEMENTWISE(tensor_op, 2, 1);                                                       \
    return elementwise(kOp, {&self, &other}, {alpha});                                     \
  }                                                                                        \
  Tensor name(const Tensor& self, Scalar other, Scalar alpha) {                            \
    BP_OP_ID(scalar_op);                                                                   \
    return call1(kOp, {self, other, alpha});                                               \
  }                                                                                        \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha) { \
    BP_ELEMENTWISE(tensor_op, 2, 1);                                                       \
    return elementwise_out(out, kOp, {&self, &other}, {alpha});                            \
  }                                                                                        \
  Tensor& name##_(Tensor& self, const Tensor& other, Scalar alpha) {                       \
    BP_ELEMENTWISE(tensor_op, 2, 1);                                                       \
    return elementwise_(self, kOp, {&self, &other}, {alpha});                              \
  }                                                                                        \
  Tensor& name##_(Tensor& self, Scalar other, Scalar alpha) {                              \
    BP_OP_ID(scalar_op);                                                                   \
    return inplace1(self, kOp, {self, other, alpha});                                      \
  }
BP_DEFINE_ALPHA_BINARY(add, "add.Tensor", "add.Scalar")
BP_DEFINE_ALPHA_BINARY(sub, "sub.Tensor", "sub.Scalar")
#undef BP_DEFINE_ALPHA_BINARY

Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    BP_ELEMENTWISE("div.Tensor", 2, 0);
    return elementwise(kOp, {&self, &other});
  }
  BP_OP_ID("div.Tensor_mode");
  return call1(kOp, {self, other, opt(rounding_mode)});
}
Tensor div(const Tensor& self, Scalar other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    BP_OP_ID("div.Scalar");
    return call1(kOp, {self, other});
  }
  BP_OP_ID("div.Scalar_mode");
  return call1(kOp, {self, other, opt(rounding_mode)});
}
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    BP_ELEMENTWISE("div.Tensor", 2, 0);
    return elementwise_out(out, kOp, {&self, &other});
  }
  BP_OP_ID("div.Tensor_mode");
  return out1(out, kOp, {self, other, opt(rounding_mode)});
}
Tensor& div_(Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    BP_ELEMENTWISE("div.Tensor", 2, 0);
    return elementwise_(self, kOp, {&self, &other});
  }
  BP_OP_ID("div.Tensor_mode");
  return inplace1(self, kOp, {self, other, opt(rounding_mode)});
}
Tensor& div_(Tensor& self, Scalar other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    BP_OP_ID("div.Scalar");
    return inplace1(self, kOp, {self, other});
  }
  BP_OP_ID("div.Scalar_mode");
  return inplace1(self, kOp, {self, other, opt(rounding_mode)});
}

#define BP_DEFINE_BINARY(name, tensor_op, scalar_op)                         \
  Tensor name(const Tensor& self, const Tensor& other) {                     \
    BP_ELEMENTWISE(tensor_op, 2, 0);                                         \
    return elementwise(kOp, {&self, &other});                                \
  }                                                                          \
  Tensor name(const Tensor& self, Scalar other) {                            \
    BP_OP_ID(scalar_op);                                                     \
    return call1(kOp, {self, other});                                        \
  }                                                                          \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) { \
    BP_ELEMENTWISE(tensor_op, 2, 0);                                         \
    return elementwise_out(out, kOp, {&self, &other});                       \
  }                                                                          \
  Tensor& name##_(Tensor& self, const Tensor& other) {                       \
    BP_ELEMENTWISE(tensor_op, 2, 0);                                         \
    return elementwise_(self, kOp, {&self, &other});                         \
  }                                                                          \
  Tensor& name##_(Tensor& self, Scalar other) {                              \
    BP_OP_ID(scalar_op);                                                     \
    return inplace1(self, kOp, {self, other});                               \
  }
BP_DEFINE_BINARY(mul, "mul.Tensor", "mul.Scalar")
BP_DEFINE_BINARY(pow, "pow.Tensor_Tensor", "pow.Tensor_Scalar")
BP_DEFINE_BINARY(eq, "eq.Tensor", "eq.Scalar")
BP_DEFINE_BINARY(ne, "ne.Tensor", "ne.Scalar")
BP_DEFINE_BINARY(lt, "lt.Tensor", "lt.Scalar")
BP_DEFINE_BINARY(le, "le.Tensor", "le.Scalar")
BP_DEFINE_BINARY(gt, "gt.Tensor", "gt.Scalar")
BP_DEFINE_BINARY(ge, "ge.Tensor", "ge.Scalar")
#undef BP_DEFINE_BINARY

#define BP_DEFINE_PLAIN_BINARY(name, op_name)                                \
  Tensor name(const Tensor& self, const Tensor& other) {                     \
    BP_OP_ID(op_name);                                                       \
    return call1(kOp, {self, other});                                        \
  }                                                                          \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) { \
    BP_OP_ID(op_name);                                                       \
    return out1(out, kOp, {self, other});                                    \
  }
BP_DEFINE_PLAIN_BINARY(matmul, "matmul")
#undef BP_DEFINE_PLAIN_BINARY

#define BP_DEFINE_ELEMENTWISE_BINARY(name, op_name)                          \
  Tensor name(const Tensor& self, const Tensor& other) {                     \
    BP_ELEMENTWISE(op_name, 2, 0);                                           \
    return elementwise(kOp, {&self, &other});                                \
  }                                                                          \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) { \
    BP_ELEMENTWISE(op_name, 2, 0);                                           \
    return elementwise_out(out, kOp, {&self, &other});                       \
  }
BP_DEFINE_ELEMENTWISE_BINARY(maximum, "maximum")
BP_DEFINE_ELEMENTWISE_BINARY(minimum, "minimum")
BP_DEFINE_ELEMENTWISE_BINARY(logical_and, "logical_and")
BP_DEFINE_ELEMENTWISE_BINARY(logical_or, "logical_or")
#undef BP_DEFINE_ELEMENTWISE_BINARY

Tensor& logical_and_(Tensor& self, const Tensor& other) {
  BP_ELEMENTWISE("logical_and", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& logical_or_(Tensor& self, const Tensor& other) {
  BP_ELEMENTWISE("logical_or", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}

Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  BP_OP_ID("clamp");
  return call1(kOp, {self, min, max});
}
Tensor& clamp_out(Tensor& out, const Tensor& self, std::optional<Scalar> min,
                  std::optional<Scalar> max) {
  BP_OP_ID("clamp");
  return out1(out, kOp, {self, min, max});
}
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  BP_OP_ID("clamp");
  return inplace1(self, kOp, {self, min, max});
}

Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max) {
  BP_OP_ID("clamp.Tensor");
  return call1(kOp, {self, min, max});
}
Tensor& clamp_out(Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                  const std::optional<Tensor>& max) {
  BP_OP_ID("clamp.Tensor");
  return out1(out, kOp, {self, min, max});
}
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  BP_OP_ID("clamp.Tensor");
  return inplace1(self, kOp, {self, min, max});
}

Tensor pow(Scalar self, const Tensor& exponent) {
  BP_OP_ID("pow.Scalar");
  return call1(kOp, {self, exponent});
}
Tensor& pow_out(Tensor& out, Scalar self, const Tensor& exponent) {
  BP_OP_ID("pow.Scalar");
  return out1(out, kOp, {self, exponent});
}

// ---- reductions --------------------------------------------------------------------------
Tensor sum(const Tensor& self, OptionalIntList dim, bool keepdim, std::optional<ScalarType> dtype) {
  BP_OP_ID("sum.dim_IntList");
  return call1(kOp, {self, dims(dim), keepdim, dtype});
}
Tensor& sum_out(Tensor& out, const Tensor& self, OptionalIntList dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  BP_OP_ID("sum.dim_IntList");
  return out1(out, kOp, {self, dims(dim), keepdim, dtype});
}
Tensor mean(const Tensor& self, OptionalIntList dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  BP_OP_ID("mean.dim");
  return call1(kOp, {self, dims(dim), keepdim, dtype});
}
Tensor& mean_out(Tensor& out, const Tensor& self, OptionalIntList dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  BP_OP_ID("mean.dim");
  return out1(out, kOp, {self, dims(dim), keepdim, dtype});
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  BP_OP_ID("prod.dim_int");
  return call1(kOp, {self, dim, keepdim, dtype});
}
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  BP_OP_ID("prod.dim_int");
  return out1(out, kOp, {self, dim, keepdim, dtype});
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  BP_OP_ID("prod");
  return call1(kOp, {self, dtype});
}
Tensor all(const Tensor& self) {
  BP_OP_ID("all");
  return call1(kOp, {self});
}
Tensor any(const Tensor& self) {
  BP_OP_ID("any");
  return call1(kOp, {self});
}

#define BP_DEFINE_LIST_REDUCTION(name, op_name)                                                 \
  Tensor name(const Tensor& self, std::vector<int64_t> dim, bool keepdim) {                     \
    BP_OP_ID(op_name);                                                                          \
    return call1(kOp, {self, dims(dim), keepdim});                                              \
  }                                                                                             \
  Tensor& name##_out(Tensor& out, const Tensor& self, std::vector<int64_t> dim, bool keepdim) { \
    BP_OP_ID(op_name);                                                                          \
    return out1(out, kOp, {self, dims(dim), keepdim});                                          \
  }
BP_DEFINE_LIST_REDUCTION(amax, "amax")
BP_DEFINE_LIST_REDUCTION(amin, "amin")
#undef BP_DEFINE_LIST_REDUCTION

#define BP_DEFINE_ARG_REDUCTION(name, op_name)                                                    \
  Tensor name(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {                     \
    BP_OP_ID(op_name);                                                                            \
    return call1(kOp, {self, dim, keepdim});                                                      \
  }                                                                                               \
  Tensor& name##_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) { \
    BP_OP_ID(op_name);                                                                            \
    return out1(out, kOp, {self, dim, keepdim});                                                  \
  }
BP_DEFINE_ARG_REDUCTION(argmax, "argmax")
BP_DEFINE_ARG_REDUCTION(argmin, "argmin")
#undef BP_DEFINE_ARG_REDUCTION

#define BP_DEFINE_BOOL_REDUCTION(name, op_name)                                    \
  Tensor name(const Tensor& self, int64_t dim, bool keepdim) {                     \
    BP_OP_ID(op_name);                                                             \
    return call1(kOp, {self, dim, keepdim});                                       \
  }                                                                                \
  Tensor& name##_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) { \
    BP_OP_ID(op_name);                                                             \
    return out1(out, kOp, {self, dim, keepdim});                                   \
  }
BP_DEFINE_BOOL_REDUCTION(all, "all.dim")
BP_DEFINE_BOOL_REDUCTION(any, "any.dim")
#undef BP_DEFINE_BOOL_REDUCTION

// ---- normalisation, linear algebra, attention -------------------------------------------
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  BP_OP_ID("softmax.int");
  return call1(kOp, {self, dim, dtype});
}
Tensor& softmax_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  BP_OP_ID("softmax.int");
  return out1(out, kOp, {self, dim, dtype});
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  BP_OP_ID("log_softmax.int");
  return call1(kOp, {self, dim, dtype});
}
Tensor& log_softmax_out(Tensor& out, const Tensor& self, int64_t dim,
                        std::optional<ScalarType> dtype) {
  BP_OP_ID("log_softmax.int");
  return out1(out, kOp, {self, dim, dtype});
}
Tensor layer_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps) {
  BP_OP_ID("layer_norm");
  return call1(kOp, {input, dims(normalized_shape), opt(weight), opt(bias), eps});
}
Tensor rms_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                const std::optional<Tensor>& weight, std::optional<double> eps) {
  BP_OP_ID("rms_norm");
  return call1(kOp, {input, dims(normalized_shape), opt(weight), eps});
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta,
             Scalar alpha) {
  BP_OP_ID("addmm");
  return call1(kOp, {self, mat1, mat2, beta, alpha});
}
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  BP_OP_ID("linear");
  return call1(kOp, {input, weight, opt(bias)});
}
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p,
                                    bool is_causal, std::optional<double> scale) {
  BP_OP_ID("scaled_dot_product_attention");
  return call1(kOp, {query, key, value, opt(attn_mask), dropout_p, is_causal, scale});
}

}  // namespace bp
