// CPU kernels of the convolution primitives: convolution_forward,
// convolution_backward_input and convolution_backward_weight (docs/convolution.md).
//  - f32, f16 and bf16 run on oneDNN's convolution (onednn_convolution.hpp), PyTorch's CPU
//    convolution library: f16/bf16 widened to f32 (exact), the result rounded once.
//  - Everything else takes the SDK's direct loop: double sums rounded once, the reference's
//    bits, the result split among OpenMP threads. So do the calls whose f32 sums in oneDNN's
//    order could differ in kind from the double sums (an inf or NaN operand, partial sums
//    that overflow), found by reading the smaller side of the call: either the operands
//    before (matmul's rule, docs/cpu.md: K max|a| max|b| far below FLT_MAX, no inf or NaN)
//    or the result after (no inf, no NaN, no magnitude above FLT_MAX / 2, which every such
//    call leaves; it is then recomputed). Reading only the operands read layer4's 9.4 MB
//    weight on every call; reading only the result, the stem's 3.2 MB output.
#include "cpu.hpp"
#include "onednn_convolution.hpp"
#include "simd_reduce.hpp"

#include <backplane/sdk/convolution.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace bp::cpu {
namespace {

using sdk::ConvGeometry;
using sdk::IntList;

// simd_abs_max_f32 with the elements split among the threads: the kind checks below read up
// to a few megabytes per call, a few percent of a convolution's time on one thread. NaN
// wins, as in each part.
float abs_max_threaded(const float* p, int64_t n) {
  constexpr int64_t kPart = int64_t{1} << 16;
  const int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), n / kPart));
  if (threads <= 1) return simd_abs_max_f32(p, n);
  std::vector<float> part(static_cast<size_t>(threads), 0.0f);  // a smaller team leaves zeros
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t begin = n * t / nt, end = n * (t + 1) / nt;
    part[static_cast<size_t>(t)] = simd_abs_max_f32(p + begin, end - begin);
  }
  float m = 0.0f;
  for (const float v : part)
    if (std::isnan(v) || v > m) m = v;
  return m;
}

// A tensor's elements as dense f32: its own data when it already is dense f32, else a
// widened row-major copy.
class DenseF32 {
 public:
  explicit DenseF32(const StridedView& v) {
    if (v.dtype == BP_DTYPE_F32 && v.is_contiguous()) {
      data_ = v.data<float>();
      return;
    }
    copy_.resize(static_cast<size_t>(v.numel()));
    float* dst = copy_.data();
    visit_dtype(v.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (kIsFloating<T> && !std::is_same_v<T, double>)
        sdk::for_each_index(std::span<const int64_t>(v.shape, static_cast<size_t>(v.ndim)),
                            [&](const int64_t* i) { *dst++ = widen(v.at<T>(i)); });
    });
    data_ = copy_.data();
  }
  const float* data() const { return data_; }
  // The largest |x| of `n` elements; +inf when one is inf or NaN.
  double abs_max(int64_t n) const {
    const float m = abs_max_threaded(data_, n);
    return m <= std::numeric_limits<float>::max() ? m : std::numeric_limits<double>::infinity();
  }

 private:
  const float* data_ = nullptr;
  std::vector<float> copy_;
};

// Whether oneDNN's f32 sums of `terms` products of a and b (plus the bias) give the double
// sums' result: every partial sum far from overflow, no operand inf or NaN.
bool operands_are_safe(int64_t terms, const DenseF32& a, int64_t a_size, const DenseF32& b,
                       int64_t b_size, const DenseF32* bias, int64_t bias_size) {
  const double bound = static_cast<double>(terms) * a.abs_max(a_size) * b.abs_max(b_size) +
                       (bias ? bias->abs_max(bias_size) : 0.0);
  return bound <= 0.5 * static_cast<double>(std::numeric_limits<float>::max());
}

// Whether a oneDNN result of `n` floats is one the double sums agree with in kind: no inf,
// no NaN, nothing near the overflow threshold.
bool result_is_safe(const float* r, int64_t n) {
  return abs_max_threaded(r, n) <= 0.5f * std::numeric_limits<float>::max();
}

