// Tests for the pooling ops on the reference backend (sdk/pooling.hpp's loops and
// core/src/ops/pooling.cpp), through the public API: max pooling with NaN (the maximum) and
// ceil_mode, its gradient through the indices, average pooling with and without the padding
// counted and with divisor_override, its gradient, adaptive pooling and its gradient, and
// the errors. Expected values are PyTorch 1.13's, pasted as data (f32 values to 1e-7).
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

Tensor ramp25() {
  std::vector<double> v;
  for (int i = 0; i < 25; ++i) v.push_back(i);
  return make<float>(v, {1, 1, 5, 5});
}

TEST_CASE("max_pool2d_with_indices: NaN is the maximum, ties and padding") {
  const Tensor x = make<float>({1, 5, 2, 0, 3, kNaN, 4, 4, -1, 2, 7, 7, 0, 8, 1, -3}, {1, 1, 4, 4});
  const std::vector<Tensor> r = max_pool2d_with_indices(x, {2}, {2});
  check_values(r[0], ST::Float32, {1, 1, 2, 2}, {kNaN, 4, 8, 7});
  check_i64(r[1], {1, 1, 2, 2}, {5, 6, 13, 10});
}

TEST_CASE("max_pool2d_with_indices with ceil_mode, and its gradient") {
  const Tensor x = ramp25();
  const std::vector<Tensor> r = max_pool2d_with_indices(x, {3}, {2}, {1}, {1}, true);
  check_values(r[0], ST::Float32, {1, 1, 3, 3}, {6, 8, 9, 16, 18, 19, 21, 23, 24});
  check_i64(r[1], {1, 1, 3, 3}, {6, 8, 9, 16, 18, 19, 21, 23, 24});
  const Tensor g = full({1, 1, 3, 3}, 1.0, ST::Float32, kRef);
  check_values(max_pool2d_with_indices_backward(g, x, {3}, {2}, {1}, {1}, true, r[1]), ST::Float32,
               {1, 1, 5, 5},
               {0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1});
}

TEST_CASE("avg_pool2d: count_include_pad, ceil_mode and divisor_override") {
  const Tensor x = ramp25();
  check_values(avg_pool2d(x, {3}, {2}, {1}, true, true), ST::Float32, {1, 1, 3, 3},
               {4.0 / 3, 3, 8.0 / 3, 7, 12, 9, 8, 13, 28.0 / 3}, 1e-7);
  check_values(avg_pool2d(x, {3}, {2}, {1}, true, false), ST::Float32, {1, 1, 3, 3},
               {3, 4.5, 6, 10.5, 12, 13.5, 18, 19.5, 21});
  check_values(avg_pool2d(x, {2}, {2}, {0}, false, true, 3), ST::Float32, {1, 1, 2, 2},
               {4, 20.0 / 3, 52.0 / 3, 20}, 1e-7);
}

TEST_CASE("avg_pool2d_backward without the padding counted") {
  const Tensor g = full({1, 1, 3, 3}, 1.0, ST::Float32, kRef);
  check_values(avg_pool2d_backward(g, ramp25(), {3}, {2}, {1}, true, false, std::nullopt),
               ST::Float32, {1, 1, 5, 5},
               {0.25,       0.41666669, 0.16666667, 0.41666669, 0.25,       0.41666669, 0.69444448,
                0.27777779, 0.69444448, 0.41666669, 0.16666667, 0.27777779, 0.11111111, 0.27777779,
                0.16666667, 0.41666669, 0.69444448, 0.27777779, 0.69444448, 0.41666669, 0.25,
                0.41666669, 0.16666667, 0.41666669, 0.25},
               1e-7);
}

TEST_CASE("_adaptive_avg_pool2d and its gradient: overlapping windows") {
  const Tensor x = ramp25();
  check_values(_adaptive_avg_pool2d(x, {2, 3}), ST::Float32, {1, 1, 2, 3},
               {5.5, 7, 8.5, 15.5, 17, 18.5});
  const Tensor g = full({1, 1, 2, 3}, 1.0, ST::Float32, kRef);
  check_values(_adaptive_avg_pool2d_backward(g, x), ST::Float32, {1, 1, 5, 5},
               {0.16666667, 0.27777779, 0.11111111, 0.27777779, 0.16666667, 0.16666667, 0.27777779,
                0.11111111, 0.27777779, 0.16666667, 0.33333334, 0.55555558, 0.22222222, 0.55555558,
                0.33333334, 0.16666667, 0.27777779, 0.11111111, 0.27777779, 0.16666667, 0.16666667,
                0.27777779, 0.11111111, 0.27777779, 0.16666667},
               1e-7);
}

TEST_CASE("pooling errors name the argument") {
  const Tensor x = ramp25();
  check_error([&] { max_pool2d_with_indices(x, {2}, {}, {2}); }, ErrorCode::InvalidArgument,
              "padding [2, 2] must be at most half the kernel size [2, 2]");
  check_error([&] { max_pool2d_with_indices(x, {7}); }, ErrorCode::Shape, "must be positive");
  check_error([&] { avg_pool2d(x, {2}, {}, {0}, false, true, 0); }, ErrorCode::InvalidArgument,
              "divisor_override");
  check_error(
      [&] {
        avg_pool2d(make<int32_t>({1, 2, 3, 4}, {1, 1, 2, 2}), {2});
      },
      ErrorCode::Type, "only floating-point");
  check_error(
      [&] {
        _adaptive_avg_pool2d(make<float>({1, 2}, {2}), {1, 1});
      },
      ErrorCode::Shape, "pooling takes [C, H, W] or [N, C, H, W]");
}

}  // namespace
}  // namespace bp::test
