// Tests for native_batch_norm and its backward on the reference backend
// (core/src/ops/batch_norm.cpp), through the public API: training statistics and the
// running statistics updated in place, evaluation by the running statistics (empty saved
// statistics), the three gradients and the mask, and the errors. Expected values are
// PyTorch 1.13's, pasted as data (f32, to 1e-6 relative).
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

struct Case {
  Tensor x = make<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {2, 3, 2});
  Tensor w = make<float>({1, 2, 0.5}, {3});
  Tensor b = make<float>({0, 1, -1}, {3});
  Tensor running_mean = make<float>({0, 1, 2}, {3});
  Tensor running_var = make<float>({1, 2, 3}, {3});
};

TEST_CASE("native_batch_norm in training updates the running statistics in place") {
  const Case c;
  const std::vector<Tensor> r =
      native_batch_norm(c.x, c.w, c.b, c.running_mean, c.running_var, true, 0.1, 1e-5);
  check_values(r[0], ST::Float32, {2, 3, 2},
               {-1.1507922, -0.8219945, -1.3015845, -0.6439888, -1.5753962, -1.4109973, 0.8219944,
                1.1507922, 2.6439891, 3.3015847, -0.5890028, -0.4246039},
               1e-6, 1e-6);
  check_values(r[1], ST::Float32, {3}, {4.5, 6.5, 8.5});
  check_values(r[2], ST::Float32, {3}, {0.32879779, 0.32879779, 0.32879779}, 1e-6);
  // (1 - 0.1) running + 0.1 statistic, the variance unbiased (n = 4).
  check_values(c.running_mean, ST::Float32, {3}, {0.45, 1.55, 2.65}, 1e-6);
  check_values(c.running_var, ST::Float32, {3}, {2.1333332, 3.0333333, 3.9333332}, 1e-6);
}

TEST_CASE("native_batch_norm in evaluation uses the running statistics") {
  const Case c;
  const std::vector<Tensor> r =
      native_batch_norm(c.x, c.w, c.b, c.running_mean, c.running_var, false, 0.1, 1e-5);
  check_values(r[0], ST::Float32, {2, 3, 2},
               {0.99999499, 1.99999, 3.8284199, 5.24263, -0.13397604, 0.15469861, 6.9999647,
                7.9999599, 12.31368, 13.72789, 1.5980718, 1.8867465},
               1e-6);
  CHECK(r[1].numel() == 0);
  CHECK(r[2].numel() == 0);
  check_values(c.running_mean, ST::Float32, {3}, {0, 1, 2});  // not updated
}

TEST_CASE("native_batch_norm_backward: the three gradients, and the mask") {
  const Case c;
  const std::vector<Tensor> f = native_batch_norm(c.x, c.w, c.b, clone(c.running_mean),
                                                  clone(c.running_var), true, 0.1, 1e-5);
  const Tensor g = make<float>({1, -1, 2, 0, 0.5, 1, -2, 1, 0, 3, 1, -1}, {2, 3, 2});
  const std::vector<Tensor> r = native_batch_norm_backward(
      g, c.x, c.w, c.running_mean, c.running_var, f[1], f[2], true, 1e-5, {true, true, true});
  check_values(r[0], ST::Float32, {2, 3, 2},
               {0.33324111, -0.30213845, 0.7109139, -0.66648221, -0.061094094, 0.0444322,
                -0.51985604, 0.48875338, -0.97750676, 0.93307507, 0.16106643, -0.14440453},
               1e-5, 1e-6);
  check_values(r[1], ST::Float32, {3}, {-0.82199448, 1.1507922, -1.7261884}, 1e-6);
  check_values(r[2], ST::Float32, {3}, {-1, 5, 1.5});
  const std::vector<Tensor> only_input = native_batch_norm_backward(
      g, c.x, c.w, c.running_mean, c.running_var, f[1], f[2], true, 1e-5, {true, false, false});
  CHECK(only_input[0].defined());
  CHECK_FALSE(only_input[1].defined());
  CHECK_FALSE(only_input[2].defined());
}

TEST_CASE("native_batch_norm errors name the argument") {
  const Case c;
  check_error(
      [&] {
        native_batch_norm(c.x, std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, 0.1,
                          1e-5);
      },
      ErrorCode::InvalidArgument, "running_mean and running_var must be given");
  check_error(
      [&] {
        native_batch_norm(c.x, make<float>({1, 2}, {2}), std::nullopt, std::nullopt, std::nullopt,
                          true, 0.1, 1e-5);
      },
      ErrorCode::Shape, "argument 'weight' has shape [2]");
  check_error(
      [&] {
        native_batch_norm(c.x, make<double>({1, 2, 3}, {3}), std::nullopt, std::nullopt,
                          std::nullopt, true, 0.1, 1e-5);
      },
      ErrorCode::Type, "argument 'weight' has dtype f64");
}

}  // namespace
}  // namespace bp::test
