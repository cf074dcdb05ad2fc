// The typed operator API (backplane/ops.hpp): the activation gradients. Their schemas and
// meta rules are in core/src/ops/activation_backward.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, Scalar threshold) {
  static const OpId kOp = op_id("threshold_backward");
  return call1(kOp, {grad_output, self, threshold});
}
Tensor& threshold_backward_out(Tensor& out, const Tensor& grad_output, const Tensor& self,
                               Scalar threshold) {
  static const OpId kOp = op_id("threshold_backward");
  return out1(out, kOp, {grad_output, self, threshold});
}
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate) {
  static const OpId kOp = op_id("gelu_backward");
  return call1(kOp, {grad_output, self, approximate});
}
Tensor silu_backward(const Tensor& grad_output, const Tensor& self) {
  static const OpId kOp = op_id("silu_backward");
  return call1(kOp, {grad_output, self});
}
Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, Scalar min_val,
                         Scalar max_val) {
  static const OpId kOp = op_id("hardtanh_backward");
  return call1(kOp, {grad_output, self, min_val, max_val});
}
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output) {
  static const OpId kOp = op_id("sigmoid_backward");
  return call1(kOp, {grad_output, output});
}
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output) {
  static const OpId kOp = op_id("tanh_backward");
  return call1(kOp, {grad_output, output});
}

}  // namespace bp
