// Tests for plugins/reference/indexed_writes.cpp and the composite over it, through the
// public API: index_add along each dim with repeated indices, alpha of each kind, 0-d and
// empty operands, the order and per-add rounding PyTorch's CPU kernel has (f16, i8 wrap),
// the errors of its meta rule and kernel; embedding_dense_backward with padding and
// frequency scaling. Expected values are PyTorch 1.13's, pasted as data.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

std::vector<double> iota(int n, double scale = 1) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(i * scale);
  return v;
}

TEST_CASE("index_add adds rows at repeated indices along dim 0 and dim 1, with alpha") {
  const Tensor x = make<float>(iota(12), {3, 4});
  // x.index_add(0, tensor([2, 0, 2]), arange(12.).view(3, 4) * 10, alpha=0.5)
  check_values(
      index_add(x, 0, make<int64_t>({2, 0, 2}, {3}), make<float>(iota(12, 10), {3, 4}), 0.5),
      ST::Float32, {3, 4}, {20, 26, 32, 38, 4, 5, 6, 7, 48, 59, 70, 81});
  // x.index_add(-1, tensor([3, 3], dtype=int32), ones(3, 2))
  check_values(
      index_add(x, -1, make<int32_t>({3, 3}, {2}), make<float>({1, 1, 1, 1, 1, 1}, {3, 2})),
      ST::Float32, {3, 4}, {0, 1, 2, 5, 4, 5, 6, 9, 8, 9, 10, 13});
}

TEST_CASE("index_add rounds once per add, in the order of the index") {
  // f16: 2048 + 1 rounds back to 2048 at each step (PyTorch gives 2048; the exact sum,
  // 2052, is representable).
  const Tensor self = to(make<float>({0, 0}, {1, 2}), ST::Float16);
  const Tensor source = to(make<float>({2048, 2048, 1, 1, 1, 1, 1, 1, 1, 1}, {5, 2}), ST::Float16);
  check_values(index_add(self, 0, make<int64_t>({0, 0, 0, 0, 0}, {5}), source), ST::Float16, {1, 2},
               {2048, 2048});
  // i8 wraps at each add: 100 + 100 + 100 = 44 (mod 256), as PyTorch.
  check_values(index_add(make<int8_t>({100}, {1}), 0, make<int64_t>({0, 0}, {2}),
                         make<int8_t>({100, 100}, {2})),
               ST::Int8, {1}, {44});
}

TEST_CASE("index_add reads alpha as PyTorch reads it for the dtype") {
  const Tensor idx = make<int64_t>({0, 0, 2}, {3});
  // An integer tensor truncates a float alpha: 2.5 multiplies by 2.
  check_values(index_add(make<int32_t>({0, 0, 0}, {3}), 0, idx, make<int32_t>({1, 2, 3}, {3}), 2.5),
               ST::Int32, {3}, {6, 0, 6});
  check_values(
      index_add(make<int32_t>({0, 0, 0}, {3}), 0, idx, make<int32_t>({1, 2, 3}, {3}), true),
      ST::Int32, {3}, {3, 0, 3});
  // bool: or, any nonzero alpha is true.
  check_values(index_add(make<bool>({0, 0, 0}, {3}), 0, idx, make<bool>({1, 0, 1}, {3}), 2),
               ST::Bool, {3}, {1, 0, 1});
  check_error(
      [&] {
        index_add(make<int8_t>({0}, {1}), 0, make<int64_t>({0}, {1}), make<int8_t>({1}, {1}), 300);
      },
      ErrorCode::InvalidArgument, "overflow");
}

TEST_CASE("index_add with 0-d, empty and broadcast operands") {
  check_values(index_add(make<float>({1}, {}), 0, make<int64_t>({0}, {}), make<float>({2}, {})),
               ST::Float32, {}, {3});
  check_values(index_add(make<float>({1, 2}, {2}), 0, make<int64_t>({}, {0}), make<float>({}, {0})),
               ST::Float32, {2}, {1, 2});
  // A source of size 1 outside dim broadcasts (PyTorch 1.13's add iterator lets it).
  check_values(index_add(zeros({2, 3}, ST::Float32, kRef), 0, make<int64_t>({1, 1}, {2}),
                         make<float>({1, 2}, {2, 1})),
               ST::Float32, {2, 3}, {0, 0, 0, 3, 3, 3});
}

TEST_CASE("index_add errors name the argument, the value and the dim") {
  const Tensor x = zeros({3, 4}, ST::Float32, kRef);
  check_error(
      [&] {
        index_add(x, 0, make<int64_t>({0, 3}, {2}), zeros({2, 4}, ST::Float32, kRef));
      },
      ErrorCode::Index, "index_add: index 3 is out of range for dimension 0 with size 3");
  check_error(
      [&] {
        index_add(x, 1, make<int64_t>({-1}, {1}), zeros({3, 1}, ST::Float32, kRef));
      },
      ErrorCode::Index, "index -1 is out of range for dimension 1");
  check_error(
      [&] {
        index_add(x, 0, make<int64_t>({0}, {1}), zeros({1, 4}, ST::Float64, kRef));
      },
      ErrorCode::Type, "'source' has dtype f64, but 'self' has f32");
  check_error(
      [&] {
        index_add(x, 0, make<int64_t>({0}, {1}), zeros({1, 3}, ST::Float32, kRef));
      },
      ErrorCode::Shape, "does not match 'self' of shape [3, 4] in dim 1");
  check_error(
      [&] {
        index_add(x, 0, make<int64_t>({0, 1}, {2}), zeros({1, 4}, ST::Float32, kRef));
      },
      ErrorCode::Shape, "'index' has 2 elements");
  check_error(
      [&] {
        index_add(x, 0, make<float>({0}, {1}), zeros({1, 4}, ST::Float32, kRef));
      },
      ErrorCode::Type, "input 'index'");
  check_error(
      [&] {
        index_add(x, 0, make<int64_t>({0}, {1, 1}), zeros({1, 4}, ST::Float32, kRef));
      },
      ErrorCode::Shape, "0-d or 1-D");
  check_error([&] { index_add(x, 0, make<int64_t>({0}, {1}), zeros({4}, ST::Float32, kRef)); },
              ErrorCode::Shape, "as many dims");
}

TEST_CASE("embedding_dense_backward adds rows, skips padding_idx and scales by frequency") {
  const Tensor grad = make<float>(iota(18), {2, 3, 3});
  const Tensor indices = make<int64_t>({0, 2, 0, 4, 4, 4}, {2, 3});
  // torch.ops.aten.embedding_dense_backward(grad, indices, 5, -1, True): each row times
  // 1/count, rounded (within an ulp of the exact means).
  check_values(embedding_dense_backward(grad, indices, 5, -1, true), ST::Float32, {5, 3},
               {3, 4, 5, 0, 0, 0, 3, 4, 5, 0, 0, 0, 12, 13, 14}, 1e-6);
  // ... (grad, indices, 5, 0, False)
  check_values(embedding_dense_backward(grad, to(indices, ST::Int32), 5, 0, false), ST::Float32,
               {5, 3}, {0, 0, 0, 0, 0, 0, 3, 4, 5, 0, 0, 0, 36, 39, 42});
  check_error([&] { embedding_dense_backward(grad, indices, 4, -1, false); }, ErrorCode::Index,
              "index 4 is out of range for dimension 0 with size 4");
  check_error(
      [&] {
        embedding_dense_backward(grad, make<int64_t>({0, 1}, {2}), 4, -1, false);
      },
      ErrorCode::Shape, "one row per index");
}

}  // namespace
}  // namespace bp::test
