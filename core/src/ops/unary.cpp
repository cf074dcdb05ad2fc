// Elementwise unary ops: the primitives neg ... logical_not and gelu, and silu (composite:
// mul(x, sigmoid(x))). Output shape = input shape; the dtype rules are PyTorch's:
//   - exp log sqrt rsqrt reciprocal sin cos tanh sigmoid erf: integral and bool inputs are
//     computed in the default float dtype (the input is converted), floats keep their dtype;
//   - neg abs relu floor ceil: same dtype, bool refused (floor/ceil of ints is a copy);
//   - sign: same dtype, any; logical_not: any dtype in, bool out, no conversion;
//   - gelu silu: floating-point only.
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

enum class UnaryRule {
  FloatCompute,  // ints and bool computed in the default float dtype
  SameNoBool,    // same dtype; bool is an error
  Same,          // same dtype, every dtype
  ToBool,        // any dtype in, bool out
  FloatingOnly,  // floating-point dtypes only
};

template <UnaryRule R>
MetaResult unary_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  const ScalarType in = self.dtype();
  MetaResult r;
  r.compute_dtype = in;
  ScalarType out = in;
  if constexpr (R == UnaryRule::FloatCompute) {
    if (!is_floating(in)) r.compute_dtype = out = kDefaultFloat;
  } else if constexpr (R == UnaryRule::SameNoBool) {
    check_not_bool(op, "input 'self'", in);
  } else if constexpr (R == UnaryRule::ToBool) {
    out = ScalarType::Bool;
  } else if constexpr (R == UnaryRule::FloatingOnly) {
    check_floating(op, "input 'self'", in);
  }
  request_conversion(r, args, {0});
  r.outputs.push_back(TensorMeta{self.sizes(), out, std::nullopt});
  return r;
}

// neg of a bool is refused with PyTorch's advice.
MetaResult neg_meta(const OpDef& op, std::span<IValue> args) {
  check_not_bool(op, "input 'self'", tensor_arg(op, args, 0).dtype(),
                 "to invert a mask use logical_not() (or ~)");
  return unary_meta<UnaryRule::Same>(op, args);
}

// gelu(Tensor self, *, str approximate='none')
MetaResult gelu_meta(const OpDef& op, std::span<IValue> args) {
  const std::string& approximate = args[1].string();
  BP_CHECK(approximate == "none" || approximate == "tanh", ErrorCode::InvalidArgument,
           "{}: argument 'approximate' must be 'none' or 'tanh', got '{}'", op.name, approximate);
  return unary_meta<UnaryRule::FloatingOnly>(op, args);
}

// silu(x) = x * sigmoid(x)
std::vector<Tensor> silu_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kSigmoid = op_id("sigmoid");
  static const OpId kMul = op_id("mul.Tensor");
  const Tensor& x = args[0].tensor();
  const Tensor s = ctx.call1(kSigmoid, {x});
  return ctx.call(kMul, {x, s});
}

}  // namespace

void register_unary_ops(Catalog& c) {
  using enum UnaryRule;
  struct Entry {
    const char* schema;
    MetaFn meta;
  };
  static constexpr Entry kPrimitives[] = {
      {"neg(Tensor self) -> Tensor", neg_meta},
      {"abs(Tensor self) -> Tensor", unary_meta<SameNoBool>},
      {"sign(Tensor self) -> Tensor", unary_meta<Same>},
      {"exp(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"log(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"sqrt(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"rsqrt(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"reciprocal(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"sin(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"cos(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"tanh(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"sigmoid(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"erf(Tensor self) -> Tensor", unary_meta<FloatCompute>},
      {"relu(Tensor self) -> Tensor", unary_meta<SameNoBool>},
      {"floor(Tensor self) -> Tensor", unary_meta<SameNoBool>},
      {"ceil(Tensor self) -> Tensor", unary_meta<SameNoBool>},
      {"logical_not(Tensor self) -> Tensor", unary_meta<ToBool>},
      {"gelu(Tensor self, *, str approximate='none') -> Tensor", gelu_meta},
  };
  for (const Entry& e : kPrimitives) c.add({e.schema, OpKind::Primitive, e.meta});
  c.add(
      {"silu(Tensor self) -> Tensor", OpKind::Composite, unary_meta<FloatingOnly>, silu_decompose});
}

}  // namespace bp::ops
