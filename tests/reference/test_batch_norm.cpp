// Tests for native_batch_norm, native_group_norm and their backward ops on the reference
// backend (core/src/ops/batch_norm.cpp, group_norm.cpp), through the public API: training
// statistics and the running statistics updated in place, evaluation by the running
// statistics (empty saved statistics), group statistics, the three gradients and the mask,
// and the errors. Expected values are PyTorch 1.13's, pasted as data (f32, to 1e-6
// relative).
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

TEST_CASE("native_group_norm: two groups of two channels, and its gradients") {
  std::vector<double> v;
  for (int i = 0; i < 24; ++i) v.push_back(i / 5.0);
  const Tensor x = make<float>(v, {2, 4, 3});
  const Tensor w = make<float>({1, 2, -1, 0.5}, {4});
  const Tensor b = make<float>({0, 1, 0, -1}, {4});
  const std::vector<Tensor> r = native_group_norm(x, w, b, 2, 4, 3, 2, 1e-5);
  check_values(r[0], ST::Float32, {2, 4, 3},
               {-1.4637873, -0.87827235, -0.29275745, 1.585515,    2.7565448,   3.9275746,
                1.4637876,  0.87827277,  0.29275772,  -0.85362148, -0.56086397, -0.26810643,
                -1.4637872, -0.87827289, -0.29275793, 1.5855141,   2.7565441,   3.9275739,
                1.4637872,  0.87827212,  0.29275703,  -0.8536213,  -0.56086344, -0.26810625},
               1e-6, 1e-6);
  check_values(r[1], ST::Float32, {2, 2}, {0.5, 1.7, 2.9, 4.1}, 1e-6);
  check_values(r[2], ST::Float32, {2, 2}, {2.9275746, 2.9275746, 2.9275742, 2.9275746}, 1e-6);
  std::vector<double> gv;
  for (int k = 0; k < 2; ++k)
    for (double e : {1.0, -1.0, 2.0, 0.0, 0.5, 1.0, -2.0, 1.0, 0.0, 3.0, 1.0, -1.0})
      gv.push_back(e);
  const Tensor g = make<float>(gv, {2, 4, 3});
  const std::vector<Tensor> d =
      native_group_norm_backward(g, x, r[1], r[2], w, 2, 4, 3, 2, {true, true, true});
  check_values(d[0], ST::Float32, {2, 4, 3},
               {2.3697801, -4.2381096, 3.7918739,  -2.8160157, -0.64118147, 1.5336528,
                3.2762113, -4.9628668, -1.4916458, 3.4433618,  1.0594335,   -1.3244948,
                2.3697767, -4.2381105, 3.791873,   -2.8160143, -0.64118004, 1.5336552,
                3.2762108, -4.9628663, -1.4916458, 3.4433622,  1.0594339,   -1.3244944},
               1e-5, 1e-5);
  check_values(d[1], ST::Float32, {4}, {-2.3420599, 3.8058462, 4.0986047, 0.58551371}, 1e-5);
  check_values(d[2], ST::Float32, {4}, {4, 3, -2, 6});
  check_error([&] { native_group_norm(x, w, b, 2, 4, 3, 3, 1e-5); }, ErrorCode::InvalidArgument,
              "argument 'group' = 3 must be positive and divide the 4 channels");
}

}  // namespace
}  // namespace bp::test
