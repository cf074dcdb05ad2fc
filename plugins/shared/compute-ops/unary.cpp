// The unary ops on the shared kernels (opencl-c-kernels/elementwise.cl), core's `unary`
// family (core/src/ops/unary.cpp). The runtime has converted the input to the compute dtype.
#include "ops_internal.hpp"

#include <cstring>
#include <string>

namespace bp::clk {
namespace {

// op(Tensor self, ...) -> out: the kernel of kernel_ctx, no extra arguments.
bp_status unary_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor* tensors[] = {&output(c), &self};
    launch_elementwise(device_for(context_of(c), self.dtype), kElementwiseProgram, self.dtype,
                       table_kernel_name(c), tensors);
  });
}

// gelu(self, *, approximate='none'|'tanh') -> out.
bp_status gelu_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const char* mode = c->args[1].tag == BP_VALUE_STRING ? c->args[1].u.s : "none";
    const bool tanh_form = std::strcmp(mode, "tanh") == 0;
    if (!tanh_form && std::strcmp(mode, "none") != 0)
      throw sdk::Error(
          BP_ERR_INVALID_ARGUMENT,
          std::string("gelu: approximate must be 'none' or 'tanh', got '") + mode + "'");
    const bp_tensor* tensors[] = {&output(c), &self};
    launch_elementwise(device_for(context_of(c), self.dtype), kElementwiseProgram, self.dtype,
                       tanh_form ? "gelu_tanh" : "gelu", tensors);
  });
}

}  // namespace

void register_unary(OpRegistrar& ops) {
  static const TableEntry unary[] = {
      {"neg", "neg", kAllButBool},
      {"abs", "abs_", kAllButBool},
      {"sign", "sign_", BP_DTYPES_ALL},
      {"relu", "relu", kAllButBool},
      {"floor", "floor_", kAllButBool},
      {"ceil", "ceil_", kAllButBool},
      {"logical_not", "logical_not", BP_DTYPES_ALL},
      {"exp", "exp_", BP_DTYPES_FLOATING},
      {"log", "log_", BP_DTYPES_FLOATING},
      {"sqrt", "sqrt_", BP_DTYPES_FLOATING},
      {"rsqrt", "rsqrt_", BP_DTYPES_FLOATING},
      {"reciprocal", "reciprocal", BP_DTYPES_FLOATING},
      {"sin", "sin_", BP_DTYPES_FLOATING},
      {"cos", "cos_", BP_DTYPES_FLOATING},
      {"tanh", "tanh_", BP_DTYPES_FLOATING},
      {"sigmoid", "sigmoid", BP_DTYPES_FLOATING},
      {"erf", "erf_", BP_DTYPES_FLOATING},
  };
  for (const TableEntry& e : unary) ops.add(e.op, e.dtypes, unary_kernel, e.kernel);
  ops.add("gelu", BP_DTYPES_FLOATING, gelu_kernel);
}

}  // namespace bp::clk
