// Tests for plugins/cpu/convolution.cpp: the three convolution primitives on cpu:0 against
// the reference backend, through convolution and convolution_backward. Integers and f64 take
// the SDK's direct loop: bit for bit, also when split among threads. f32/f16/bf16 take
// oneDNN: within the tolerance of a K-term sum, and bit for bit again when an input holds
// an inf or NaN (those go to the direct loop). Every layout of the input.
#include "cpu_checks.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

namespace bp::test {
namespace {

using ST = ScalarType;

// The largest difference a K-term sum of products of magnitude <= `scale` may have from
// the reference's once-rounded double sum: the accumulator's rounding over K terms, then
// one rounding into the dtype. Integers and f64 (the direct loop, the reference's order)
// must be equal, unless `reordered` (the bias gradient: a `sum` in each backend's order).
void check_sum(const Tensor& got, const Tensor& want, int64_t k, double scale,
               bool reordered = false) {
  const ST dt = want.dtype();
  if (!is_floating(dt) || (dt == ST::Float64 && !reordered)) return check_cpu(got, want, 0, 0);
  const double eps = accumulate_eps(dt);
  check_cpu(got, want, default_rtol(dt) + std::sqrt(double(k)) * eps, double(k) * eps * scale);
}

// A grouped, strided, padded, dilated 2-D convolution: input [2, 6, 7, 8], weight
// [4, 3, 3, 3] with groups 2, stride [2, 1], padding 1, dilation [1, 2].
struct Geometry {
  std::vector<int64_t> stride{2, 1}, padding{1}, dilation{1, 2};
  int64_t groups = 2;
};

TEST_CASE("cpu convolution and its gradients match the reference for every dtype and layout") {
  const Geometry g;
  uint64_t seed = 900;
  for (ST dt : kEveryDtype) {
    if (dt == ST::Bool) continue;
    CAPTURE(dtype_name(dt));
    const Tensor x = random_tensor({2, 6, 7, 8}, dt, ++seed, kRefDevice, -2.0, 2.0);
    const Tensor w = random_tensor({4, 3, 3, 3}, dt, ++seed, kRefDevice, -2.0, 2.0);
    const Tensor b = random_tensor({4}, dt, ++seed, kRefDevice, -2.0, 2.0);
    const Tensor want = convolution(x, w, b, g.stride, g.padding, g.dilation, false, {0}, g.groups);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor got = convolution(cpu_copy(x, layout), on(w, cpu_device()), on(b, cpu_device()),
                                     g.stride, g.padding, g.dilation, false, {0}, g.groups);
      check_sum(got, want, 27, 4.0 * 27);
    }
    if (!is_floating(dt)) continue;
    const Tensor grad = random_tensor(as_ref(want.sizes()), dt, ++seed, kRefDevice, -2.0, 2.0);
    const auto run = [&](const Tensor& gr, const Tensor& in, const Tensor& wt) {
      return convolution_backward(gr, in, wt, std::vector<int64_t>{4}, g.stride, g.padding,
                                  g.dilation, false, {0}, g.groups, {true, true, true});
    };
    const std::vector<Tensor> ref = run(grad, x, w);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const std::vector<Tensor> cpu =
          run(cpu_copy(grad, layout), cpu_copy(x, layout), on(w, cpu_device()));
      check_sum(cpu[0], ref[0], 18, 4.0 * 18);  // 2 output channels x 9 taps
      check_sum(cpu[1], ref[1], 56, 4.0 * 56);  // 2 x 4 x 7 output positions
      check_sum(cpu[2], ref[2], 56, 2.0 * 56, /*reordered=*/true);
    }
  }
}

