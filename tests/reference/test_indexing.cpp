// Tests for plugins/reference/data_movement_index.cpp through the public API: cat, index_select and
// gather on reference:0 against hand-computed values (and PyTorch 1.13 results pasted as
// data): negative dims, non-contiguous inputs and outputs, 0-d and empty inputs, every dtype,
// and the errors for out-of-range indices, bad index dtypes and mismatched shapes.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

// 0, 1, ..., n - 1
std::vector<double> iota(int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i);
  return v;
}

// [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
Tensor x34() {
  return make<float>(iota(12), {3, 4});
}

// ---- cat ----------------------------------------------------------------------------------
TEST_CASE("cat joins along dim 0, dim 1 and negative dims") {
  const Tensor a = make<float>({1, 2, 3, 4}, {2, 2});
  const Tensor b = make<float>({5, 6}, {2, 1});
  const Tensor c = make<float>({7, 8}, {1, 2});
  check_values(cat({a, b}, 1), ST::Float32, {2, 3}, {1, 2, 5, 3, 4, 6});
  check_values(cat({a, b}, -1), ST::Float32, {2, 3}, {1, 2, 5, 3, 4, 6});
  check_values(cat({a, c}), ST::Float32, {3, 2}, {1, 2, 3, 4, 7, 8});
  check_values(cat({c, a, c}, -2), ST::Float32, {4, 2}, {7, 8, 1, 2, 3, 4, 7, 8});
  check_values(cat({a}), ST::Float32, {2, 2}, {1, 2, 3, 4});
}

TEST_CASE("cat joins the middle dim of 3-D tensors") {
  const Tensor y = make<float>(iota(24), {2, 3, 4});
  // torch.cat([y[:, :1], y[:, 2:]], 1)
  check_values(cat({y.slice(1, 0, 1), y.slice(1, 2, std::nullopt)}, 1), ST::Float32, {2, 2, 4},
               {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15, 20, 21, 22, 23});
}

TEST_CASE("cat reads transposed and stepped inputs and writes a transposed out") {
  const Tensor a = make<float>({1, 2, 3, 4}, {2, 2});
  const Tensor b = make<float>({5, 6, 0, 0}, {2, 2}).slice(1, 0, std::nullopt, 2);  // [[5], [0]]
  check_values(cat({a.t(), b}, 1), ST::Float32, {2, 3}, {1, 3, 5, 2, 4, 0});
  Tensor base = zeros({3, 2}, ST::Float32, kRef);
  Tensor out = base.t();  // [2, 3] with strides [1, 2]
  cat_out(out, {a, make<float>({5, 6}, {2, 1})}, 1);
  check_values(out, ST::Float32, {2, 3}, {1, 2, 5, 3, 4, 6});
  check_values(base, ST::Float32, {3, 2}, {1, 3, 2, 4, 5, 6});
}

TEST_CASE("cat handles empty inputs and skips legacy 1-D empty tensors") {
  const Tensor a = make<float>({1, 2, 3, 4}, {2, 2});
  check_values(cat({zeros({2, 0}, ST::Float32, kRef), a}, 1), ST::Float32, {2, 2}, {1, 2, 3, 4});
  // torch.cat([torch.ones(2, 2), torch.empty(0)]).shape == [2, 2]
  check_values(cat({a, zeros({0}, ST::Float32, kRef)}), ST::Float32, {2, 2}, {1, 2, 3, 4});
  check_values(cat({zeros({0, 3}, ST::Float32, kRef), zeros({0, 3}, ST::Float32, kRef)}),
               ST::Float32, {0, 3}, {});
}

TEST_CASE("cat promotes its inputs to their common dtype") {
  // torch.cat([torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1.5])])
  check_values(cat({make<int32_t>({1, 2}, {2}), make<float>({1.5}, {1})}), ST::Float32, {3},
               {1, 2, 1.5});
}

TEST_CASE("cat rejects mismatched shapes and 0-d tensors") {
  const Tensor a = make<float>({1, 2, 3, 4}, {2, 2});
  check_error([&] { cat({a, zeros({3, 1}, ST::Float32, kRef)}, 1); }, ErrorCode::Shape, "[3, 1]");
  CHECK_THROWS_AS(cat({a, zeros({2, 2, 1}, ST::Float32, kRef)}), Error);
  CHECK_THROWS_AS(cat({make<float>({1}, {}), make<float>({2}, {})}), Error);
}

