// Tests of the indexing ops whose result shape depends on values, on the reference backend
// (sdk/nonzero_kernels.hpp, core/src/ops/nonzero.cpp, core/src/ops/advanced_indexing.cpp):
// nonzero and nonzero_static, masked_select, masked_scatter, one_hot, index.Tensor and
// index_put, with PyTorch 1.13's values pasted as data (NaN and -0.0, None entries, masks,
// negative indices, indices that are not adjacent, repeated positions), and their errors.
#include "reference_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

TEST_CASE("nonzero lists coordinates in row-major order; NaN is nonzero, -0.0 is zero") {
  // torch.nonzero(tensor([[0, nan, -0.0], [2, 0, 3]])) -> [[0, 1], [1, 0], [1, 2]]
  const Tensor x = make<float>({0, kNaN, -0.0, 2, 0, 3}, {2, 3});
  check_values(nonzero(x), ST::Int64, {3, 2}, {0, 1, 1, 0, 1, 2});
  check_values(nonzero(make<bool>({false, true, true}, {3})), ST::Int64, {2, 1}, {1, 2});
  // PyTorch: a 0-d nonzero gives [1, 0], a 0-d zero [0, 0]; an empty input [0, ndim].
  check_values(nonzero(make<float>({3}, {})), ST::Int64, {1, 0}, {});
  check_values(nonzero(make<float>({0}, {})), ST::Int64, {0, 0}, {});
  check_values(nonzero(zeros({2, 0}, ST::Float32, kRef)), ST::Int64, {0, 2}, {});
  // A strided view: the transpose of x.
  check_values(nonzero(x.t()), ST::Int64, {3, 2}, {0, 1, 1, 0, 2, 1});
  // Past one block (4096 elements) of the kernel: the rows of later blocks follow.
  Tensor big = zeros({3, 5000}, ST::Int32, kRef);
  Tensor last = big.select(1, 4999), eighth = big.narrow(1, 7, 1);
  fill_(last, Scalar(1));
  fill_(eighth, Scalar(2));
  check_values(nonzero(big), ST::Int64, {6, 2}, {0, 7, 0, 4999, 1, 7, 1, 4999, 2, 7, 2, 4999});
}

TEST_CASE("nonzero_static pads with fill_value and drops nonzeros past size") {
  const Tensor x = make<int64_t>({0, 5, 0, 7}, {4});
  check_values(nonzero_static(x, 3), ST::Int64, {3, 1}, {1, 3, -1});
  check_values(nonzero_static(x, 1, 9), ST::Int64, {1, 1}, {1});
  check_values(nonzero_static(x, 0), ST::Int64, {0, 1}, {});
  check_error([&] { nonzero_static(x, -1); }, ErrorCode::InvalidArgument,
              "argument 'size' must not be negative, got -1");
}

TEST_CASE("masked_select broadcasts self and mask and keeps row-major order") {
  // torch.masked_select([[1, 2, 3], [4, 5, 6]], [True, False, True]) -> [1, 3, 4, 6]
  const Tensor x = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  check_values(masked_select(x, make<bool>({true, false, true}, {3})), ST::Float32, {4},
               {1, 3, 4, 6});
  check_values(masked_select(make<float>({7}, {}), make<bool>({true, true}, {2})), ST::Float32, {2},
               {7, 7});
  check_values(masked_select(x, make<bool>({false}, {})), ST::Float32, {0}, {});
  check_error(
      [&] {
        masked_select(x, make<uint8_t>({1, 0, 1}, {3}));
      },
      ErrorCode::Type, "argument 'mask' must be bool, got u8");
  check_error([&] { masked_select(x, make<bool>({true, false}, {2})); }, ErrorCode::Shape, "mask");
}

TEST_CASE("masked_scatter fills the masked elements from source in row-major order") {
  // torch.masked_scatter(zeros(3), [[T, F, T], [F, T, F]], arange(1., 10)) -> [[1, 0, 2], [0, 3,
  // 0]]
  const Tensor source = arange(Scalar(1), Scalar(10), Scalar(1), ST::Float32, kRef);
  const Tensor mask = make<bool>({true, false, true, false, true, false}, {2, 3});
  check_values(masked_scatter(zeros({3}, ST::Float32, kRef), mask, source), ST::Float32, {2, 3},
               {1, 0, 2, 0, 3, 0});
  check_error([&] { masked_scatter(zeros({3}, ST::Float32, kRef), mask, source.narrow(0, 0, 2)); },
              ErrorCode::Shape, "'source' has 2 elements, but 'mask' selects 3");
}

TEST_CASE("one_hot: inferred and given class counts, and its errors") {
  // F.one_hot(tensor([[2, 0], [1, 2]])) -> 3 classes
  check_values(one_hot(make<int64_t>({2, 0, 1, 2}, {2, 2})), ST::Int64, {2, 2, 3},
               {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1});
  check_values(one_hot(make<int64_t>({1}, {}), 3), ST::Int64, {3}, {0, 1, 0});
  check_values(one_hot(zeros({0}, ST::Int64, kRef), 2), ST::Int64, {0, 2}, {});
  check_error(
      [&] {
        one_hot(make<int64_t>({0, 3}, {2}), 3);
      },
      ErrorCode::Index, "smaller than num_classes (3), got 3");
  check_error(
      [&] {
        one_hot(make<int64_t>({0, -1}, {2}), 3);
      },
      ErrorCode::Index, "must not be negative, got -1");
  check_error([&] { one_hot(zeros({0}, ST::Int64, kRef)); }, ErrorCode::InvalidArgument,
              "cannot infer the number of classes");
  check_error([&] { one_hot(make<float>({1}, {1})); }, ErrorCode::Type, "must be i64");
}

