// Convolution on PyTorch's CPU kernels, until Backplane has a convolution op (op set v2).
// PyTorch 1.13 sends a convolution on a device other than CPU/CUDA/MKLDNN to
// convolution_overrideable (and its backward to convolution_backward_overrideable), whose
// default kernel only raises, so the generic boxed CPU fallback cannot run them: it would
// call the same raising kernel with CPU tensors. These two kernels copy the operands to the
// host, run at::convolution / at::convolution_backward there and copy the results back,
// counted and warned like every other fallback (cpu_fallback.hpp).
#include "cpu_fallback.hpp"

#include <ATen/ops/convolution.h>
#include <ATen/ops/convolution_backward.h>
#include <torch/library.h>

#include <tuple>
#include <vector>

namespace bp::torch_bridge {
namespace {

constexpr const char* kReason = "Backplane has no convolution op yet";

at::Tensor convolution(const at::Tensor& input, const at::Tensor& weight,
                       const c10::optional<at::Tensor>& bias, at::IntArrayRef stride,
                       at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
                       at::IntArrayRef output_padding, int64_t groups) {
  note_fallback("aten::convolution_overrideable", kReason);
  c10::optional<at::Tensor> host_bias;
  if (bias && bias->defined()) host_bias = bias->cpu();
  return at::convolution(input.cpu(), weight.cpu(), host_bias, stride, padding, dilation,
                         transposed, output_padding, groups)
      .to(input.device());
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> convolution_backward(
    const at::Tensor& grad_output, const at::Tensor& input, const at::Tensor& weight,
    at::IntArrayRef stride, at::IntArrayRef padding, at::IntArrayRef dilation, bool transposed,
    at::IntArrayRef output_padding, int64_t groups, std::array<bool, 3> output_mask) {
  note_fallback("aten::convolution_backward_overrideable", kReason);
  // The bias gradient's shape: one value per output channel.
  const int64_t channels = transposed ? weight.size(1) * groups : weight.size(0);
  const std::vector<int64_t> bias_sizes{channels};
  auto [grad_input, grad_weight, grad_bias] = at::convolution_backward(
      grad_output.cpu(), input.cpu(), weight.cpu(),
      output_mask[2] ? at::OptionalIntArrayRef(bias_sizes) : c10::nullopt, stride, padding,
      dilation, transposed, output_padding, groups, output_mask);
  const c10::Device device = input.device();
  auto back = [&](const at::Tensor& t) { return t.defined() ? t.to(device) : t; };
  return {back(grad_input), back(grad_weight), back(grad_bias)};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("convolution_overrideable", TORCH_FN(convolution));
  m.impl("convolution_backward_overrideable", TORCH_FN(convolution_backward));
}

}  // namespace bp::torch_bridge