TEST_CASE_TEMPLATE("cat supports every dtype", T, bool, int8_t, uint8_t, int16_t, int32_t, int64_t,
                   Half, BFloat16, float, double) {
  const Tensor r = cat({make<T>({1, 0}, {2}), make<T>({1}, {1}), make<T>({0, 1}, {2})});
  check_values(r, dtype_of<T>(), {5}, {1, 0, 1, 0, 1});
}

// ---- index_select -------------------------------------------------------------------------
TEST_CASE("index_select picks rows, columns and repeats along negative dims") {
  const Tensor x = x34();
  check_values(index_select(x, 0, make<int64_t>({2, 0}, {2})), ST::Float32, {2, 4},
               {8, 9, 10, 11, 0, 1, 2, 3});
  // torch.index_select(x, 1, torch.tensor([3, 1, 1]))
  check_values(index_select(x, 1, make<int64_t>({3, 1, 1}, {3})), ST::Float32, {3, 3},
               {3, 1, 1, 7, 5, 5, 11, 9, 9});
  check_values(index_select(x, -1, make<int32_t>({3, 1, 1}, {3})), ST::Float32, {3, 3},
               {3, 1, 1, 7, 5, 5, 11, 9, 9});
  check_values(index_select(x, -2, make<int32_t>({1}, {1})), ST::Float32, {1, 4}, {4, 5, 6, 7});
}

TEST_CASE("index_select reads transposed self and a stepped index and writes a strided out") {
  const Tensor x = x34();
  const Tensor index = make<int64_t>({2, 9, 0, 9, 1}, {5}).slice(0, 0, std::nullopt, 2);
  // torch.index_select(x.t(), 0, torch.tensor([2, 9, 0, 9, 1])[::2])
  check_values(index_select(x.t(), 0, index), ST::Float32, {3, 3}, {2, 6, 10, 0, 4, 8, 1, 5, 9});
  Tensor base = zeros({2, 6}, ST::Float32, kRef);
  Tensor out = base.slice(1, 1, std::nullopt, 2);  // [2, 3], strides [6, 2], offset 1
  index_select_out(out, x.narrow(0, 1, 2), 1, make<int64_t>({3, 0, 3}, {3}));
  check_values(base, ST::Float32, {2, 6}, {0, 7, 0, 4, 0, 7, 0, 11, 0, 8, 0, 11});
}

TEST_CASE("index_select with 0-d and empty arguments") {
  const Tensor x = x34();
  // torch.index_select(x, 0, torch.tensor(1)).shape == [1, 4]
  check_values(index_select(x, 0, make<int64_t>({1}, {})), ST::Float32, {1, 4}, {4, 5, 6, 7});
  // torch.index_select(torch.tensor(5.), 0, torch.tensor(0)) == tensor(5.)
  check_values(index_select(make<float>({5}, {}), 0, make<int64_t>({0}, {})), ST::Float32, {}, {5});
  check_values(index_select(x, 1, make<int64_t>({}, {0})), ST::Float32, {3, 0}, {});
  check_values(index_select(x, 0, make<int64_t>({}, {0})), ST::Float32, {0, 4}, {});
}

TEST_CASE("index_select rejects out-of-range and negative indices") {
  const Tensor x = make<float>({1, 2, 3}, {3});
  check_error(
      [&] {
        index_select(x, 0, make<int64_t>({0, 7}, {2}));
      },
      ErrorCode::Index, "index 7 is out of range for dimension 0 with size 3");
  check_error([&] { index_select(x, 0, make<int64_t>({-1}, {1})); }, ErrorCode::Index,
              "index -1 is out of range for dimension 0 with size 3");
  check_error([&] { index_select(x34(), 1, make<int32_t>({4}, {1})); }, ErrorCode::Index,
              "index 4 is out of range for dimension 1 with size 4");
}

TEST_CASE("index_select leaves the out tensor untouched when an index is out of range") {
  Tensor out = full({2}, 9.0, ST::Float32, kRef);
  CHECK_THROWS_AS(index_select_out(out, make<float>({1, 2, 3}, {3}), 0, make<int64_t>({0, 3}, {2})),
                  Error);
  check_values(out, ST::Float32, {2}, {9, 9});
}

