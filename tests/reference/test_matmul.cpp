// Tests for plugins/reference/linalg.cpp through the public API: matmul on reference:0 for
// 1-D, 2-D and batched operands with broadcast batch dims, against hand-computed values and
// PyTorch 1.13 results pasted as data; non-contiguous operands and outputs, empty operands,
// every dtype, f16/bf16 rounding, NaN/Inf, integer wrap-around and the errors.
#include "reference_checks.hpp"

#include <cstdint>
#include <limits>

namespace bp::test {
namespace {

using ST = ScalarType;

std::vector<double> iota(int n, double start = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}

// [[1, 2, 3], [4, 5, 6]] and [[7, 8], [9, 10], [11, 12]]
Tensor a23() {
  return make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
}
Tensor b32() {
  return make<float>({7, 8, 9, 10, 11, 12}, {3, 2});
}

TEST_CASE("matmul of two matrices") {
  check_values(matmul(a23(), b32()), ST::Float32, {2, 2}, {58, 64, 139, 154});
  check_values(matmul(b32(), a23()), ST::Float32, {3, 3}, {39, 54, 69, 49, 68, 87, 59, 82, 105});
}

TEST_CASE("matmul of vectors and matrices drops the vector's dim") {
  check_values(matmul(make<float>({1, 2}, {2}), a23()), ST::Float32, {3}, {9, 12, 15});
  check_values(matmul(a23(), make<float>({1, 0, -1}, {3})), ST::Float32, {2}, {-2, -2});
  check_values(matmul(make<float>({1, 2, 3}, {3}), make<float>({4, 5, 6}, {3})), ST::Float32, {},
               {32});
}

TEST_CASE("matmul of batched operands broadcasts the batch dims") {
  // torch.matmul((torch.arange(24.) - 5).reshape(2, 1, 3, 4),
  //              (torch.arange(40.) % 7 - 3).reshape(5, 4, 2))
  std::vector<double> b;
  for (int i = 0; i < 40; ++i) b.push_back(i % 7 - 3);
  const Tensor r = matmul(make<float>(iota(24, -5), {2, 1, 3, 4}), make<float>(b, {5, 4, 2}));
  check_values(r, ST::Float32, {2, 5, 3, 2},
               {10,  10,  10,  -2,  10,  -14, 10,  -4,  -2,  0,   -14, 4,  -4,  3,   0,
                -5,  4,   -13, 3,   -11, -5,  -3,  -13, 5,   -11, 3,   -3, -1,  5,   -5,
                10,  -26, 10,  -38, 10,  -50, -26, 8,   -38, 12,  -50, 16, 8,   -21, 12,
                -29, 16,  -37, -21, 13,  -29, 21,  -37, 29,  13,  -9,  21, -13, 29,  -17});
  // torch.matmul(torch.arange(3.), torch.arange(24.).reshape(4, 3, 2))
  check_values(matmul(make<float>(iota(3), {3}), make<float>(iota(24), {4, 3, 2})), ST::Float32,
               {4, 2}, {10, 13, 28, 31, 46, 49, 64, 67});
  // torch.matmul(torch.arange(24.).reshape(4, 2, 3), torch.tensor([1., -1, 2]))
  check_values(matmul(make<float>(iota(24), {4, 2, 3}), make<float>({1, -1, 2}, {3})), ST::Float32,
               {4, 2}, {3, 9, 15, 21, 27, 33, 39, 45});
}

TEST_CASE("matmul reads transposed, stepped and offset operands") {
  // a23().t() @ a23() = [[17, 22, 27], [22, 29, 36], [27, 36, 45]]
  check_values(matmul(a23().t(), a23()), ST::Float32, {3, 3}, {17, 22, 27, 22, 29, 36, 27, 36, 45});
  // Columns 0 and 2 of a23: [[1, 3], [4, 6]]; rows 1..2 of b32: [[9, 10], [11, 12]].
  check_values(matmul(a23().slice(1, 0, std::nullopt, 2), b32().narrow(0, 1, 2)), ST::Float32,
               {2, 2}, {42, 46, 102, 112});
  // A broadcast (stride-0) batch: both batches equal [[58, 64], [139, 154]].
  check_values(matmul(a23().expand({2, 2, 3}), b32()), ST::Float32, {2, 2, 2},
               {58, 64, 139, 154, 58, 64, 139, 154});
}

TEST_CASE("matmul writes a transposed out tensor") {
  Tensor base = zeros({2, 2}, ST::Float32, kRef);
  Tensor out = base.t();
  matmul_out(out, a23(), b32());
  check_values(base, ST::Float32, {2, 2}, {58, 139, 64, 154});
}

TEST_CASE("matmul with an empty contracted dim gives zeros, with an empty side nothing") {
  check_values(matmul(zeros({2, 0}, ST::Float32, kRef), zeros({0, 3}, ST::Float32, kRef)),
               ST::Float32, {2, 3}, {0, 0, 0, 0, 0, 0});
  check_i64(matmul(zeros({0}, ST::Int64, kRef), zeros({0}, ST::Int64, kRef)), {}, {0});
  check_values(matmul(zeros({0, 3}, ST::Float32, kRef), b32()), ST::Float32, {0, 2}, {});
  check_values(matmul(zeros({0, 2, 3}, ST::Float32, kRef), b32()), ST::Float32, {0, 2, 2}, {});
}

TEST_CASE("matmul of f16, bf16 and f32 accumulates in double and rounds once") {
  // Accumulating in the element dtype would give 2048, 256 and 16777216.
  check_values(matmul(make<Half>({2048, 1, 1}, {3}), make<Half>({1, 1, 1}, {3})), ST::Float16, {},
               {2050});
  check_values(matmul(make<BFloat16>({256, 1, 1}, {1, 3}), make<BFloat16>({1, 1, 1}, {3, 1})),
               ST::BFloat16, {1, 1}, {258});
  check_values(matmul(make<float>({16777216, 1, 1}, {3}), make<float>({1, 1, 1}, {3})), ST::Float32,
               {}, {16777218});
  // 0.1f * 10 in double is 1.0000000149..., which rounds to 1 in f32.
  check_values(matmul(make<float>({0.1}, {1, 1}), make<float>({10}, {1, 1})), ST::Float32, {1, 1},
               {1});
}

TEST_CASE("matmul propagates NaN and infinities") {
  check_values(matmul(make<float>({kInf, 1}, {2}), make<float>({0, 1}, {2})), ST::Float32, {},
               {kNaN});
  check_values(matmul(make<double>({kInf, 1, 1, kNaN}, {2, 2}), make<double>({1, 1}, {2})),
               ST::Float64, {2}, {kInf, kNaN});
}

TEST_CASE("matmul of integers wraps around like PyTorch") {
  // torch.matmul(torch.tensor([100], dtype=torch.int8), torch.tensor([3], dtype=torch.int8))
  check_values(matmul(make<int8_t>({100}, {1}), make<int8_t>({3}, {1})), ST::Int8, {}, {44});
  check_values(matmul(make<uint8_t>({200, 100}, {2}), make<uint8_t>({1, 1}, {2})), ST::UInt8, {},
               {44});
  const int64_t big = int64_t{1} << 62;
  check_i64(matmul(from_vector<int64_t>({big, 1}, Dims{2}, kRef),
                   from_vector<int64_t>({4, 5}, Dims{2}, kRef)),
            {}, {5});
  check_values(matmul(make<int32_t>({-2147483647 - 1}, {1}), make<int32_t>({-1}, {1})), ST::Int32,
               {}, {-2147483648.0});
}

TEST_CASE_TEMPLATE("matmul supports every dtype but bool", T, int8_t, uint8_t, int16_t, int32_t,
                   int64_t, Half, BFloat16, float, double) {
  const Tensor a = make<T>({1, 2, 3, 4}, {2, 2});
  const Tensor b = make<T>({5, 6, 7, 8}, {2, 2});
  check_values(matmul(a, b), dtype_of<T>(), {2, 2}, {19, 22, 43, 50});
}

TEST_CASE("matmul rejects bool, mixed dtypes, 0-d operands and mismatched shapes") {
  check_error(
      [] {
        matmul(make<bool>({1}, {1, 1}), make<bool>({1}, {1, 1}));
      },
      ErrorCode::Type, "bool");
  // torch: "expected scalar type Float but found Double"
  check_error([] { matmul(a23(), make<double>({1, 2, 3}, {3})); }, ErrorCode::Type, "f64");
  check_error([] { matmul(a23(), a23()); }, ErrorCode::Shape, "[2, 3]");
  check_error(
      [] {
        matmul(make<float>({1, 2}, {2}), make<float>({1, 2, 3}, {3}));
      },
      ErrorCode::Shape, "[3]");
  check_error(
      [] {
        matmul(make<float>(iota(12), {2, 2, 3}), make<float>(iota(18), {3, 3, 2}));
      },
      ErrorCode::Shape, "[2]");
  CHECK_THROWS_AS(matmul(make<float>({1}, {}), a23()), Error);
}

}  // namespace
}  // namespace bp::test
