// The gradients of the elementwise activations, as PyTorch's autograd calls them: the
// primitives threshold_backward (relu's gradient), gelu_backward (both approximations),
// silu_backward, sigmoid_backward and tanh_backward. Each takes the gradient of the output
// and one tensor of the forward call (its input `self`, or for sigmoid and tanh its
// `output`), broadcast together with PyTorch's type promotion, and returns the gradient of
// the input in the promoted dtype:
//   threshold_backward  self <= threshold ? 0 : grad          (every dtype but bool)
//   gelu_backward       grad * d/dx gelu(x)                   (floating only)
//   silu_backward       grad * s * (1 + x * (1 - s)), s = sigmoid(x)
//   sigmoid_backward    grad * (1 - y) * y
//   tanh_backward       grad * (1 - y * y)
// docs/training.md lists them with the rest of the training op set.
#include "meta_util.hpp"
#include "register.hpp"

namespace bp::ops {
namespace {

enum class GradientRule {
  AnyButBool,    // threshold_backward: the threshold must fit the promoted dtype
  FloatingOnly,  // the rest: PyTorch defines them for floating dtypes only
};

// op(Tensor grad_output, Tensor self_or_output, ...): the two tensors broadcast to the
// output's shape and are converted to their promoted dtype, which is the output's.
template <GradientRule R>
MetaResult gradient_meta(const OpDef& op, std::span<IValue> args) {
  tensor_arg(op, args, 0);
  tensor_arg(op, args, 1);
  const ScalarType promoted = result_type(op, args, {0, 1});
  // The message's subject is built only for a call that fails (meta rules run per call).
  auto subject = [&] {
    return fmt::format("the promoted dtype of 'grad_output' and '{}'", arg_name(op, 1));
  };
  if constexpr (R == GradientRule::AnyButBool) {
    if (promoted == ScalarType::Bool) check_not_bool(op, subject(), promoted);
    check_scalar_fits(op, "threshold", args[2].scalar(), promoted);
  } else {
    if (!is_floating(promoted)) check_floating(op, subject(), promoted);
  }
  Shape shape = broadcast_args(op, args, {0, 1});
  expand_args(args, {0, 1}, as_ref(shape));
  MetaResult r;
  r.compute_dtype = promoted;
  request_conversion(r, args, {0, 1});
  r.outputs.push_back(TensorMeta{std::move(shape), promoted, std::nullopt});
  return r;
}

// gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none')
MetaResult gelu_backward_meta(const OpDef& op, std::span<IValue> args) {
  const std::string& approximate = args[2].string();
  BP_CHECK(approximate == "none" || approximate == "tanh", ErrorCode::InvalidArgument,
           "{}: argument 'approximate' must be 'none' or 'tanh', got '{}'", op.name, approximate);
  return gradient_meta<GradientRule::FloatingOnly>(op, args);
}

}  // namespace

void register_activation_backward_ops(Catalog& c) {
  using enum GradientRule;
  struct Entry {
    const char* schema;
    MetaFn meta;
  };
  static constexpr Entry kPrimitives[] = {
      {"threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
       gradient_meta<AnyButBool>},
      {"gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
       gelu_backward_meta},
      {"silu_backward(Tensor grad_output, Tensor self) -> Tensor", gradient_meta<FloatingOnly>},
      {"sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor",
       gradient_meta<FloatingOnly>},
      {"tanh_backward(Tensor grad_output, Tensor output) -> Tensor", gradient_meta<FloatingOnly>},
  };
  for (const Entry& e : kPrimitives) c.add({e.schema, OpKind::Primitive, e.meta});
}

}  // namespace bp::ops
