// The convolution primitives on the shared kernels, core's `convolution` family
// (core/src/ops/convolution.cpp): convolution_forward, convolution_backward_input and
// convolution_backward_weight, on convolution.cl. One work item per element of the result
// sums its products in a fixed order (deterministic, no atomics). Kernels receive 4-D
// tensors and two-entry parameter lists (sdk/convolution.hpp checks them).
#include "ops_internal.hpp"

#include <backplane/sdk/convolution.hpp>

namespace bp::clk {
namespace {

constexpr const char* kConvolutionProgram = "convolution";

// convolution.cl's bp_conv, same layout: the geometry and, per role (input, weight,
// output), the strides and first-element offset in elements; the bias's when has_bias.
struct ConvArgs {
  int64_t batch, in_channels, in_h, in_w, out_channels, kernel_h, kernel_w, out_h, out_w;
  int64_t groups, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t in_stride[4], weight_stride[4], out_stride[4];
  int64_t in_offset, weight_offset, out_offset, bias_offset, bias_stride, has_bias;
};

ConvArgs conv_args(const sdk::ConvGeometry& g, const bp_tensor& input, const bp_tensor& weight,
                   const bp_tensor& output) {
  ConvArgs a{g.batch,
             g.in_channels,
             g.in_h,
             g.in_w,
             g.out_channels,
             g.kernel_h,
             g.kernel_w,
             g.out_h,
             g.out_w,
             g.groups,
             g.stride_h,
             g.stride_w,
             g.pad_h,
             g.pad_w,
             g.dilation_h,
             g.dilation_w,
             {},
             {},
             {},
             element_offset(input),
             element_offset(weight),
             element_offset(output),
             0,
             0,
             0};
  for (int d = 0; d < 4; ++d) {
    a.in_stride[d] = input.strides[d];
    a.weight_stride[d] = weight.strides[d];
    a.out_stride[d] = output.strides[d];
  }
  return a;
}

// Launches `kernel` over the `result`'s elements with the operands (result first).
void launch(const bp_call* c, const char* kernel, const bp_tensor& result, const void* first,
            const void* second, const void* bias, const ConvArgs& args) {
  ComputeDevice& device = device_for(context_of(c), result.dtype);
  const int64_t total = numel(result);
  const KernelArg kernel_args[] = {memory_arg(result.data), memory_arg(first), memory_arg(second),
                                   memory_arg(bias),        value_arg(args),   value_arg(total)};
  device.launch(device.kernel(kConvolutionProgram, variant(result.dtype), kernel), kernel_args,
                whole_groups(device, total));
}

// convolution_forward(input, weight, bias?, stride, padding, dilation, groups) -> out
bp_status forward_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &input = tensor_arg(c, 0), &weight = tensor_arg(c, 1), &out = output(c);
    const char* op = "convolution_forward";
    const sdk::ConvGeometry g = sdk::check_convolution(
        op, sdk::StridedView(&input), sdk::StridedView(&weight), sdk::StridedView(&out),
        int_list_arg(c, 3), int_list_arg(c, 4), int_list_arg(c, 5), c->args[6].u.i);
    const bp_tensor* bias = c->args[2].tag == BP_VALUE_TENSOR ? c->args[2].u.tensor : nullptr;
    const sdk::StridedView bias_view(bias ? bias : &out);
    sdk::check_convolution_bias(op, bias ? &bias_view : nullptr, g, out.dtype);
    if (numel(out) == 0) return;
    ConvArgs args = conv_args(g, input, weight, out);
    if (bias) {
      args.has_bias = 1;
      args.bias_offset = element_offset(*bias);
      args.bias_stride = bias->strides[0];
    }
    // Without a bias the kernel never reads its bias buffer; it is given the output's.
    launch(c, "convolution_forward_", out, input.data, weight.data, bias ? bias->data : out.data,
           args);
  });
}

// convolution_backward_input(grad_output, weight, input_size, stride, padding, dilation,
//     groups) -> grad_input
bp_status backward_input_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &grad = tensor_arg(c, 0), &weight = tensor_arg(c, 1), &out = output(c);
    const sdk::ConvGeometry g = sdk::check_convolution(
        "convolution_backward_input", sdk::StridedView(&out), sdk::StridedView(&weight),
        sdk::StridedView(&grad), int_list_arg(c, 3), int_list_arg(c, 4), int_list_arg(c, 5),
        c->args[6].u.i);
    if (numel(out) == 0) return;
    launch(c, "convolution_backward_input_", out, grad.data, weight.data, out.data,
           conv_args(g, out, weight, grad));
  });
}

// convolution_backward_weight(grad_output, input, weight_size, stride, padding, dilation,
//     groups) -> grad_weight
bp_status backward_weight_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &grad = tensor_arg(c, 0), &input = tensor_arg(c, 1), &out = output(c);
    const sdk::ConvGeometry g =
        sdk::check_convolution("convolution_backward_weight", sdk::StridedView(&input),
                               sdk::StridedView(&out), sdk::StridedView(&grad), int_list_arg(c, 3),
                               int_list_arg(c, 4), int_list_arg(c, 5), c->args[6].u.i);
    if (numel(out) == 0) return;
    launch(c, "convolution_backward_weight_", out, grad.data, input.data, out.data,
           conv_args(g, input, out, grad));
  });
}

}  // namespace

void register_convolution(OpRegistrar& ops) {
  ops.add("convolution_forward", kAllButBool, forward_kernel);
  ops.add("convolution_backward_input", kAllButBool, backward_input_kernel);
  ops.add("convolution_backward_weight", kAllButBool, backward_weight_kernel);
}

}  // namespace bp::clk
