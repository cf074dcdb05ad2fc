// The template device's kernels: f32 loops over host memory. A real device launches its
// own kernels here (on call->stream when it has streams). The runtime has already
// broadcast the inputs of elementwise ops to the output's shape; any tensor may be strided,
// which sdk::map and the index loops below handle (a contiguous fast path, else a strided
// loop).
#include "kernels.hpp"

#include <vector>

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

void fill_f32(sdk::TensorArg self, sdk::Scalar value) {
  // An integer value converts to f32 directly (rounded once; through double, one above
  // 2^53 would be rounded twice); a floating one is rounded once from double.
  const float v = value.is_integral() ? static_cast<float>(value.to_int()) : value.to<float>();
  float* out = self.data_as<float>();
  sdk::for_each_index(self.sizes(), [&](const int64_t* index) { out[self.offset_of(index)] = v; });
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

void sum_f32(sdk::TensorArg self, std::optional<sdk::IntList> /*dim*/, bool /*keepdim*/,
             std::optional<bp_dtype> /*dtype*/, sdk::TensorArg out) {
  // `out` has self's rank with size 1 in every reduced dim, so the input element at `index`
  // adds into the output element at `index` with the reduced dims set to 0. The sums are
  // kept in double, indexed row-major over out's sizes, and rounded to f32 once at the end,
  // as the reference backend does (an f32 running sum loses bits on long rows). An empty
  // reduction leaves 0; a 0-d input is its own sum.
  const float* in = self.data_as<float>();
  float* o = out.data_as<float>();
  std::vector<double> sums(static_cast<size_t>(out.numel()), 0.0);
  const int32_t ndim = out.dim();
  sdk::for_each_index(self.sizes(), [&](const int64_t* index) {
    int64_t at = 0;
    for (int32_t d = 0; d < ndim; ++d) at = at * out.size(d) + (out.size(d) == 1 ? 0 : index[d]);
    sums[static_cast<size_t>(at)] += static_cast<double>(in[self.offset_of(index)]);
  });
  size_t next = 0;
  sdk::for_each_index(out.sizes(), [&](const int64_t* index) {
    o[out.offset_of(index)] = static_cast<float>(sums[next++]);
  });
}

void register_kernels(sdk::Host& host, uint32_t backend) {
  constexpr bp_dtype_mask kF32 = BP_DTYPE_BIT(BP_DTYPE_F32);
  host.kernels(backend)
      .kernel<copy_f32>("copy_", kF32)
      .kernel<fill_f32>("fill_.Scalar", kF32)
      .kernel<add_f32>("add.Tensor", kF32)
      .kernel<mul_f32>("mul.Tensor", kF32)
      .kernel<relu_f32>("relu", kF32)
      .kernel<sum_f32>("sum.dim_IntList", kF32);
}

}  // namespace template_device
