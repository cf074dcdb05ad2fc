// The activation gradients on the shared kernels (opencl-c-kernels/elementwise.cl), core's
// `activation_backward` family (core/src/ops/activation_backward.cpp): threshold_backward,
// gelu_backward (both forms), silu_backward, sigmoid_backward, tanh_backward. The runtime
// has expanded grad_output and the forward tensor to the output's shape and converted both
// to the compute dtype.
#include "ops_internal.hpp"

#include <cstring>
#include <string>

namespace bp::clk {
namespace {

// op(Tensor grad_output, Tensor x) -> out: the kernel of kernel_ctx.
bp_status gradient_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& grad = tensor_arg(c, 0);
    const bp_tensor* tensors[] = {&output(c), &grad, &tensor_arg(c, 1)};
    launch_elementwise(device_for(context_of(c), grad.dtype), kElementwiseProgram, grad.dtype,
                       table_kernel_name(c), tensors);
  });
}

// threshold_backward(grad_output, self, Scalar threshold) -> out: the threshold takes the
// compute dtype's value first (the meta rule checked that it fits).
bp_status threshold_backward_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& grad = tensor_arg(c, 0);
    const ScalarValue threshold = scalar_value(grad.dtype, sdk::Scalar(c->args[2]));
    const KernelArg extra[] = {threshold.arg()};
    const bp_tensor* tensors[] = {&output(c), &grad, &tensor_arg(c, 1)};
    launch_elementwise(device_for(context_of(c), grad.dtype), kElementwiseProgram, grad.dtype,
                       "threshold_backward", tensors, extra);
  });
}

// gelu_backward(grad_output, self, *, approximate='none'|'tanh') -> out.
bp_status gelu_backward_kernel(const bp_call* c) {
  return guarded([&] {
    const char* mode = c->args[2].tag == BP_VALUE_STRING ? c->args[2].u.s : "none";
    const bool tanh_form = std::strcmp(mode, "tanh") == 0;
    if (!tanh_form && std::strcmp(mode, "none") != 0)
      throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                       std::string(c->op_name) +
                           ": argument 'approximate' must be 'none' or 'tanh', got '" + mode + "'");
    const bp_tensor& grad = tensor_arg(c, 0);
    const bp_tensor* tensors[] = {&output(c), &grad, &tensor_arg(c, 1)};
    launch_elementwise(device_for(context_of(c), grad.dtype), kElementwiseProgram, grad.dtype,
                       tanh_form ? "gelu_tanh_backward" : "gelu_backward", tensors);
  });
}

}  // namespace

void register_activation_backward(OpRegistrar& ops) {
  static const TableEntry gradients[] = {
      {"silu_backward", "silu_backward", BP_DTYPES_FLOATING},
      {"sigmoid_backward", "sigmoid_backward", BP_DTYPES_FLOATING},
      {"tanh_backward", "tanh_backward", BP_DTYPES_FLOATING},
  };
  for (const TableEntry& e : gradients) ops.add(e.op, e.dtypes, gradient_kernel, e.kernel);
  ops.add("threshold_backward", kAllButBool, threshold_backward_kernel);
  ops.add("gelu_backward", BP_DTYPES_FLOATING, gelu_backward_kernel);
}

}  // namespace bp::clk
