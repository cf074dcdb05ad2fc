// The binary ops on the shared kernels (opencl-c-kernels/elementwise.cl), core's `binary`
// family (core/src/ops/binary.cpp): arithmetic with alpha and rounding modes, comparisons,
// logical ops and clamp. The runtime has expanded the inputs to the output's shape and
// converted them to the compute dtype.
#include "ops_internal.hpp"

#include <cstring>
#include <string>

namespace bp::clk {
namespace {

// op(Tensor self, Tensor other, ...) -> out.
bp_status binary_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor* tensors[] = {&output(c), &self, &tensor_arg(c, 1)};
    launch_elementwise(device_for(context_of(c), self.dtype), kElementwiseProgram, self.dtype,
                       table_kernel_name(c), tensors);
  });
}

// add.Tensor / sub.Tensor(self, other, *, alpha=1) -> out.
bp_status add_sub_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor* tensors[] = {&output(c), &self, &tensor_arg(c, 1)};
    const ScalarValue alpha = c->args[2].tag == BP_VALUE_NONE
                                  ? int_value(self.dtype, 1)
                                  : scalar_value(self.dtype, sdk::Scalar(c->args[2]));
    const KernelArg extra[] = {alpha.arg()};
    launch_elementwise(device_for(context_of(c), self.dtype), kElementwiseProgram, self.dtype,
                       table_kernel_name(c), tensors, extra);
  });
}

// div.Tensor_mode(self, other, *, rounding_mode) -> out. Integer division checks for a zero
// divisor first (PyTorch's ZeroDivisionError), before anything is written.
bp_status div_mode_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor& other = tensor_arg(c, 1);
    const bp_value& mode_v = c->args[2];
    const char* mode = mode_v.tag == BP_VALUE_STRING ? mode_v.u.s : nullptr;
    const char* kernel;  // in elementwise.cl
    if (!mode)
      kernel = "div_";
    else if (std::strcmp(mode, "trunc") == 0)
      kernel = "div_trunc";
    else if (std::strcmp(mode, "floor") == 0)
      kernel = "div_floor";
    else
      throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                       std::string(c->op_name) +
                           ": expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                           "found '" +
                           mode + "'");
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    if (!sdk::is_floating(self.dtype)) {
      if (!mode)
        throw sdk::Error(BP_ERR_UNSUPPORTED, std::string(c->op_name) +
                                                 ": true division of integers reaches kernels "
                                                 "promoted to a floating dtype");
      if (has_zero(device, other))
        throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                         std::string(c->op_name) +
                             ": ZeroDivisionError: integer division by zero (argument 'other' "
                             "contains 0, rounding_mode='" +
                             mode + "', dtype " + sdk::dtype_name(self.dtype) + ")");
    }
    const bp_tensor* tensors[] = {&output(c), &self, &other};
    launch_elementwise(device, kElementwiseProgram, self.dtype, kernel, tensors);
  });
}

// clamp(self, Scalar? min, Scalar? max) -> out.
bp_status clamp_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bool has_lo = c->args[1].tag != BP_VALUE_NONE;
    const bool has_hi = c->args[2].tag != BP_VALUE_NONE;
    if (!has_lo && !has_hi)
      throw sdk::Error(
          BP_ERR_INVALID_ARGUMENT,
          std::string(c->op_name) + ": at least one of 'min' or 'max' must not be None");
    const ScalarValue lo =
        has_lo ? scalar_value(self.dtype, sdk::Scalar(c->args[1])) : int_value(self.dtype, 0);
    const ScalarValue hi =
        has_hi ? scalar_value(self.dtype, sdk::Scalar(c->args[2])) : int_value(self.dtype, 0);
    const int32_t lo_flag = has_lo, hi_flag = has_hi;
    const KernelArg extra[] = {lo.arg(), hi.arg(), value_arg(lo_flag), value_arg(hi_flag)};
    const bp_tensor* tensors[] = {&output(c), &self};
    launch_elementwise(device_for(context_of(c), self.dtype), kElementwiseProgram, self.dtype,
                       "clamp_", tensors, extra);
  });
}

}  // namespace

bool has_zero(ComputeDevice& device, const bp_tensor& t) {
  if (numel(t) == 0) return false;
  DeviceBuffer status(device, sizeof(int32_t));
  const int32_t zero = 0;
  device.write(status.address(), &zero, sizeof zero);
  // The flag as a first "operand" of t's shape that every element maps to (strides 0).
  const int64_t strides[64] = {};
  bp_tensor flag = t;
  flag.data = status.address();
  flag.byte_offset = 0;
  flag.dtype = BP_DTYPE_I32;
  flag.strides = strides;
  const bp_tensor* tensors[] = {&flag, &t};
  launch_elementwise(device, kElementwiseProgram, t.dtype, "any_zero", tensors);
  int32_t found = 0;
  device.read(&found, status.address(), sizeof found);
  return found != 0;
}

void register_binary(OpRegistrar& ops) {
  static const TableEntry binary[] = {
      {"mul.Tensor", "mul", BP_DTYPES_ALL},        {"div.Tensor", "div_", BP_DTYPES_FLOATING},
      {"pow.Tensor_Tensor", "pow_", kAllButBool},  {"maximum", "maximum", BP_DTYPES_ALL},
      {"minimum", "minimum", BP_DTYPES_ALL},       {"eq.Tensor", "eq", BP_DTYPES_ALL},
      {"ne.Tensor", "ne", BP_DTYPES_ALL},          {"lt.Tensor", "lt", BP_DTYPES_ALL},
      {"le.Tensor", "le", BP_DTYPES_ALL},          {"gt.Tensor", "gt", BP_DTYPES_ALL},
      {"ge.Tensor", "ge", BP_DTYPES_ALL},          {"logical_and", "logical_and", BP_DTYPES_ALL},
      {"logical_or", "logical_or", BP_DTYPES_ALL},
  };
  for (const TableEntry& e : binary) ops.add(e.op, e.dtypes, binary_kernel, e.kernel);
  ops.add("add.Tensor", BP_DTYPES_ALL, add_sub_kernel, "add");
  ops.add("sub.Tensor", kAllButBool, add_sub_kernel, "sub");
  ops.add("div.Tensor_mode", kAllButBool, div_mode_kernel);
  ops.add("clamp", kAllButBool, clamp_kernel);
}

}  // namespace bp::clk
