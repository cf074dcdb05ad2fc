// The template device's kernels: elementwise f32 loops over host memory. A real device
// launches its own kernels here (on call->stream when it has streams). The runtime has
// already broadcast the inputs to the output's shape; any tensor may be strided, which
// sdk::map handles (a contiguous fast path, else a strided loop).
#include "kernels.hpp"

namespace template_device {

namespace sdk = bp::sdk;

void copy_f32(sdk::TensorArg self, sdk::TensorArg src, bool /*non_blocking*/) {
  // `src` has self's shape (the runtime expands it) and its own dtype; both may be strided.
  // Every dtype converts to f32 as PyTorch converts it: bool to 0 or 1, integers and f64
  // rounded to the nearest f32 (f64 beyond f32's range to +-inf), f16/bf16 exactly.
  float* out = self.data_as<float>();
  sdk::visit_dtype(src.dtype(), [&](auto tag) {
    using Source = typename decltype(tag)::type;
    const auto* in = static_cast<const Source*>(src.data());
    sdk::for_each_index(self.sizes(), [&](const int64_t* index) {
      out[self.offset_of(index)] = static_cast<float>(in[src.offset_of(index)]);
    });
  });
}

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
      .kernel<copy_f32>("copy_", kF32)
      .kernel<add_f32>("add.Tensor", kF32)
      .kernel<mul_f32>("mul.Tensor", kF32)
      .kernel<relu_f32>("relu", kF32);
}

}  // namespace template_device