// Runs oneDNN for a floating result `out` (f32/f16/bf16); false when it cannot, or when its
// result must be recomputed (`out` may then hold oneDNN's values, which the direct loop
// overwrites). `first` and `second` are the two operands in ConvBuffers' roles.
bool run_onednn(ConvDirection direction, const ConvGeometry& g, int64_t terms,
                const StridedView& first, const StridedView& second, const StridedView* bias,
                const StridedView& out) {
  if (out.dtype != BP_DTYPE_F32 && out.dtype != BP_DTYPE_F16 && out.dtype != BP_DTYPE_BF16)
    return false;
  // oneDNN may skip a call with an empty operand without writing the (zero) result.
  if (terms == 0 || first.numel() == 0 || second.numel() == 0) return false;
  const DenseF32 a(first), b(second);
  std::optional<DenseF32> c;
  if (bias) c.emplace(*bias);
  const int64_t bias_size = bias ? bias->numel() : 0;
  const bool check_operands = first.numel() + second.numel() + bias_size < out.numel();
  if (check_operands &&
      !operands_are_safe(terms, a, first.numel(), b, second.numel(), c ? &*c : nullptr, bias_size))
    return false;
  const bool direct_out = out.dtype == BP_DTYPE_F32 && out.is_contiguous();
  std::vector<float> result;
  if (!direct_out) result.resize(static_cast<size_t>(out.numel()));
  ConvBuffers buffers;
  buffers.result = direct_out ? out.data<float>() : result.data();
  switch (direction) {
    case ConvDirection::kForward:
      buffers.src = a.data(), buffers.weights = b.data(), buffers.bias = c ? c->data() : nullptr;
      break;
    case ConvDirection::kBackwardData:
      buffers.diff_dst = a.data(), buffers.weights = b.data();
      break;
    case ConvDirection::kBackwardWeights:
      buffers.diff_dst = a.data(), buffers.src = b.data();
      break;
  }
  if (!onednn_convolution(direction, g, buffers).empty()) return false;
  if (!check_operands && !result_is_safe(buffers.result, out.numel()))
    return false;  // the direct loop rewrites it
  if (direct_out) return true;
  const float* r = result.data();
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T> && !std::is_same_v<T, double>)
      sdk::for_each_index(std::span<const int64_t>(out.shape, 4),
                          [&](const int64_t* i) { out.at<T>(i) = narrow<T>(*r++); });
  });
  return true;
}

// Runs loop(begin, end) over [0, numel) result elements, split among threads when the
// `terms` products per element make it worth a parallel region.
template <typename Loop>
void split_among_threads(int64_t numel, int64_t terms, Loop&& loop) {
  const int64_t work = numel * std::max<int64_t>(terms, 1);
  const int threads = work < (int64_t{1} << 15) || omp_in_parallel()
                          ? 1
                          : static_cast<int>(std::min<int64_t>(omp_get_max_threads(), numel));
  if (threads <= 1) {
    loop(int64_t{0}, numel);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    loop(numel * t / nt, numel * (t + 1) / nt);
  }
}

// split_among_threads as the SDK's direct loops take it.
constexpr auto kThreaded = [](int64_t n, int64_t terms, auto&& body) {
  split_among_threads(n, terms, body);
};

void forward_kernel(StridedView input, StridedView weight, std::optional<TensorArg> bias,
                    IntList stride, IntList padding, IntList dilation, int64_t groups,
                    StridedView out) {
  const char* op = "convolution_forward";
  const ConvGeometry g =
      sdk::check_convolution(op, input, weight, out, stride, padding, dilation, groups);
  std::optional<StridedView> b;
  if (bias) b.emplace(*bias);
  const StridedView* bias_view = b ? &*b : nullptr;
  sdk::check_convolution_bias(op, bias_view, g, out.dtype);
  if (out.numel() == 0) return;
  if (run_onednn(ConvDirection::kForward, g, g.forward_terms(), input, weight, bias_view, out))
    return;
  sdk::convolution_forward_direct(g, input, weight, bias_view, out, kThreaded);
}

void backward_input_kernel(StridedView grad_output, StridedView weight, IntList, IntList stride,
                           IntList padding, IntList dilation, int64_t groups, StridedView out) {
  const ConvGeometry g = sdk::check_convolution("convolution_backward_input", out, weight,
                                                grad_output, stride, padding, dilation, groups);
  if (out.numel() == 0) return;
  if (run_onednn(ConvDirection::kBackwardData, g, g.backward_input_terms(), grad_output, weight,
                 nullptr, out))
    return;
  sdk::convolution_backward_input_direct(g, grad_output, weight, out, kThreaded);
}

void backward_weight_kernel(StridedView grad_output, StridedView input, IntList, IntList stride,
                            IntList padding, IntList dilation, int64_t groups, StridedView out) {
  const ConvGeometry g = sdk::check_convolution("convolution_backward_weight", input, out,
                                                grad_output, stride, padding, dilation, groups);
  if (out.numel() == 0) return;
  if (run_onednn(ConvDirection::kBackwardWeights, g, g.backward_weight_terms(), grad_output, input,
                 nullptr, out))
    return;
  sdk::convolution_backward_weight_direct(g, grad_output, input, out, kThreaded);
}

}  // namespace

void register_convolution_kernels(sdk::Registrar& r) {
  r.kernel<forward_kernel>("convolution_forward", sdk::kAllButBool)
      .kernel<backward_input_kernel>("convolution_backward_input", sdk::kAllButBool)
      .kernel<backward_weight_kernel>("convolution_backward_weight", sdk::kAllButBool);
}

}  // namespace bp::cpu
