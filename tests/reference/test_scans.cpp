// Tests for plugins/reference/scans.cpp and the selections over one dim, through the public
// API: cumsum and cumprod along each dim, the i64 result of integral and bool inputs, the
// `dtype` argument, wrap-around, the f64 accumulator of f32 (PyTorch's CPU accumulate type),
// 0-d and empty inputs; max.dim and min.dim with NaN and ties. Expected values are PyTorch
// 1.13's, pasted as data.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

std::vector<double> iota(int n, double first = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(first + i);
  return v;
}

TEST_CASE("cumsum and cumprod along each dim") {
  const Tensor x = make<float>(iota(12), {3, 4});
  check_values(cumsum(x, 1), ST::Float32, {3, 4}, {0, 1, 3, 6, 4, 9, 15, 22, 8, 17, 27, 38});
  check_values(cumprod(make<float>(iota(12, 1), {3, 4}), 0), ST::Float32, {3, 4},
               {1, 2, 3, 4, 5, 12, 21, 32, 45, 120, 231, 384});
  check_values(cumsum(x, -2), ST::Float32, {3, 4}, {0, 1, 2, 3, 4, 6, 8, 10, 12, 15, 18, 21});
}

TEST_CASE("cumsum of f32 accumulates in f64, as PyTorch's CPU kernel") {
  // In f32 steps 1e8 + 1 + 1 + 1 - 1e8 would be 0.
  check_values(cumsum(make<float>({1e8, 1, 1, 1, -1e8}, {5}), 0), ST::Float32, {5},
               {1e8, 1e8, 1e8, 1e8, 3});
}

TEST_CASE("cumsum's result dtype: i64 for integral and bool inputs, or `dtype`") {
  check_i64(cumsum(make<bool>({1, 1, 0}, {3}), 0), {3}, {1, 2, 2});
  check_i64(cumsum(make<int8_t>({100, 100, 100}, {3}), 0), {3}, {100, 200, 300});
  // With dtype=i8 the sum wraps at each output: 100, -56, 44.
  check_values(cumsum(make<int8_t>({100, 100, 100}, {3}), 0, ST::Int8), ST::Int8, {3},
               {100, -56, 44});
  check_values(cumsum(make<float>({1.5, 2}, {2}), 0, ST::Int32), ST::Int32, {2}, {1, 3});
  check_error([&] { cumsum(make<int64_t>({1, 2}, {2}), 0, ST::Bool); }, ErrorCode::Type, "bool");
}

TEST_CASE("cumsum of 0-d and empty inputs") {
  check_values(cumsum(make<float>({3}, {}), 0), ST::Float32, {}, {3});
  check_values(cumprod(zeros({0, 3}, ST::Float32, kRef), 1), ST::Float32, {0, 3}, {});
  check_error([&] { cumsum(make<float>({1, 2}, {2}), 1); }, ErrorCode::InvalidArgument, "dim");
}

TEST_CASE("max.dim and min.dim: NaN is the extreme at its first index; ties give the first") {
  const double nan = kNaN;
  const std::vector<Tensor> mx = max(make<float>({1, 3, 3, 2, nan, nan}, {2, 3}), 1);
  check_values(mx[0], ST::Float32, {2}, {3, nan});
  check_i64(mx[1], {2}, {1, 1});
  const std::vector<Tensor> mn = min(make<int64_t>({1, 1, 0}, {1, 3}), 1, true);
  check_i64(mn[0], {1, 1}, {0});
  check_i64(mn[1], {1, 1}, {2});
  const std::vector<Tensor> b = max(make<bool>({1, 0}, {1, 2}), 1);
  check_values(b[0], ST::Bool, {1}, {1});
  check_i64(b[1], {1}, {0});
  check_error(
      [&] {
        max(zeros({2, 0}, ST::Float32, kRef), 1);
      },
      ErrorCode::InvalidArgument, "size 0");
}

}  // namespace
}  // namespace bp::test