TEST_CASE("index: None entries, adjacent and separated indices, masks, negative indices") {
  const Tensor x = arange(Scalar(0), Scalar(24), Scalar(1), ST::Float32, kRef).view({2, 3, 4});
  const Tensor none;
  // x[:, [2, 0]] -> [2, 2, 4]
  check_values(index(x, {none, make<int64_t>({2, 0}, {2})}), ST::Float32, {2, 2, 4},
               {8, 9, 10, 11, 0, 1, 2, 3, 20, 21, 22, 23, 12, 13, 14, 15});
  // x[[1, 0], :, [[3], [-1]]]: separated indices broadcast to [2, 2], which comes first.
  check_values(index(x, {make<int64_t>({1, 0}, {2}), none, make<int64_t>({3, -1}, {2, 1})}),
               ST::Float32, {2, 2, 3}, {15, 19, 23, 3, 7, 11, 15, 19, 23, 3, 7, 11});
  // A mask over the first two dims, and a mask next to an index.
  const Tensor mask = make<bool>({true, false, true, false, false, true}, {2, 3});
  check_values(index(x, {mask}), ST::Float32, {3, 4}, {0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23});
  check_values(index(x, {none, make<bool>({true, false, true}, {3}), make<int64_t>({1, 2}, {2})}),
               ST::Float32, {2, 2}, {1, 10, 13, 22});
}

TEST_CASE("index: errors name the index, the dim and the size") {
  const Tensor x = zeros({2, 3}, ST::Float32, kRef);
  const Tensor none;
  check_error(
      [&] {
        index(x, {none, make<int64_t>({0, 3}, {2})});
      },
      ErrorCode::Index, "index 3 is out of bounds for dim 1 with size 3");
  check_error([&] { index(x, {make<int64_t>({-3}, {1})}); }, ErrorCode::Index,
              "index -3 is out of bounds for dim 0 with size 2");
  check_error(
      [&] {
        index(x, {none, none, make<int64_t>({0}, {1})});
      },
      ErrorCode::Index, "too many indices for 'self' of 2 dims");
  check_error([&] { index(x, {make<int32_t>({0}, {1})}); }, ErrorCode::Type,
              "indices[0] has dtype i32; index tensors must be i64, bool or u8");
  check_error(
      [&] {
        index(x, {make<int64_t>({0, 1}, {2}), make<int64_t>({0, 1, 2}, {3})});
      },
      ErrorCode::Shape, "the index tensors of shapes [2], [3] cannot broadcast together");
  check_error(
      [&] {
        index(x, {make<bool>({true, false, true}, {3})});
      },
      ErrorCode::Shape,
      "the mask indices[0] of shape [3] does not match 'self' of shape [2, 3] at dim 0");
  check_error([&] { index(x, {none}); }, ErrorCode::InvalidArgument, "holds no index tensor");
}

TEST_CASE("index_put writes or accumulates in index order, values broadcast") {
  const Tensor rows = arange(Scalar(1), Scalar(13), Scalar(1), ST::Float32, kRef).view({3, 4});
  const Tensor at = make<int64_t>({0, 2, 0}, {3});
  const Tensor z = zeros({3, 4}, ST::Float32, kRef);
  // Repeated index 0: accumulate adds both rows, else the last write wins.
  check_values(index_put(z, {at}, rows, true), ST::Float32, {3, 4},
               {10, 12, 14, 16, 0, 0, 0, 0, 5, 6, 7, 8});
  check_values(index_put(z, {at}, rows), ST::Float32, {3, 4},
               {9, 10, 11, 12, 0, 0, 0, 0, 5, 6, 7, 8});
  // z[:, [1, -1]] = [7, 8]
  check_values(index_put(z, {Tensor(), make<int64_t>({1, -1}, {2})}, make<float>({7, 8}, {2})),
               ST::Float32, {3, 4}, {0, 7, 0, 8, 0, 7, 0, 8, 0, 7, 0, 8});
  // Separated indices: values broadcast to the result [2, 3].
  Tensor z3 = zeros({2, 3, 4}, ST::Float32, kRef);
  check_values(index_put(z3, {make<int64_t>({1, 0}, {2}), Tensor(), make<int64_t>({3, 0}, {2})},
                         make<float>({1, 2, 3}, {3}), true),
               ST::Float32, {2, 3, 4},
               {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3});
  // A mask with a 0-d value, in place.
  Tensor m = zeros({2, 3}, ST::Float32, kRef);
  index_put_(m, {make<bool>({true, false, true, false, false, true}, {2, 3})},
             make<float>({5}, {}));
  check_values(m, ST::Float32, {2, 3}, {5, 0, 5, 0, 0, 5});
  // bool accumulate is a logical or (PyTorch: [True, False, False]).
  check_values(index_put(zeros({3}, ST::Bool, kRef), {make<int64_t>({0, 0, 2}, {3})},
                         make<bool>({true, true, false}, {3}), true),
               ST::Bool, {3}, {1, 0, 0});
  check_error([&] { index_put(z, {at}, make<double>({1}, {1})); }, ErrorCode::Type,
              "argument 'values' has dtype f64, but 'self' has f32");
  check_error(
      [&] {
        index_put(z, {at}, zeros({2, 3, 4}, ST::Float32, kRef));
      },
      ErrorCode::Shape,
      "'values' of shape [2, 3, 4] cannot broadcast to the indexing result of shape [3, 4]");
  check_error([&] { index_put(z, {make<int64_t>({3}, {1})}, rows.narrow(0, 0, 1)); },
              ErrorCode::Index, "index 3 is out of bounds for dim 0 with size 3");
}

}  // namespace
}  // namespace bp::test
