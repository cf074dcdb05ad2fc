// The gradient kernels of the buggy fixture plugins that carry a backward bug (issue 27):
// tanh_backward, sigmoid_backward and a fused _softmax_backward_data for f32 and f64, each
// correct but for the one bug of its library. They are the three ways a backward kernel goes
// wrong: a wrong sign, a dropped term, a reduction over the wrong dim. The suite must catch
// each twice: against the reference's backward (the op's f32 cases) and against central
// differences of the forward op (the gradcheck/f64 cases).
#include "buggy_kernels.hpp"

#include <cstdint>
#include <vector>

namespace bp_buggy {
namespace {

namespace sdk = bp::sdk;
constexpr bp_dtype_mask kF32F64 = BP_DTYPE_BIT(BP_DTYPE_F32) | BP_DTYPE_BIT(BP_DTYPE_F64);

// out = f(grad, y) in the output's dtype (f32 or f64): the host converted the inputs to it.
template <typename F>
void map_floating(sdk::TensorArg out, sdk::TensorArg grad, sdk::TensorArg y, F f) {
  if (out.dtype() == BP_DTYPE_F64)
    sdk::map<double>(out, f, grad, y);
  else
    sdk::map<float>(out, f, grad, y);
}

template <bool kBug>
void tanh_backward(sdk::TensorArg grad, sdk::TensorArg y, sdk::TensorArg out) {
  // The bug: d tanh = 1 + tanh^2, a sign lost in the derivation.
  map_floating(out, grad, y, [](auto g, auto v) { return g * (kBug ? 1 + v * v : 1 - v * v); });
}

template <bool kBug>
void sigmoid_backward(sdk::TensorArg grad, sdk::TensorArg y, sdk::TensorArg out) {
  // The bug: the (1 - y) factor of y (1 - y) is dropped.
  map_floating(out, grad, y, [](auto g, auto v) { return kBug ? g * v : g * (1 - v) * v; });
}

// The elements of `t` (f32 or f64, any strides) in row-major order, as doubles.
std::vector<double> row_major(sdk::TensorArg t) {
  std::vector<double> values;
  values.reserve(static_cast<size_t>(t.numel()));
  sdk::for_each_index(t.sizes(), [&](const int64_t* idx) {
    values.push_back(t.dtype() == BP_DTYPE_F64 ? t.data_as<double>()[t.offset_of(idx)]
                                               : t.data_as<float>()[t.offset_of(idx)]);
  });
  return values;
}

// (grad - sum(grad * y, dim)) * y in row-major order; the bug sums over the last dim
// whatever `dim` is (right for the last dim only).
template <bool kBug>
void softmax_backward(sdk::TensorArg grad, sdk::TensorArg y, int64_t dim, bp_dtype /*input*/,
                      sdk::TensorArg out) {
  const int64_t rank = static_cast<int64_t>(out.sizes().size());
  const int64_t d = kBug ? rank - 1 : dim;
  if (out.numel() == 0) return;
  int64_t inner = 1;
  for (int64_t k = d + 1; k < rank; ++k) inner *= out.size(static_cast<int32_t>(k));
  const int64_t len = rank == 0 ? 1 : out.size(static_cast<int32_t>(d));
  const int64_t outer = out.numel() / (len * inner);
  const std::vector<double> g = row_major(grad), v = row_major(y);
  std::vector<double> result(g.size());
  for (int64_t a = 0; a < outer; ++a) {
    for (int64_t b = 0; b < inner; ++b) {
      const int64_t base = a * len * inner + b;
      double dot = 0;
      for (int64_t k = 0; k < len; ++k) dot += g[base + k * inner] * v[base + k * inner];
      for (int64_t k = 0; k < len; ++k)
        result[base + k * inner] = (g[base + k * inner] - dot) * v[base + k * inner];
    }
  }
  size_t i = 0;
  sdk::for_each_index(out.sizes(), [&](const int64_t* idx) {
    if (out.dtype() == BP_DTYPE_F64)
      out.data_as<double>()[out.offset_of(idx)] = result[i++];
    else
      out.data_as<float>()[out.offset_of(idx)] = static_cast<float>(result[i++]);
  });
}

}  // namespace

void register_gradient_kernels(sdk::Registrar& r, Bug bug) {
  if (bug != Bug::TanhBackwardSign && bug != Bug::SigmoidBackwardTerm &&
      bug != Bug::SoftmaxBackwardDim)
    return;
  if (bug == Bug::TanhBackwardSign)
    r.kernel<tanh_backward<true>>("tanh_backward", kF32F64);
  else
    r.kernel<tanh_backward<false>>("tanh_backward", kF32F64);
  if (bug == Bug::SigmoidBackwardTerm)
    r.kernel<sigmoid_backward<true>>("sigmoid_backward", kF32F64);
  else
    r.kernel<sigmoid_backward<false>>("sigmoid_backward", kF32F64);
  if (bug == Bug::SoftmaxBackwardDim)
    r.kernel<softmax_backward<true>>("_softmax_backward_data", kF32F64);
  else
    r.kernel<softmax_backward<false>>("_softmax_backward_data", kF32F64);
}

}  // namespace bp_buggy