TEST_CASE("index_select rejects a floating or 2-D index") {
  CHECK_THROWS_AS(index_select(x34(), 0, make<float>({0}, {1})), Error);
  CHECK_THROWS_AS(index_select(x34(), 0, make<int64_t>({0, 1}, {1, 2})), Error);
}

TEST_CASE_TEMPLATE("index_select supports every dtype", T, bool, int8_t, uint8_t, int16_t, int32_t,
                   int64_t, Half, BFloat16, float, double) {
  const Tensor x = make<T>({1, 0, 0, 1, 1, 1}, {3, 2});
  check_values(index_select(x, 0, make<int64_t>({2, 0}, {2})), dtype_of<T>(), {2, 2}, {1, 1, 1, 0});
  check_values(index_select(x, 1, make<int32_t>({1}, {1})), dtype_of<T>(), {3, 1}, {0, 1, 1});
}

// ---- gather -------------------------------------------------------------------------------
TEST_CASE("gather picks along dim 1, dim 0 and negative dims") {
  const Tensor t = make<float>({1, 2, 3, 4}, {2, 2});
  // The example of torch.gather's documentation.
  check_values(gather(t, 1, make<int64_t>({0, 0, 1, 0}, {2, 2})), ST::Float32, {2, 2},
               {1, 1, 4, 3});
  check_values(gather(t, -1, make<int64_t>({0, 0, 1, 0}, {2, 2})), ST::Float32, {2, 2},
               {1, 1, 4, 3});
  check_values(gather(t, 0, make<int64_t>({1, 0, 0, 0}, {2, 2})), ST::Float32, {2, 2},
               {3, 2, 1, 2});
  check_values(gather(t, -2, make<int64_t>({1, 1}, {1, 2})), ST::Float32, {1, 2}, {3, 4});
}

TEST_CASE("gather with an index smaller than self, or longer along dim") {
  const Tensor x = x34();
  check_values(gather(x, 1, make<int64_t>({3, 0}, {2, 1})), ST::Float32, {2, 1}, {3, 4});
  // Index dim 0 may exceed self's size 3 there (PyTorch checks only the other dims).
  check_values(
      gather(x, 0, make<int64_t>({2, 1, 0, 2, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2}, {4, 4})),
      ST::Float32, {4, 4}, {8, 5, 2, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  CHECK_THROWS_AS(gather(x, 0, make<int64_t>({0, 0, 0, 0, 0}, {1, 5})), Error);
}

TEST_CASE("gather reads transposed self and index") {
  // torch.gather(x.t(), 1, torch.tensor([[2, 0], [1, 1]]).t()) == [[8, 4], [1, 5]]
  const Tensor index = make<int64_t>({2, 0, 1, 1}, {2, 2}).t();
  check_values(gather(x34().t(), 1, index), ST::Float32, {2, 2}, {8, 4, 1, 5});
}

TEST_CASE("gather with 0-d and empty arguments") {
  check_values(gather(make<float>({5}, {}), 0, make<int64_t>({0}, {})), ST::Float32, {}, {5});
  check_values(gather(x34(), 1, make<int64_t>({}, {2, 0})), ST::Float32, {2, 0}, {});
}

TEST_CASE("gather rejects out-of-range and negative indices and a non-int64 index") {
  const Tensor x = make<float>({1, 2, 3}, {3});
  check_error([&] { gather(x, 0, make<int64_t>({5}, {1})); }, ErrorCode::Index,
              "index 5 is out of range for dimension 0 with size 3");
  check_error(
      [&] {
        gather(x, -1, make<int64_t>({0, -1}, {2}));
      },
      ErrorCode::Index, "index -1 is out of range for dimension 0 with size 3");
  check_error([] { gather(make<float>({5}, {}), 0, make<int64_t>({1}, {})); }, ErrorCode::Index,
              "index 1 is out of range for dimension 0 with size 1");
  // torch: "gather(): Expected dtype int64 for index"
  CHECK_THROWS_AS(gather(x, 0, make<int32_t>({0}, {1})), Error);
}

TEST_CASE_TEMPLATE("gather supports every dtype", T, bool, int8_t, uint8_t, int16_t, int32_t,
                   int64_t, Half, BFloat16, float, double) {
  const Tensor x = make<T>({1, 0, 0, 1}, {2, 2});
  check_values(gather(x, 1, make<int64_t>({1, 1, 0, 1}, {2, 2})), dtype_of<T>(), {2, 2},
               {0, 0, 0, 1});
}

}  // namespace
}  // namespace bp::test
