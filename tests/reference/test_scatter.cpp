// Tests of the scatter ops on the reference backend (sdk/scatter_kernels.hpp,
// core/src/ops/scatter.cpp): PyTorch 1.13's values pasted as data, repeated indices (the
// last write wins; reductions in index order), every reduction with and without self,
// integer mean's floor division, NaN in amax, the value and "add"/"multiply" forms, 0-d
// and empty inputs, and the errors.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

TEST_CASE("scatter writes src at index along dim; the last of repeated indices wins") {
  // torch.scatter(zeros(2, 3), 1, [[0], [2]], arange(6.).reshape(2, 3)) -> [[0, 0, 0], [0, 0, 3]]
  const Tensor src = make<float>({0, 1, 2, 3, 4, 5}, {2, 3});
  check_values(scatter(zeros({2, 3}, ST::Float32, kRef), 1, make<int64_t>({0, 2}, {2, 1}), src),
               ST::Float32, {2, 3}, {0, 0, 0, 0, 0, 3});
  // Index [1, 1, 0] along dim 0 of a 3-vector: the second write to 1 wins.
  check_values(scatter(make<float>({9, 9, 9}, {3}), 0, make<int64_t>({1, 1, 0}, {3}),
                       make<float>({5, 6, 7}, {3})),
               ST::Float32, {3}, {7, 6, 9});
  check_values(scatter(zeros({3}, ST::Int32, kRef), 0, make<int64_t>({2}, {1}), Scalar(4)),
               ST::Int32, {3}, {0, 0, 4});
}

TEST_CASE("scatter_reduce: each reduction, with and without self") {
  const Tensor self = make<float>({5, 7, 9}, {3});
  const Tensor index = make<int64_t>({0, 0}, {2});
  const Tensor src = make<float>({1, 2}, {2});
  // PyTorch: mean without self -> [1.5, 7, 9]; amax without self -> [2, 7, 9]
  check_values(scatter_reduce(self, 0, index, src, "mean", false), ST::Float32, {3}, {1.5, 7, 9});
  check_values(scatter_reduce(self, 0, index, src, "amax", false), ST::Float32, {3}, {2, 7, 9});
  check_values(scatter_reduce(self, 0, index, src, "sum"), ST::Float32, {3}, {8, 7, 9});
  check_values(scatter_reduce(self, 0, index, src, "prod"), ST::Float32, {3}, {10, 7, 9});
  check_values(scatter_reduce(self, 0, index, src, "amin"), ST::Float32, {3}, {1, 7, 9});
  check_values(scatter_reduce(self, 0, index, src, "prod", false), ST::Float32, {3}, {2, 7, 9});
  // Integer mean with self: (5 + 1 + 2) / 3 floored -> 2 (PyTorch: [2, 7, 9]); -7 / 2 -> -4.
  check_values(
      scatter_reduce(make<int64_t>({5, 7, 9}, {3}), 0, index, make<int64_t>({1, 2}, {2}), "mean"),
      ST::Int64, {3}, {2, 7, 9});
  check_values(scatter_reduce(make<int32_t>({-8, 0}, {2}), 0, make<int64_t>({0}, {1}),
                              make<int32_t>({1}, {1}), "mean"),
               ST::Int32, {2}, {-4, 0});
  // NaN wins amax and amin.
  check_values(scatter_reduce(self, 0, index, make<float>({kNaN, 100}, {2}), "amax"), ST::Float32,
               {3}, {kNaN, 7, 9});
  // scatter.reduce's "multiply" (PyTorch: [10, 7, 9]) and scatter_add.
  check_values(scatter(self, 0, index, src, "multiply"), ST::Float32, {3}, {10, 7, 9});
  check_values(
      scatter(zeros({3}, ST::Float32, kRef), 0, make<int64_t>({1}, {1}), Scalar(5.0), "add"),
      ST::Float32, {3}, {0, 5, 0});
  check_values(scatter_add(self, 0, index, src), ST::Float32, {3}, {8, 7, 9});
}

TEST_CASE("scatter of 0-d and empty inputs, and its errors") {
  check_values(scatter(make<float>({1}, {}), 0, make<int64_t>({0}, {}), make<float>({4}, {})),
               ST::Float32, {}, {4});
  check_values(scatter_add(make<float>({1, 2}, {2}), 0, zeros({0}, ST::Int64, kRef),
                           zeros({0}, ST::Float32, kRef)),
               ST::Float32, {2}, {1, 2});
  const Tensor self = make<float>({1, 2, 3}, {3});
  check_error([&] { scatter(self, 0, make<int64_t>({3}, {1}), make<float>({1}, {1})); },
              ErrorCode::Index, "3");
  check_error([&] { scatter(self, 0, make<int32_t>({0}, {1}), make<float>({1}, {1})); },
              ErrorCode::Type, "must be i64");
  check_error([&] { scatter(self, 0, make<int64_t>({0}, {1}), make<double>({1}, {1})); },
              ErrorCode::Type, "'src' has dtype f64");
  check_error([&] { scatter_reduce(self, 0, make<int64_t>({0}, {1}), self, "max"); },
              ErrorCode::InvalidArgument, "sum, prod, mean, amax or amin");
  check_error([&] { scatter(self, 0, make<int64_t>({0}, {1}), self, "sum"); },
              ErrorCode::InvalidArgument, "add or multiply");
}

}  // namespace
}  // namespace bp::test
