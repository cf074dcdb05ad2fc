// Tests for plugins/reference/reductions.cpp through the public API: sum, prod, amax, amin,
// argmax, argmin, all and any on reference:0 against hand-computed values (and a few PyTorch
// 1.13 results pasted as data): 0-d and empty inputs, non-contiguous views, keepdim both
// ways, negative dims, every dtype, f16/bf16 rounding, NaN/Inf and integer wrap-around.
#include "reference_checks.hpp"

#include <cstdint>
#include <limits>

namespace bp::test {
namespace {

using ST = ScalarType;
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// [[1, 2, 3], [4, 5, 6]]
Tensor x23() {
  return make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
}

// ---- sum ----------------------------------------------------------------------------------
TEST_CASE("sum reduces the given dims, keeping them with keepdim") {
  const Tensor x = x23();
  check_values(sum(x), ST::Float32, {}, {21});
  check_values(sum(x, Dims{1}), ST::Float32, {2}, {6, 15});
  check_values(sum(x, Dims{1}, true), ST::Float32, {2, 1}, {6, 15});
  check_values(sum(x, Dims{0}), ST::Float32, {3}, {5, 7, 9});
  check_values(sum(x, Dims{0}, true), ST::Float32, {1, 3}, {5, 7, 9});
  check_values(sum(x, Dims{0, 1}, true), ST::Float32, {1, 1}, {21});
}

TEST_CASE("sum accepts negative dims in any order") {
  const Tensor x = x23();
  check_values(sum(x, Dims{-1}), ST::Float32, {2}, {6, 15});
  check_values(sum(x, Dims{-2}, true), ST::Float32, {1, 3}, {5, 7, 9});
  check_values(sum(x, Dims{-1, 0}), ST::Float32, {}, {21});
}

TEST_CASE("sum reads transposed, stepped, offset and broadcast views") {
  const Tensor x = x23();
  check_values(sum(x.t(), Dims{0}), ST::Float32, {2}, {6, 15});
  check_values(sum(x.t(), Dims{1}), ST::Float32, {3}, {5, 7, 9});
  // [[1, 3], [4, 6]]
  check_values(sum(x.slice(1, 0, std::nullopt, 2), Dims{1}), ST::Float32, {2}, {4, 10});
  // [[4, 5, 6]] starts at element offset 3.
  check_values(sum(x.narrow(0, 1, 1), Dims{1}), ST::Float32, {1}, {15});
  // Stride 0: [[1, 2, 3], [1, 2, 3]].
  const Tensor row = make<float>({1, 2, 3}, {3});
  check_values(sum(row.expand({2, 3}), Dims{0}), ST::Float32, {3}, {2, 4, 6});
}

TEST_CASE("sum writes a strided out tensor") {
  Tensor base = zeros({3, 2}, ST::Float32, kRef);
  Tensor column = base.select(1, 1);  // stride 2, offset 1
  sum_out(column, make<float>({1, 2, 3, 4, 5, 6}, {3, 2}), Dims{1});
  check_values(base, ST::Float32, {3, 2}, {0, 3, 0, 7, 0, 11});
}

TEST_CASE("sum of a 0-d tensor is its value") {
  const Tensor s = make<float>({5}, {});
  check_values(sum(s), ST::Float32, {}, {5});
  check_values(sum(s, Dims{0}), ST::Float32, {}, {5});
  check_values(sum(s, Dims{-1}, true), ST::Float32, {}, {5});
}

TEST_CASE("sum of no elements is zero") {
  const Tensor e = zeros({0, 3}, ST::Float32, kRef);
  check_values(sum(e), ST::Float32, {}, {0});
  check_values(sum(e, Dims{0}), ST::Float32, {3}, {0, 0, 0});
  check_values(sum(e, Dims{0}, true), ST::Float32, {1, 3}, {0, 0, 0});
  check_values(sum(e, Dims{1}), ST::Float32, {0}, {});
  check_i64(sum(zeros({0}, ST::Int32, kRef)), {}, {0});
}

TEST_CASE("sum of integers and bool gives int64 without overflow") {
  check_i64(sum(make<int32_t>({2147483647, 1}, {2})), {}, {2147483648});
  check_i64(sum(make<int8_t>({100, 100}, {2})), {}, {200});
  check_i64(sum(make<uint8_t>({200, 100}, {2})), {}, {300});
  check_i64(sum(make<int16_t>({-30000, -30000}, {2})), {}, {-60000});
  check_i64(sum(make<bool>({1, 0, 1, 1}, {4})), {}, {3});
}

TEST_CASE("sum wraps around in the result dtype") {
  check_values(sum(make<int8_t>({100, 100}, {2}), std::nullopt, false, ST::Int8), ST::Int8, {},
               {-56});
  check_i64(sum(from_vector<int64_t>({int64_t{1} << 62, int64_t{1} << 62}, Dims{2}, kRef)), {},
            {kI64Min});
  check_i64(sum(from_vector<int64_t>({kI64Max, 1}, Dims{2}, kRef)), {}, {kI64Min});
  check_i64(sum(from_vector<int64_t>({kI64Min, -1}, Dims{2}, kRef)), {}, {kI64Max});
}

TEST_CASE("sum with dtype converts each element first, as PyTorch") {
  // torch.sum(torch.tensor([1.7, 1.7]), 0, dtype=torch.int64) == 2
  check_i64(sum(make<float>({1.7, 1.7}, {2}), std::nullopt, false, ST::Int64), {}, {2});
  // torch.sum(torch.tensor([2049, 1]), 0, dtype=torch.float16) == 2048 (2049 -> 2048 first)
  check_values(sum(make<int32_t>({2049, 1}, {2}), std::nullopt, false, ST::Float16), ST::Float16,
               {}, {2048});
  check_values(sum(make<float>({0.1f, 0.2f}, {2}), std::nullopt, false, ST::Float64), ST::Float64,
               {}, {static_cast<double>(0.1f) + static_cast<double>(0.2f)});
  // A bool sum is `any`: torch.sum(torch.tensor([1, 2]), 0, dtype=torch.bool) == True
  check_values(sum(make<int32_t>({1, 2}, {2}), std::nullopt, false, ST::Bool), ST::Bool, {}, {1});
}

TEST_CASE("sum of f16, bf16 and f32 rounds once, from a double accumulator") {
  // Adding in the element dtype would give 2048, 256 and 16777216.
  check_values(sum(make<Half>({2048, 1, 1}, {3})), ST::Float16, {}, {2050});
  check_values(sum(make<BFloat16>({256, 1, 1}, {3})), ST::BFloat16, {}, {258});
  check_values(sum(make<float>({16777216, 1, 1}, {3})), ST::Float32, {}, {16777218});
}

TEST_CASE("sum propagates NaN and infinities") {
  check_values(sum(make<float>({1, kInf}, {2})), ST::Float32, {}, {kInf});
  check_values(sum(make<float>({kInf, -kInf}, {2})), ST::Float32, {}, {kNaN});
  check_values(sum(make<double>({kNaN, 1, 2, 3}, {2, 2}), Dims{1}), ST::Float64, {2}, {kNaN, 5});
}

TEST_CASE_TEMPLATE("sum supports every dtype", T, bool, int8_t, uint8_t, int16_t, int32_t, int64_t,
                   Half, BFloat16, float, double) {
  const Tensor x = make<T>({1, 0, 1, 1}, {2, 2});
  const ST want = is_floating(dtype_of<T>()) ? dtype_of<T>() : ST::Int64;
  check_values(sum(x, Dims{0}), want, {2}, {2, 1});
  check_values(sum(x), want, {}, {3});
}

// ---- prod ---------------------------------------------------------------------------------
TEST_CASE("prod reduces one dim, negative or not, with keepdim both ways") {
  const Tensor x = x23();
  check_values(prod(x, 1), ST::Float32, {2}, {6, 120});
  check_values(prod(x, -1, true), ST::Float32, {2, 1}, {6, 120});
  check_values(prod(x, 0), ST::Float32, {3}, {4, 10, 18});
  check_values(prod(x, -2, true), ST::Float32, {1, 3}, {4, 10, 18});
  check_values(prod(x.t(), 0), ST::Float32, {2}, {6, 120});
  check_values(prod(x.slice(1, 1, std::nullopt, 1), 1), ST::Float32, {2}, {6, 30});
}

TEST_CASE("prod of a 0-d tensor is its value and of no elements is one") {
  check_values(prod(make<float>({3}, {}), 0), ST::Float32, {}, {3});
  check_values(prod(make<float>({3}, {}), -1, true), ST::Float32, {}, {3});
  check_values(prod(zeros({2, 0}, ST::Float32, kRef), 1), ST::Float32, {2}, {1, 1});
  check_i64(prod(zeros({0}, ST::Int8, kRef), 0), {}, {1});
}

TEST_CASE("prod of integers is int64 and wraps around") {
  check_i64(prod(make<int32_t>({65536, 65536}, {2}), 0), {}, {4294967296});
  // (2^32 + 1)^2 = 2^64 + 2^33 + 1 == 2^33 + 1 (mod 2^64)
  const int64_t big = (int64_t{1} << 32) + 1;
  check_i64(prod(from_vector<int64_t>({big, big}, Dims{2}, kRef), 0), {}, {(int64_t{1} << 33) + 1});
  check_i64(prod(from_vector<int64_t>({int64_t{1} << 40, int64_t{1} << 40}, Dims{2}, kRef), 0), {},
            {0});
  // torch.prod(torch.tensor([100, 100], dtype=torch.int8), 0, dtype=torch.int8) == 16
  check_values(prod(make<int8_t>({100, 100}, {2}), 0, false, ST::Int8), ST::Int8, {}, {16});
  check_i64(prod(make<bool>({1, 0, 1}, {3}), 0), {}, {0});
  check_i64(prod(make<uint8_t>({200, 3}, {2}), 0), {}, {600});
}

TEST_CASE("prod of floats rounds once and propagates NaN") {
  // (1 + 2^-10)^3 = 1 + 3*2^-10 + 3*2^-20 + 2^-30 rounds to 1 + 3*2^-10 in f16.
  const double e = 1.0 / 1024;
  check_values(prod(make<Half>({1 + e, 1 + e, 1 + e}, {3}), 0), ST::Float16, {}, {1 + 3 * e});
  check_values(prod(make<BFloat16>({3, 3, 3}, {3}), 0), ST::BFloat16, {}, {27});
  check_values(prod(make<float>({kNaN, 0}, {2}), 0), ST::Float32, {}, {kNaN});
  check_values(prod(make<float>({kInf, 0}, {2}), 0), ST::Float32, {}, {kNaN});
  check_values(prod(make<double>({-kInf, 2}, {2}), 0), ST::Float64, {}, {-kInf});
}

TEST_CASE_TEMPLATE("prod supports every dtype", T, bool, int8_t, uint8_t, int16_t, int32_t, int64_t,
                   Half, BFloat16, float, double) {
  // [[1, 2], [1, 3]], or all true for bool.
  const double two = std::is_same_v<T, bool> ? 1 : 2, three = std::is_same_v<T, bool> ? 1 : 3;
  const Tensor x = make<T>({1, two, 1, three}, {2, 2});
  const ST want = is_floating(dtype_of<T>()) ? dtype_of<T>() : ST::Int64;
  check_values(prod(x, 1), want, {2}, {two, three});
}

// ---- amax / amin --------------------------------------------------------------------------
TEST_CASE("amax and amin reduce the given dims, every dim when none") {
  const Tensor x = make<float>({1, 6, 3, 4, 2, 5}, {2, 3});
  check_values(amax(x), ST::Float32, {}, {6});
  check_values(amin(x), ST::Float32, {}, {1});
  check_values(amax(x, {1}), ST::Float32, {2}, {6, 5});
  check_values(amin(x, {-1}, true), ST::Float32, {2, 1}, {1, 2});
  check_values(amax(x, {0}, true), ST::Float32, {1, 3}, {4, 6, 5});
  check_values(amin(x, {0, -1}, true), ST::Float32, {1, 1}, {1});
  check_values(amax(x.t(), {1}), ST::Float32, {3}, {4, 6, 5});
  check_values(amin(x.slice(1, 0, std::nullopt, 2), {0}), ST::Float32, {2}, {1, 3});
  check_values(amax(make<float>({7}, {}), {}), ST::Float32, {}, {7});
}

TEST_CASE("amax and amin propagate NaN and order infinities") {
  const Tensor x = make<float>({1, kNaN, 3, -kInf, kInf, 0}, {2, 3});
  check_values(amax(x, {1}), ST::Float32, {2}, {kNaN, kInf});
  check_values(amin(x, {1}), ST::Float32, {2}, {kNaN, -kInf});
  check_values(amax(x, {0}), ST::Float32, {3}, {1, kNaN, 3});
  check_values(amin(x, {0}), ST::Float32, {3}, {-kInf, kNaN, 0});
}

TEST_CASE("amax and amin compare integers exactly and unsigned as unsigned") {
  const Tensor x = from_vector<int64_t>({kI64Min, kI64Max, kI64Max - 1}, Dims{3}, kRef);
  check_i64(amax(x), {}, {kI64Max});
  check_i64(amin(x), {}, {kI64Min});
  check_values(amax(make<uint8_t>({3, 200, 128}, {3})), ST::UInt8, {}, {200});
  check_values(amin(make<int8_t>({3, -128, 127}, {3})), ST::Int8, {}, {-128});
  check_values(amax(make<bool>({0, 1, 0}, {3})), ST::Bool, {}, {1});
  check_values(amin(make<bool>({0, 1, 1}, {3})), ST::Bool, {}, {0});
}

TEST_CASE("amax and amin of an empty reduction are errors, of an empty output are empty") {
  const Tensor e = zeros({0, 3}, ST::Float32, kRef);
  check_error([&] { amax(e, {0}); }, ErrorCode::InvalidArgument, "size 0");
  check_error([&] { amin(e); }, ErrorCode::InvalidArgument, "size 0");
  check_values(amax(e, {1}), ST::Float32, {0}, {});
}

TEST_CASE_TEMPLATE("amax and amin support every dtype", T, bool, int8_t, uint8_t, int16_t, int32_t,
                   int64_t, Half, BFloat16, float, double) {
  const Tensor x = make<T>({0, 1, 1, 0}, {2, 2});
  check_values(amax(x, {1}), dtype_of<T>(), {2}, {1, 1});
  check_values(amin(x, {0}), dtype_of<T>(), {2}, {0, 0});
}

// ---- argmax / argmin ----------------------------------------------------------------------
TEST_CASE("argmax and argmin without dim index the row-major flattened input") {
  // x = [[1, 5], [7, 2]]; x.t() = [[1, 7], [5, 2]] is read in its own row-major order.
  const Tensor x = make<float>({1, 5, 7, 2}, {2, 2});
  check_i64(argmax(x), {}, {2});
  check_i64(argmin(x), {}, {0});
  check_i64(argmax(x.t()), {}, {1});
  check_i64(argmin(x.t()), {}, {0});
  check_i64(argmin(x.t().slice(1, 1, std::nullopt, 1)), {}, {1});  // [[7], [2]]
  check_i64(argmax(x, std::nullopt, true), {1, 1}, {2});
  check_i64(argmax(make<float>({4}, {})), {}, {0});
}

TEST_CASE("argmax and argmin along a dim, negative or not, with keepdim") {
  const Tensor x = make<float>({1, 6, 3, 4, 2, 5}, {2, 3});
  check_i64(argmax(x, 1), {2}, {1, 2});
  check_i64(argmin(x, -1, true), {2, 1}, {0, 1});
  check_i64(argmax(x, 0), {3}, {1, 0, 1});
  check_i64(argmin(x, -2, true), {1, 3}, {0, 1, 0});
  check_i64(argmax(x.t(), 0), {2}, {1, 2});
  check_i64(argmax(make<float>({4}, {}), 0, true), {}, {0});
}

TEST_CASE("argmax and argmin pick the first of equal extremes") {
  check_i64(argmax(make<int64_t>({3, 1, 3}, {3})), {}, {0});
  check_i64(argmin(make<int64_t>({1, 1, 0, 0}, {4})), {}, {2});
  check_i64(argmax(make<float>({-0.0, 0.0}, {2})), {}, {0});
}

TEST_CASE("argmax and argmin pick the first NaN") {
  // torch.argmax/argmin(torch.tensor([1., nan, 3., nan])) == 1
  const Tensor x = make<float>({1, kNaN, 3, kNaN}, {4});
  check_i64(argmax(x), {}, {1});
  check_i64(argmin(x), {}, {1});
  check_i64(argmax(make<double>({kInf, 1, kNaN, 0}, {2, 2}), 1), {2}, {0, 0});
  check_i64(argmin(make<double>({kInf, 1, kNaN, 0}, {2, 2}), 0), {2}, {1, 1});
  check_i64(argmax(make<Half>({-kInf, kNaN}, {2})), {}, {1});
}

TEST_CASE("argmax and argmin compare int64 exactly") {
  const Tensor x =
      from_vector<int64_t>({kI64Max - 1, kI64Max, kI64Min + 1, kI64Min}, Dims{4}, kRef);
  check_i64(argmax(x), {}, {1});
  check_i64(argmin(x), {}, {3});
}

TEST_CASE("argmax and argmin reject bool and empty reductions") {
  check_error([] { argmax(make<bool>({1, 0}, {2})); }, ErrorCode::Type, "bool");
  check_error([] { argmin(make<bool>({1, 0}, {2}), 0); }, ErrorCode::Type, "bool");
  check_error([] { argmax(zeros({0}, ST::Float32, kRef)); }, ErrorCode::InvalidArgument, "empty");
  check_error(
      [] {
        argmin(zeros({2, 0}, ST::Float32, kRef), 1);
      },
      ErrorCode::InvalidArgument, "size 0");
  check_i64(argmax(zeros({0, 2}, ST::Float32, kRef), 1), {0}, {});
}

TEST_CASE_TEMPLATE("argmax and argmin support every dtype but bool", T, int8_t, uint8_t, int16_t,
                   int32_t, int64_t, Half, BFloat16, float, double) {
  const Tensor x = make<T>({3, 9, 9, 1}, {4});
  check_i64(argmax(x), {}, {1});
  check_i64(argmin(x), {}, {3});
  check_i64(argmax(x.view({2, 2}), 0), {2}, {1, 0});
}

// ---- all / any ----------------------------------------------------------------------------
TEST_CASE("all and any reduce one dim, negative or not, with keepdim") {
  const Tensor x = make<bool>({1, 1, 0, 0, 1, 0}, {2, 3});
  check_values(all(x, 1), ST::Bool, {2}, {0, 0});
  check_values(any(x, 1), ST::Bool, {2}, {1, 1});
  check_values(all(x, 0), ST::Bool, {3}, {0, 1, 0});
  check_values(any(x, -2, true), ST::Bool, {1, 3}, {1, 1, 0});
  check_values(all(x, -1, true), ST::Bool, {2, 1}, {0, 0});
  check_values(all(x.t(), 1), ST::Bool, {3}, {0, 1, 0});
  check_values(any(x.slice(1, 0, std::nullopt, 2), 1), ST::Bool, {2}, {1, 0});
  check_values(all(make<bool>({1}, {}), 0), ST::Bool, {}, {1});
}

TEST_CASE("all and any treat nonzero and NaN as true") {
  check_values(all(make<float>({1, kNaN}, {2}), 0), ST::Bool, {}, {1});
  check_values(any(make<float>({0, kNaN}, {2}), 0), ST::Bool, {}, {1});
  check_values(any(make<float>({0, -0.0}, {2}), 0), ST::Bool, {}, {0});
  check_values(all(make<double>({-kInf, 0.5}, {2}), 0), ST::Bool, {}, {1});
  check_values(all(make<int32_t>({-1, 2}, {2}), 0), ST::Bool, {}, {1});
}

TEST_CASE("all and any of no elements are true and false") {
  check_values(all(zeros({0}, ST::Float32, kRef), 0), ST::Bool, {}, {1});
  check_values(any(zeros({0}, ST::Float32, kRef), 0), ST::Bool, {}, {0});
  check_values(any(zeros({0, 2}, ST::Float32, kRef), 0), ST::Bool, {2}, {0, 0});
  // torch.all(torch.tensor([], dtype=torch.uint8), 0) == tensor(1, dtype=torch.uint8)
  check_values(all(zeros({0}, ST::UInt8, kRef), 0), ST::UInt8, {}, {1});
}

TEST_CASE_TEMPLATE("all and any support every dtype (u8 in gives u8 out)", T, bool, int8_t, uint8_t,
                   int16_t, int32_t, int64_t, Half, BFloat16, float, double) {
  const Tensor x = make<T>({1, 0, 1, 1}, {2, 2});
  const ST want = std::is_same_v<T, uint8_t> ? ST::UInt8 : ST::Bool;
  check_values(all(x, 1), want, {2}, {0, 1});
  check_values(any(x, 0), want, {2}, {1, 1});
}

}  // namespace
}  // namespace bp::test