TEST_CASE("cpu f32 convolution with an inf or NaN input gives the reference's bits") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = from_vector(
      std::vector<double>{1, inf, 2, -1, 0.5, 3, std::nan(""), 4, -2, 1, 1, 1, 2, 0, -inf, 5},
      {1, 1, 4, 4}, kRefDevice);
  const Tensor x32 = to(x, ST::Float32);
  const Tensor w = to(random_tensor({2, 1, 2, 2}, ST::Float64, 950, kRefDevice), ST::Float32);
  const Tensor want = convolution(x32, w, std::nullopt, {1}, {1}, {1}, false, {0}, 1);
  check_cpu(convolution(on(x32, cpu_device()), on(w, cpu_device()), std::nullopt, {1}, {1}, {1},
                        false, {0}, 1),
            want, 0, 0);
}

TEST_CASE("cpu f64 convolution split among threads equals the reference bit for bit") {
  const Tensor x = random_tensor({4, 16, 20, 20}, ST::Float64, 960, kRefDevice);
  const Tensor w = random_tensor({16, 16, 3, 3}, ST::Float64, 961, kRefDevice);
  const Tensor want = convolution(x, w, std::nullopt, {1}, {1}, {1}, false, {0}, 1);
  check_cpu(convolution(on(x, cpu_device()), on(w, cpu_device()), std::nullopt, {1}, {1}, {1},
                        false, {0}, 1),
            want, 0, 0);
  const Tensor grad = random_tensor(as_ref(want.sizes()), ST::Float64, 962, kRefDevice);
  const std::vector<Tensor> ref = convolution_backward(grad, x, w, std::nullopt, {1}, {1}, {1},
                                                       false, {0}, 1, {true, true, false});
  const std::vector<Tensor> cpu =
      convolution_backward(on(grad, cpu_device()), on(x, cpu_device()), on(w, cpu_device()),
                           std::nullopt, {1}, {1}, {1}, false, {0}, 1, {true, true, false});
  check_cpu(cpu[0], ref[0], 0, 0);
  check_cpu(cpu[1], ref[1], 0, 0);
}

TEST_CASE("cpu f32 convolution of resnet's shapes through oneDNN stays within the tolerance") {
  const Tensor x = random_tensor({2, 32, 14, 14}, ST::Float32, 970, kRefDevice, -1.0, 1.0);
  const Tensor w = random_tensor({64, 32, 3, 3}, ST::Float32, 971, kRefDevice, -1.0, 1.0);
  const Tensor want = convolution(x, w, std::nullopt, {2}, {1}, {1}, false, {0}, 1);
  check_sum(convolution(on(x, cpu_device()), on(w, cpu_device()), std::nullopt, {2}, {1}, {1},
                        false, {0}, 1),
            want, 288, 288);
}

// The plugin keeps oneDNN's objects per geometry and thread (at most 64, then starts over):
// a repeated call, a call with a bias after one without, and a geometry prepared again after
// 70 others pushed it out all give the reference's values.
TEST_CASE("cpu f32 convolutions stay right across the prepared-primitive cache") {
  const Tensor w = random_tensor({8, 3, 3, 3}, ST::Float32, 980, kRefDevice, -1.0, 1.0);
  const Tensor b = random_tensor({8}, ST::Float32, 981, kRefDevice, -1.0, 1.0);
  auto check_width = [&](int64_t width, bool bias) {
    CAPTURE(width);
    const Tensor x =
        random_tensor({1, 3, 5, width}, ST::Float32, 982 + width, kRefDevice, -1.0, 1.0);
    const std::optional<Tensor> ref_bias = bias ? std::optional(b) : std::nullopt;
    const std::optional<Tensor> cpu_bias = bias ? std::optional(on(b, cpu_device())) : std::nullopt;
    const Tensor want = convolution(x, w, ref_bias, {1}, {1}, {1}, false, {0}, 1);
    check_sum(convolution(on(x, cpu_device()), on(w, cpu_device()), cpu_bias, {1}, {1}, {1}, false,
                          {0}, 1),
              want, 27, 27);
  };
  for (int round = 0; round < 2; ++round) check_width(6, false);
  check_width(6, true);
  for (int64_t width = 7; width < 77; ++width) check_width(width, false);
  check_width(6, true);
}

}  // namespace
}  // namespace bp::test
