// Tests for the convolution ops on the reference backend (plugins/reference/convolution.cpp
// and core/src/ops/convolution.cpp), through the public API: a strided, padded 2-D
// convolution with bias and its three gradients, a dilated grouped 1-D convolution, a
// transposed one, integer wrap-around, and the errors. Expected values are PyTorch 1.13's,
// pasted as data.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

std::vector<double> ramp(int n, double scale, double shift = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back((i + shift) * scale);
  return v;
}

// x = arange(32) / 4 as [1, 2, 4, 4]; w = (arange(24) - 12) / 2 as [3, 2, 2, 2]; stride 2,
// padding 1.
struct StridedCase {
  Tensor x = make<float>(ramp(32, 0.25), {1, 2, 4, 4});
  Tensor w = make<float>(ramp(24, 0.5, -12), {3, 2, 2, 2});
  Tensor b = make<float>({1, -1, 0.5}, {3});
};

TEST_CASE("convolution: stride 2, padding 1, bias") {
  const StridedCase c;
  check_values(
      convolution(c.x, c.w, c.b, {2}, {1}, {1}, false, {0}, 1), ST::Float32, {1, 3, 3, 3},
      {-9.0, -26.5, -17.0, -46.0, -112.5, -66.5, -40.0, -93.0, -52.5, 5.0,  9.5,  3.0,  8.0, 9.5,
       -0.5, -2.0,  -9.0,  -8.5,  22.5,   49.0,  26.5,  65.5,  135.0, 69.0, 39.5, 78.5, 39.0});
}

TEST_CASE("convolution_backward: the three gradients of the strided case, and the mask") {
  const StridedCase c;
  const Tensor grad = full({1, 3, 3, 3}, 1.0, ST::Float32, kRef);
  const std::vector<Tensor> g = convolution_backward(grad, c.x, c.w, std::vector<int64_t>{3}, {2},
                                                     {1}, {1}, false, {0}, 1, {true, true, true});
  check_values(g[0], ST::Float32, {1, 2, 4, 4},
               {-1.5, -3.0, -1.5, -3.0, -4.5, -6.0, -4.5, -6.0, -1.5, -3.0, -1.5,
                -3.0, -4.5, -6.0, -4.5, -6.0, 4.5,  3.0,  4.5,  3.0,  1.5,  0.0,
                1.5,  0.0,  4.5,  3.0,  4.5,  3.0,  1.5,  0.0,  1.5,  0.0});
  check_values(g[1], ST::Float32, {3, 2, 2, 2}, {10, 9,  6,  5,  26, 25, 22, 21, 10, 9,  6,  5,
                                                 26, 25, 22, 21, 10, 9,  6,  5,  26, 25, 22, 21});
  check_values(g[2], ST::Float32, {3}, {9, 9, 9});
  const std::vector<Tensor> only_weight = convolution_backward(
      grad, c.x, c.w, std::nullopt, {2}, {1}, {1}, false, {0}, 1, {false, true, false});
  CHECK_FALSE(only_weight[0].defined());
  CHECK(only_weight[1].defined());
  CHECK_FALSE(only_weight[2].defined());
}

TEST_CASE("convolution: 1-D, groups 2, dilation 2, padding 1") {
  const Tensor x = make<float>(ramp(28, 1), {1, 4, 7});
  const Tensor w = make<float>({1, -1, 2, 0.5, -2, 1, 0, 3}, {2, 2, 2});
  check_values(convolution(x, w, std::nullopt, {1}, {1}, {2}, false, {0}, 2), ST::Float32,
               {1, 2, 7}, {3, 16.5, 19, 21.5, 24, 26.5, 29, 81, 57, 59, 61, 63, 65, -38});
}

TEST_CASE("convolution: transposed, stride 2, with bias") {
  const Tensor x = make<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  const Tensor w = make<float>({1, 2, 3, 4}, {1, 1, 2, 2});
  check_values(convolution(x, w, make<float>({10}, {1}), {2}, {0}, {1}, true, {0}, 1), ST::Float32,
               {1, 1, 4, 4}, {11, 12, 12, 14, 13, 14, 16, 18, 13, 16, 14, 18, 19, 22, 22, 26});
}

TEST_CASE("convolution of integers wraps as PyTorch's") {
  const Tensor x = make<int8_t>({100, 100, 100, 100}, {1, 1, 2, 2});
  const Tensor w = make<int8_t>({1, 1, 1, 1}, {1, 1, 2, 2});
  check_values(convolution(x, w, std::nullopt, {1}, {0}, {1}, false, {0}, 1), ST::Int8,
               {1, 1, 1, 1}, {-112});
}

TEST_CASE("convolution errors name the argument and the shapes") {
  const Tensor x = make<float>(ramp(50, 1), {1, 2, 5, 5});
  check_error(
      [&] {
        convolution(x, make<float>(ramp(27, 1), {1, 3, 3, 3}), std::nullopt, {1}, {0}, {1}, false,
                    {0}, 1);
      },
      ErrorCode::Shape, "input of shape [1, 2, 5, 5] has 2 channels");
  check_error(
      [&] {
        convolution(x, make<float>(ramp(18, 1), {1, 2, 3, 3}), std::nullopt, {0}, {0}, {1}, false,
                    {0}, 1);
      },
      ErrorCode::InvalidArgument, "argument 'stride' = [0] must be positive");
  check_error(
      [&] {
        convolution(x, make<double>(ramp(18, 1), {1, 2, 3, 3}), std::nullopt, {1}, {0}, {1}, false,
                    {0}, 1);
      },
      ErrorCode::Type, "argument 'weight' has dtype f64, but 'input' has f32");
  check_error(
      [&] {
        convolution(x, make<float>(ramp(72, 1), {1, 2, 6, 6}), std::nullopt, {1}, {0}, {1}, false,
                    {0}, 1);
      },
      ErrorCode::Shape, "smaller than the dilated kernel");
  check_error(
      [&] {
        convolution(x, make<float>(ramp(18, 1), {2, 1, 3, 3}), std::nullopt, {1}, {0}, {2}, true,
                    {1}, 1);
      },
      ErrorCode::InvalidArgument, "output_padding = [1, 1] must be smaller than stride = [1, 1]");
  check_error(
      [&] {
        convolution(make<bool>({1, 0, 1, 1}, {1, 1, 2, 2}), make<bool>({1}, {1, 1, 1, 1}),
                    std::nullopt, {1}, {0}, {1}, false, {0}, 1);
      },
      ErrorCode::Type, "bool");
}

}  // namespace
}  // namespace bp::test
