// Tests of sort.stable, sort, argsort and topk on the reference backend
// (sdk/sort_kernels.hpp, core/src/ops/sort.cpp): PyTorch 1.13's values pasted as data, NaN
// ordering in both directions, the stable order of ties (-0.0 equal to 0.0), bool, each dim,
// 0-d and empty inputs, and the errors.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

TEST_CASE("sort orders NaN above every number and keeps ties in index order") {
  // torch.sort([3, nan, -0., 0., 1, nan, -inf], descending=True, stable=True)
  const Tensor x = make<float>({3, kNaN, -0.0, 0.0, 1, kNaN, -kInf}, {7});
  const std::vector<Tensor> down = sort(x, 0, true, true);
  check_values(down[0], ST::Float32, {7}, {kNaN, kNaN, 3, 1, -0.0, 0.0, -kInf});
  check_i64(down[1], {7}, {1, 5, 0, 4, 2, 3, 6});
  CHECK(std::signbit(to_vector<double>(down[0])[4]));  // -0.0 stays before 0.0
  const std::vector<Tensor> up = sort(x);
  check_values(up[0], ST::Float32, {7}, {-kInf, -0.0, 0.0, 1, 3, kNaN, kNaN});
  check_i64(up[1], {7}, {6, 2, 3, 4, 0, 1, 5});
  // torch.sort([True, False, True]) -> [False, True, True], [1, 0, 2]
  const std::vector<Tensor> flags = sort(make<bool>({1, 0, 1}, {3}));
  check_values(flags[0], ST::Bool, {3}, {0, 1, 1});
  check_i64(flags[1], {3}, {1, 0, 2});
}

TEST_CASE("sort along each dim, argsort, and the integer dtypes") {
  const Tensor x = make<int32_t>({5, -2, 7, 0, 3, 3}, {2, 3});
  const std::vector<Tensor> rows = sort(x, 1);
  check_values(rows[0], ST::Int32, {2, 3}, {-2, 5, 7, 0, 3, 3});
  check_i64(rows[1], {2, 3}, {1, 0, 2, 0, 1, 2});
  const std::vector<Tensor> cols = sort(x, 0, true);
  check_values(cols[0], ST::Int32, {2, 3}, {5, 3, 7, 0, -2, 3});
  check_i64(cols[1], {2, 3}, {0, 1, 0, 1, 0, 1});
  check_i64(argsort(x, -1, true), {2, 3}, {2, 0, 1, 1, 2, 0});
  check_i64(argsort(x, -1, true, true), {2, 3}, {2, 0, 1, 1, 2, 0});
}

TEST_CASE("topk: the k largest or smallest, NaN the largest, ties in index order") {
  // torch.topk([1, nan, 3, 3], 2) -> [nan, 3], [1, 2 (PyTorch: 3, a tie it leaves unspecified)]
  const Tensor x = make<float>({1, kNaN, 3, 3}, {4});
  const std::vector<Tensor> top = topk(x, 2);
  check_values(top[0], ST::Float32, {2}, {kNaN, 3});
  check_i64(top[1], {2}, {1, 2});
  // torch.topk([1, nan, 3, 3], 2, largest=False) -> [1, 3], [0, 2]
  const std::vector<Tensor> low = topk(x, 2, 0, false);
  check_values(low[0], ST::Float32, {2}, {1, 3});
  check_i64(low[1], {2}, {0, 2});
  const Tensor m = make<double>({4, 9, 1, 7, 2, 8}, {2, 3});
  const std::vector<Tensor> per_row = topk(m, 1, 1);
  check_values(per_row[0], ST::Float64, {2, 1}, {9, 8});
  check_i64(per_row[1], {2, 1}, {1, 2});
  check_values(topk(m, 0, 1)[0], ST::Float64, {2, 0}, {});
}

TEST_CASE("sort and topk of 0-d and empty inputs, and their errors") {
  const Tensor s = make<float>({3}, {});
  check_values(sort(s)[0], ST::Float32, {}, {3});
  check_i64(sort(s)[1], {}, {0});
  check_values(topk(s, 1)[0], ST::Float32, {}, {3});
  check_values(sort(zeros({0, 4}, ST::Float32, kRef), 1)[0], ST::Float32, {0, 4}, {});
  check_error(
      [&] {
        topk(make<float>({1, 2, 3}, {3}), 4);
      },
      ErrorCode::InvalidArgument, "'k' = 4 is out of range");
  check_error([&] { sort(s, 1); }, ErrorCode::InvalidArgument, "dim");
}

}  // namespace
}  // namespace bp::test
