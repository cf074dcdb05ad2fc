// The template device's kernels: elementwise f32 loops over host memory. A real device
// launches its own kernels here (on call->stream when it has streams). The runtime has
// already broadcast the inputs to the output's shape; any tensor may be strided, which
// sdk::map handles (a contiguous fast path, else a strided loop).
#include "kernels.hpp"

namespace template_device {

namespace sdk = bp::sdk;

void add_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha, sdk::TensorArg out) {
  const float a = alpha.to<float>();
  sdk::map<float>(
      out, [a](float x, float y) { return x + a * y; }, self, other);
}

void mul_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::TensorArg out) {
  sdk::map<float>(
      out, [](float x, float y) { return x * y; }, self, other);
}

void relu_f32(sdk::TensorArg self, sdk::TensorArg out) {
  // `x < 0 ? 0 : x` rather than max(x, 0): NaN propagates, as in PyTorch.
  sdk::map<float>(
      out, [](float x) { return x < 0.0f ? 0.0f : x; }, self);
}

void register_kernels(sdk::Host& host, uint32_t backend) {
  constexpr bp_dtype_mask kF32 = BP_DTYPE_BIT(BP_DTYPE_F32);
  host.kernels(backend)
      .kernel<add_f32>("add.Tensor", kF32)
      .kernel<mul_f32>("mul.Tensor", kF32)
      .kernel<relu_f32>("relu", kF32);
}

}  // namespace template_device
