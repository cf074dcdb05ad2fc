// Tests for plugins/reference/binary.cpp through the public API: add sub mul div (true, trunc,
// floor) pow maximum minimum eq ne lt le gt ge logical_and logical_or where clamp, against
// literals and PyTorch 1.13 output pasted as data: every allowed dtype, integer wrap-around
// and extremes (int64 beyond 2^53 compared exactly), f16/bf16 ties to even, NaN, +-Inf and
// -0.0, broadcast / transposed / stepped / offset / 0-d / empty operands, out= and in-place
// forms, and the errors (bool operands, alpha, integer division by zero, rounding mode).
#include "reference_checks.hpp"

#include <cstdint>
#include <limits>

namespace bp::test {
namespace {

using ST = ScalarType;
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t k2p53 = int64_t{1} << 53;

void check_signbits(const Tensor& t, const std::vector<bool>& want) {
  const std::vector<double> got = to_vector<double>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(std::signbit(got[i]) == want[i]);
  }
}

Tensor i64s(const std::vector<int64_t>& v) {
  return from_vector<int64_t>(v, {static_cast<int64_t>(v.size())}, kRef);
}

// ---- add / sub ------------------------------------------------------------------------------
TEST_CASE("add computes self + alpha * other on floating dtypes, NaN and Inf included") {
  check_values(add(make<float>({1.5, -2, kInf, kNaN}, {4}), make<float>({0.25, 2, -kInf, 1}, {4})),
               ST::Float32, {4}, {1.75, 0, kNaN, kNaN});
  check_values(add(make<float>({1, 2}, {2}), make<float>({4, 8}, {2}), 0.5), ST::Float32, {2},
               {3, 6});
  check_values(add(make<double>({0.1}, {1}), make<double>({0.2}, {1})), ST::Float64, {1},
               {0.30000000000000004});
  // 2^24 + 1 ties to even in f32.
  check_values(add(make<float>({16777216}, {1}), make<float>({1}, {1})), ST::Float32, {1},
               {16777216});
}

TEST_CASE("add rounds f16 and bf16 sums once, ties to even") {
  // 1 + 2^-11 ties down to 1; (1 + 2^-10) + 2^-11 ties up to 1 + 2^-9.
  check_values(add(make<Half>({1, 1 + 0x1p-10}, {2}), make<Half>({0x1p-11, 0x1p-11}, {2})),
               ST::Float16, {2}, {1, 1 + 0x1p-9});
  check_values(add(make<Half>({65504}, {1}), make<Half>({16}, {1})), ST::Float16, {1}, {kInf});
  // bf16: 1 + 2^-8 ties down to 1; (1 + 2^-7) + 2^-8 ties up to 1 + 2^-6.
  check_values(add(make<BFloat16>({1, 1 + 0x1p-7}, {2}), make<BFloat16>({0x1p-8, 0x1p-8}, {2})),
               ST::BFloat16, {2}, {1, 1 + 0x1p-6});
}

TEST_CASE("add wraps integers and treats bool as or") {
  // torch.add(int8 127, int8 3, alpha=100) == -85
  check_values(add(make<int8_t>({127}, {1}), make<int8_t>({3}, {1}), 100), ST::Int8, {1}, {-85});
  check_values(add(make<uint8_t>({255}, {1}), make<uint8_t>({1}, {1})), ST::UInt8, {1}, {0});
  check_values(add(make<int16_t>({32767}, {1}), make<int16_t>({1}, {1})), ST::Int16, {1}, {-32768});
  check_values(add(make<int32_t>({2147483647}, {1}), make<int32_t>({1}, {1})), ST::Int32, {1},
               {-2147483648.0});
  check_i64(add(i64s({kI64Max, k2p53}), i64s({1, 1})), {2}, {kI64Min, k2p53 + 1});
  // torch.add(tensor([1]), tensor([2**62]), alpha=4) == 1: 4 * 2^62 wraps to 0.
  check_i64(add(i64s({1}), i64s({int64_t{1} << 62}), 4), {1}, {1});
  check_values(add(make<bool>({1, 1, 0, 0}, {4}), make<bool>({1, 0, 1, 0}, {4})), ST::Bool, {4},
               {1, 1, 1, 0});
  check_values(add(make<bool>({0}, {1}), make<bool>({1}, {1}), 2), ST::Bool, {1}, {1});
  check_values(add(make<bool>({0}, {1}), make<bool>({1}, {1}), false), ST::Bool, {1}, {0});
}

TEST_CASE("sub computes self - alpha * other and wraps integers") {
  check_values(sub(make<float>({1, 2}, {2}), make<float>({4, 8}, {2}), 2), ST::Float32, {2},
               {-7, -14});
  check_values(sub(make<float>({kInf}, {1}), make<float>({kInf}, {1})), ST::Float32, {1}, {kNaN});
  check_values(sub(make<uint8_t>({0}, {1}), make<uint8_t>({1}, {1})), ST::UInt8, {1}, {255});
  check_values(sub(make<int8_t>({-128}, {1}), make<int8_t>({1}, {1})), ST::Int8, {1}, {127});
  check_values(sub(make<int16_t>({0}, {1}), make<int16_t>({-32768}, {1})), ST::Int16, {1},
               {-32768});
  check_values(sub(make<int32_t>({5}, {1}), make<int32_t>({7}, {1}), 3), ST::Int32, {1}, {-16});
  check_i64(sub(i64s({kI64Min, k2p53 + 1}), i64s({1, 1})), {2}, {kI64Max, k2p53});
  // Below 1 f16 steps by 2^-11: 1 - 2^-12 ties to even (1).
  check_values(sub(make<Half>({1, 1}, {2}), make<Half>({0x1p-11, 0x1p-12}, {2})), ST::Float16, {2},
               {1 - 0x1p-11, 1});
  check_values(sub(make<BFloat16>({1}, {1}), make<BFloat16>({0x1p-9}, {1})), ST::BFloat16, {1},
               {1});  // 1 - 2^-9 ties to even (1) in bf16
  check_values(sub(make<double>({1}, {1}), make<double>({0x1p-53}, {1})), ST::Float64, {1},
               {1 - 0x1p-53});
}

TEST_CASE("add and sub check alpha as PyTorch") {
  // "For integral input tensors, argument alpha must not be a floating point number."
  CHECK_THROWS_AS(add(make<int32_t>({1}, {1}), make<int32_t>({1}, {1}), 2.5), Error);
  // "Boolean alpha only supported for Boolean results."
  CHECK_THROWS_AS(add(make<float>({1}, {1}), make<float>({1}, {1}), true), Error);
  // "value cannot be converted to type int8_t without overflow"
  CHECK_THROWS_AS(add(make<int8_t>({1}, {1}), make<int8_t>({1}, {1}), 300), Error);
  CHECK_THROWS_AS(add(make<Half>({1}, {1}), make<Half>({1}, {1}), 1e6), Error);
  CHECK_THROWS_AS(sub(make<bool>({1}, {1}), make<bool>({1}, {1})), Error);
}

// ---- mul / div --------------------------------------------------------------------------------
TEST_CASE("mul wraps integers, ands bools and rounds floating products once") {
  check_values(mul(make<int8_t>({16, -128}, {2}), make<int8_t>({16, -1}, {2})), ST::Int8, {2},
               {0, -128});
  check_values(mul(make<uint8_t>({16}, {1}), make<uint8_t>({17}, {1})), ST::UInt8, {1}, {16});
  check_values(mul(make<int16_t>({-32768}, {1}), make<int16_t>({-1}, {1})), ST::Int16, {1},
               {-32768});
  check_values(mul(make<int32_t>({65536}, {1}), make<int32_t>({65536}, {1})), ST::Int32, {1}, {0});
  // torch.mul(tensor([3037000500]), tensor([3037000500]))
  check_i64(mul(i64s({3037000500, k2p53 + 1}), i64s({3037000500, 1})), {2},
            {-9223372036709301616, k2p53 + 1});
  check_values(mul(make<bool>({1, 1, 0}, {3}), make<bool>({1, 0, 0}, {3})), ST::Bool, {3},
               {1, 0, 0});
  // 3 * (1 + 2^-10) = 3 + 1.5 * 2^-9 ties to even in f16: 3 + 2^-8.
  check_values(mul(make<Half>({3}, {1}), make<Half>({1 + 0x1p-10}, {1})), ST::Float16, {1},
               {3.00390625});
  check_values(mul(make<BFloat16>({3}, {1}), make<BFloat16>({1 + 0x1p-7}, {1})), ST::BFloat16, {1},
               {3.03125});  // 3 + 1.5 * 2^-6 ties to 3 + 2^-5
  const Tensor f = mul(make<float>({-0.0, kInf}, {2}), make<float>({5, 0}, {2}));
  check_values(f, ST::Float32, {2}, {0, kNaN});
  check_signbits(f.narrow(0, 0, 1), {true});
  check_values(mul(make<double>({1e200}, {1}), make<double>({1e200}, {1})), ST::Float64, {1},
               {kInf});
}

TEST_CASE("div is true division with IEEE results, promoting integers") {
  check_values(div(make<float>({1, -1, 0, 1, 7}, {5}), make<float>({0, 0, 0, -0.0, 2}, {5})),
               ST::Float32, {5}, {kInf, -kInf, kNaN, -kInf, 3.5});
  check_values(div(make<float>({1}, {1}), make<float>({3}, {1})), ST::Float32, {1},
               {0.3333333432674408});
  check_values(div(make<Half>({1}, {1}), make<Half>({3}, {1})), ST::Float16, {1}, {0.333251953125});
  check_values(div(make<BFloat16>({1}, {1}), make<BFloat16>({3}, {1})), ST::BFloat16, {1},
               {0.333984375});
  check_values(div(make<double>({1}, {1}), make<double>({3}, {1})), ST::Float64, {1},
               {0.3333333333333333});
  check_values(div(i64s({7}), i64s({2})), ST::Float32, {1}, {3.5});
  check_values(div(make<int8_t>({1}, {1}), make<int8_t>({0}, {1})), ST::Float32, {1}, {kInf});
}

TEST_CASE("div with rounding_mode trunc and floor on integers") {
  const Tensor a = i64s({-7, 7, -7, 7, 0});
  const Tensor b = i64s({2, -2, -2, 2, -3});
  check_i64(div(a, b, "floor"), {5}, {-4, -4, 3, 3, 0});
  check_i64(div(a, b, "trunc"), {5}, {-3, -3, 3, 3, 0});
  // INT_MIN / -1 wraps to INT_MIN (PyTorch: the same for int8/int16, SIGFPE for int32/int64).
  check_values(div(make<int8_t>({-128}, {1}), make<int8_t>({-1}, {1}), "trunc"), ST::Int8, {1},
               {-128});
  check_values(div(make<int8_t>({-128}, {1}), make<int8_t>({-1}, {1}), "floor"), ST::Int8, {1},
               {-128});
  check_values(div(make<int16_t>({-7, 7, -32768}, {3}), make<int16_t>({2, -2, -1}, {3}), "floor"),
               ST::Int16, {3}, {-4, -4, -32768});
  check_values(
      div(make<int32_t>({-7, 7, -2147483648.0}, {3}), make<int32_t>({2, -2, -1}, {3}), "trunc"),
      ST::Int32, {3}, {-3, -3, -2147483648.0});
  check_i64(div(i64s({kI64Min, kI64Min, kI64Max}), i64s({-1, -1, 2}), "floor"), {3},
            {kI64Min, kI64Min, kI64Max / 2});
  check_i64(div(i64s({kI64Min}), i64s({-1}), "trunc"), {1}, {kI64Min});
  check_values(div(make<uint8_t>({7, 249}, {2}), make<uint8_t>({2, 2}, {2}), "floor"), ST::UInt8,
               {2}, {3, 124});
  // No rounding mode: true division, promoted to the default float dtype.
  check_values(div(i64s({7}), i64s({2}), std::nullopt), ST::Float32, {1}, {3.5});
}

TEST_CASE("div with rounding_mode on floats follows Python's floor division") {
  const Tensor a = make<double>({-7, 7, -7, 7, 0, -0.0, 1, -1, kInf, -kInf, kNaN, 1, 5, -5}, {14});
  const Tensor b = make<double>({2, -2, -2, 2, -3, 3, 0, 0, 2, 2, 1, kInf, -kInf, kInf}, {14});
  // torch.div(a, b, rounding_mode='floor').tolist()
  const Tensor fl = div(a, b, "floor");
  check_values(fl, ST::Float64, {14},
               {-4, -4, 3, 3, 0, 0, kInf, -kInf, kNaN, kNaN, kNaN, 0, -1, -1});
  check_signbits(fl.narrow(0, 4, 2), {true, true});
  check_signbits(fl.narrow(0, 11, 1), {false});
  // torch.div(a, b, rounding_mode='trunc').tolist()
  const Tensor tr = div(a, b, "trunc");
  check_values(tr, ST::Float64, {14},
               {-3, -3, 3, 3, 0, 0, kInf, -kInf, kInf, -kInf, kNaN, 0, 0, 0});
  check_signbits(tr.narrow(0, 4, 2), {true, true});
  check_signbits(tr.narrow(0, 11, 3), {false, true, true});
  // 0.5 // -inf == -1, -0.5 // -inf == 0.0; 7 // 0.1 == 69 and 0.3 // 0.1 == 2 (fmod-exact).
  check_values(div(make<double>({0.5, -0.5, 7, 0.3}, {4}),
                   make<double>({-kInf, -kInf, 0.1, 0.1}, {4}), "floor"),
               ST::Float64, {4}, {-1, 0, 69, 2});
  check_values(
      div(make<double>({1e308, -1e308}, {2}), make<double>({1e-308, 1e-308}, {2}), "floor"),
      ST::Float64, {2}, {kInf, -kInf});
  check_values(div(make<Half>({-7}, {1}), make<Half>({2}, {1}), "floor"), ST::Float16, {1}, {-4});
  check_values(div(make<BFloat16>({-7}, {1}), make<BFloat16>({2}, {1}), "trunc"), ST::BFloat16, {1},
               {-3});
  check_values(div(make<float>({1, -1, 0}, {3}), make<float>({-0.0, -0.0, 0}, {3}), "floor"),
               ST::Float32, {3}, {-kInf, kInf, kNaN});
  // PyTorch truncates the f32 quotient, which rounds up to 1120 here (the exact one is
  // 1119.99...): torch.div(tensor([854.9822998046875]), tensor([0.7633770704269409]),
  // rounding_mode='trunc') is 1120, as every device dividing in f32 computes it.
  check_values(
      div(make<float>({854.9822998046875}, {1}), make<float>({0.7633770704269409}, {1}), "trunc"),
      ST::Float32, {1}, {1120});
}

TEST_CASE("div refuses integer division by zero and leaves an in-place self unchanged") {
  check_error(
      [] {
        div(i64s({5, 1}), i64s({1, 0}), "trunc");
      },
      ErrorCode::InvalidArgument, "ZeroDivisionError");
  check_error([] { div(make<uint8_t>({5}, {1}), make<uint8_t>({0}, {1}), "floor"); },
              ErrorCode::InvalidArgument, "ZeroDivisionError");
  Tensor self = make<int32_t>({8, 9}, {2});
  CHECK_THROWS_AS(div_(self, make<int32_t>({2, 0}, {2}), "floor"), Error);
  check_values(self, ST::Int32, {2}, {8, 9});
}

TEST_CASE("div refuses an unknown rounding mode and bool operands") {
  check_error([] { div(make<float>({5}, {1}), make<float>({2}, {1}), "bad"); },
              ErrorCode::InvalidArgument, "rounding_mode");
  CHECK_THROWS_AS(div(make<bool>({1}, {1}), make<bool>({1}, {1}), "trunc"), Error);
}

// ---- pow
// ------------------------------------------------------------------------------------------
TEST_CASE("pow raises integers exactly with wrap-around, negative exponents as PyTorch") {
  // torch.pow(tensor([2, 1, -1, -1, 0, 3]), tensor([-1, -5, -3, -2, -1, 40]))
  check_i64(pow(i64s({2, 1, -1, -1, 0, 3}), i64s({-1, -5, -3, -2, -1, 40})), {6},
            {0, 1, -1, 1, 0, -6289078614652622815});
  check_i64(pow(i64s({kI64Min, -1, kI64Min}), i64s({-1, kI64Min, 2})), {3}, {0, 1, 0});
  check_values(pow(make<int8_t>({3, -3, -1, -1}, {4}), make<int8_t>({5, 3, -128, -127}, {4})),
               ST::Int8, {4}, {-13, -27, 1, -1});
  check_values(pow(make<uint8_t>({2, 3}, {2}), make<uint8_t>({9, 0}, {2})), ST::UInt8, {2}, {0, 1});
  check_values(pow(make<int16_t>({2, -2}, {2}), make<int16_t>({15, 15}, {2})), ST::Int16, {2},
               {-32768, -32768});
  check_values(pow(make<int32_t>({3}, {1}), make<int32_t>({20}, {1})), ST::Int32, {1},
               {-808182895});
}

TEST_CASE("pow of floating values follows std::pow's special cases") {
  // torch.pow(tensor([0., 0., -0., nan, 1., -8., 2., -inf]), tensor([0, -1, -1, 0, nan, 1/3,
  // 1025, 3]))
  check_values(pow(make<float>({0, 0, -0.0, kNaN, 1, -8, 2, -kInf}, {8}),
                   make<float>({0, -1, -1, 0, kNaN, 1.0 / 3, 1025, 3}, {8})),
               ST::Float32, {8}, {1, kInf, -kInf, 1, 1, kNaN, kInf, -kInf});
  check_values(pow(make<Half>({2}, {1}), make<Half>({0.5}, {1})), ST::Float16, {1}, {1.4140625});
  check_values(pow(make<BFloat16>({2}, {1}), make<BFloat16>({0.5}, {1})), ST::BFloat16, {1},
               {1.4140625});
  check_values(pow(make<double>({2, 10}, {2}), make<double>({0.5, -2}, {2})), ST::Float64, {2},
               {1.4142135623730951, 0.01});
  CHECK_THROWS_AS(pow(make<bool>({1}, {1}), make<bool>({1}, {1})), Error);
}

// ---- maximum / minimum --------------------------------------------------------------------------
TEST_CASE("maximum and minimum propagate NaN and order -0.0 below +0.0") {
  const Tensor a = make<float>({kNaN, 1, -0.0, 0.0, 2}, {5});
  const Tensor b = make<float>({1, kNaN, 0.0, -0.0, 3}, {5});
  const Tensor mx = maximum(a, b);
  check_values(mx, ST::Float32, {5}, {kNaN, kNaN, 0, 0, 3});
  check_signbits(mx.narrow(0, 2, 2), {false, false});
  const Tensor mn = minimum(a, b);
  check_values(mn, ST::Float32, {5}, {kNaN, kNaN, 0, 0, 2});
  check_signbits(mn.narrow(0, 2, 2), {true, true});
}

TEST_CASE("maximum and minimum on every dtype") {
  check_values(maximum(make<int8_t>({-128, 127}, {2}), make<int8_t>({127, -128}, {2})), ST::Int8,
               {2}, {127, 127});
  check_values(minimum(make<uint8_t>({200, 0}, {2}), make<uint8_t>({100, 255}, {2})), ST::UInt8,
               {2}, {100, 0});
  check_values(maximum(make<int16_t>({-5}, {1}), make<int16_t>({-6}, {1})), ST::Int16, {1}, {-5});
  check_values(minimum(make<int32_t>({-5}, {1}), make<int32_t>({-6}, {1})), ST::Int32, {1}, {-6});
  check_i64(maximum(i64s({k2p53 + 1, kI64Min}), i64s({k2p53, kI64Max})), {2}, {k2p53 + 1, kI64Max});
  check_i64(minimum(i64s({k2p53 + 1}), i64s({k2p53})), {1}, {k2p53});
  check_values(maximum(make<bool>({1, 0}, {2}), make<bool>({0, 0}, {2})), ST::Bool, {2}, {1, 0});
  check_values(minimum(make<bool>({1, 0}, {2}), make<bool>({1, 1}, {2})), ST::Bool, {2}, {1, 0});
  check_values(maximum(make<Half>({-kInf, 65504}, {2}), make<Half>({kNaN, kInf}, {2})), ST::Float16,
               {2}, {kNaN, kInf});
  check_values(minimum(make<BFloat16>({1.5}, {1}), make<BFloat16>({-1.5}, {1})), ST::BFloat16, {1},
               {-1.5});
  check_values(minimum(make<double>({1e-320}, {1}), make<double>({0}, {1})), ST::Float64, {1}, {0});
}

// ---- comparisons and logical ops ----------------------------------------------------------------
TEST_CASE("comparisons follow IEEE for NaN, -0.0 and infinities") {
  const Tensor a = make<float>({1, kNaN, -0.0, kInf}, {4});
  const Tensor b = make<float>({2, kNaN, 0.0, kInf}, {4});
  check_values(eq(a, b), ST::Bool, {4}, {0, 0, 1, 1});
  check_values(ne(a, b), ST::Bool, {4}, {1, 1, 0, 0});
  check_values(lt(a, b), ST::Bool, {4}, {1, 0, 0, 0});
  check_values(le(a, b), ST::Bool, {4}, {1, 0, 1, 1});
  check_values(gt(a, b), ST::Bool, {4}, {0, 0, 0, 0});
  check_values(ge(a, b), ST::Bool, {4}, {0, 0, 1, 1});
}

TEST_CASE("comparisons are exact for int64 beyond 2^53 and work on every dtype") {
  // As doubles both would be 2^53.
  check_values(eq(i64s({k2p53 + 1}), i64s({k2p53})), ST::Bool, {1}, {0});
  check_values(gt(i64s({k2p53 + 1, kI64Min}), i64s({k2p53, kI64Max})), ST::Bool, {2}, {1, 0});
  check_values(ne(i64s({kI64Max}), i64s({kI64Max - 1})), ST::Bool, {1}, {1});
  check_values(gt(make<bool>({1, 0}, {2}), make<bool>({0, 0}, {2})), ST::Bool, {2}, {1, 0});
  check_values(gt(make<uint8_t>({200}, {1}), make<uint8_t>({100}, {1})), ST::Bool, {1}, {1});
  check_values(lt(make<int8_t>({-1}, {1}), make<int8_t>({0}, {1})), ST::Bool, {1}, {1});
  check_values(le(make<int16_t>({-32768}, {1}), make<int16_t>({-32768}, {1})), ST::Bool, {1}, {1});
  check_values(ge(make<int32_t>({-2}, {1}), make<int32_t>({-1}, {1})), ST::Bool, {1}, {0});
  check_values(eq(make<Half>({1 + 0x1p-10}, {1}), make<Half>({1}, {1})), ST::Bool, {1}, {0});
  check_values(lt(make<BFloat16>({-kInf}, {1}), make<BFloat16>({-3e38}, {1})), ST::Bool, {1}, {1});
  check_values(eq(make<double>({0.1 + 0.2}, {1}), make<double>({0.3}, {1})), ST::Bool, {1}, {0});
  // Mixed dtypes compare in the promoted dtype: 1 (i64) == 1.0 (f32).
  check_values(eq(i64s({1}), make<float>({1}, {1})), ST::Bool, {1}, {1});
}

TEST_CASE("logical_and and logical_or treat nonzero and NaN as true") {
  // torch.logical_and(tensor([nan, 0., -0., 1.]), tensor([1., 1., 1., 1.]))
  check_values(logical_and(make<float>({kNaN, 0, -0.0, 1}, {4}), make<float>({1, 1, 1, 1}, {4})),
               ST::Bool, {4}, {1, 0, 0, 1});
  check_values(logical_or(make<float>({kNaN, 0, -0.0, 0}, {4}), make<float>({0, 0, 0, 2}, {4})),
               ST::Bool, {4}, {1, 0, 0, 1});
  check_values(logical_and(make<bool>({1, 1, 0}, {3}), make<bool>({1, 0, 0}, {3})), ST::Bool, {3},
               {1, 0, 0});
  check_values(logical_or(make<int8_t>({-128, 0}, {2}), make<int8_t>({0, 0}, {2})), ST::Bool, {2},
               {1, 0});
  check_values(logical_and(make<uint8_t>({255}, {1}), make<uint8_t>({1}, {1})), ST::Bool, {1}, {1});
  check_values(logical_or(make<int16_t>({0}, {1}), make<int16_t>({0}, {1})), ST::Bool, {1}, {0});
  check_values(logical_and(make<int32_t>({5}, {1}), make<int32_t>({0}, {1})), ST::Bool, {1}, {0});
  check_values(logical_and(i64s({kI64Min}), i64s({1})), ST::Bool, {1}, {1});
  check_values(logical_or(make<Half>({0}, {1}), make<Half>({-0.0}, {1})), ST::Bool, {1}, {0});
  check_values(logical_and(make<BFloat16>({kInf}, {1}), make<BFloat16>({1}, {1})), ST::Bool, {1},
               {1});
  check_values(logical_or(make<double>({0x1p-1074}, {1}), make<double>({0}, {1})), ST::Bool, {1},
               {1});
  Tensor b = make<bool>({1, 0}, {2});
  logical_and_(b, make<bool>({0, 0}, {2}));
  check_values(b, ST::Bool, {2}, {0, 0});
}

// ---- where
// ----------------------------------------------------------------------------------------
TEST_CASE("where picks self where the condition holds, in the promoted dtype") {
  // torch.where(tensor([True, False]), tensor([1., 2.]), tensor([3, 4])) == [1., 4.]
  check_values(where(make<bool>({1, 0}, {2}), make<float>({1, 2}, {2}), i64s({3, 4})), ST::Float32,
               {2}, {1, 4});
  check_values(where(make<bool>({1, 0}, {2, 1}), make<float>({1, 2, 3}, {1, 3}),
                     make<float>({-1, -2, -3}, {1, 3})),
               ST::Float32, {2, 3}, {1, 2, 3, -1, -2, -3});
  check_i64(where(make<bool>({0, 1}, {2}), i64s({kI64Max, k2p53 + 1}), i64s({kI64Min, 0})), {2},
            {kI64Min, k2p53 + 1});
  check_values(
      where(make<bool>({1, 0}, {2}), make<Half>({kNaN, 1}, {2}), make<Half>({0, -0.0}, {2})),
      ST::Float16, {2}, {kNaN, -0.0});
  check_values(where(make<bool>({1, 0}, {2}), make<bool>({0, 0}, {2}), make<bool>({1, 1}, {2})),
               ST::Bool, {2}, {0, 1});
  check_values(where(make<bool>({1}, {}), make<int8_t>({-128}, {}), make<int8_t>({0}, {})),
               ST::Int8, {}, {-128});
  check_values(where(make<bool>({}, {0}), make<uint8_t>({}, {0}), make<uint8_t>({}, {0})),
               ST::UInt8, {0}, {});
  Tensor base = zeros({2, 2}, ST::Float64, kRef);
  Tensor out = base.t();
  where_out(out, make<bool>({1, 0, 0, 1}, {2, 2}), make<double>({1, 2, 3, 4}, {2, 2}),
            make<double>({-1, -2, -3, -4}, {2, 2}));
  check_values(base, ST::Float64, {2, 2}, {1, -3, -2, 4});
}

// ---- clamp
// ----------------------------------------------------------------------------------------
TEST_CASE("clamp is min(max(x, lo), hi): lo > hi gives hi, NaN in x stays NaN") {
  // torch.clamp(tensor([1., 2., nan, 5.]), min=3., max=2.) == [2., 2., nan, 2.]
  check_values(clamp(make<float>({1, 2, kNaN, 5}, {4}), 3.0, 2.0), ST::Float32, {4},
               {2, 2, kNaN, 2});
  check_values(clamp(make<float>({1, 2, kNaN}, {3}), 1.5), ST::Float32, {3}, {1.5, 2, kNaN});
  check_values(clamp(make<float>({1, 2, kNaN}, {3}), std::nullopt, 1.5), ST::Float32, {3},
               {1, 1.5, kNaN});
  check_values(clamp(make<float>({1, 2}, {2}), kInf), ST::Float32, {2}, {kInf, kInf});
  check_values(clamp(make<float>({1, 2}, {2}), -kInf, 1.5), ST::Float32, {2}, {1, 1.5});
  // torch.clamp(tensor([-0.0, 0.0]), min=0.0) keeps -0.0 (it is not below 0.0).
  const Tensor z = clamp(make<float>({-0.0, 0.0}, {2}), 0.0);
  check_signbits(z, {true, false});
  check_signbits(clamp(make<float>({-0.0, 0.0}, {2}), std::nullopt, -0.0), {true, false});
}

TEST_CASE("clamp with a NaN bound gives NaN") {
  // As torch.clamp(x, min=nan, max=1.) (PyTorch 1.13's CPU kernel ignores a lone NaN bound).
  check_values(clamp(make<float>({1, 2}, {2}), kNaN), ST::Float32, {2}, {kNaN, kNaN});
  check_values(clamp(make<double>({1, 2}, {2}), std::nullopt, kNaN), ST::Float64, {2},
               {kNaN, kNaN});
  check_values(clamp(make<float>({0, 1, 2}, {3}), kNaN, 1.0), ST::Float32, {3}, {kNaN, kNaN, kNaN});
}

TEST_CASE("clamp converts bounds to the dtype and works on every non-bool dtype") {
  check_values(clamp(make<int32_t>({1, 2, 3}, {3}), 3, 1), ST::Int32, {3}, {1, 1, 1});
  check_i64(clamp(i64s({int64_t{1} << 62}), (int64_t{1} << 62) + 1), {1}, {(int64_t{1} << 62) + 1});
  check_values(clamp(make<int8_t>({-128, 0, 127}, {3}), -5, 5), ST::Int8, {3}, {-5, 0, 5});
  // torch.clamp(tensor([1], dtype=torch.uint8), min=-1) == [255]: -1 converts to 255.
  check_values(clamp(make<uint8_t>({1}, {1}), -1), ST::UInt8, {1}, {255});
  check_values(clamp(make<int16_t>({-300}, {1}), -200), ST::Int16, {1}, {-200});
  // An integral self with a floating bound is promoted: torch.clamp(tensor([1, 5]), min=2.5).
  check_values(clamp(i64s({1, 5}), 2.5), ST::Float32, {2}, {2.5, 5});
  // f16 bounds round first: 1.0001 is 1.0 in f16, 0.1 is 0.0999755859375.
  check_values(clamp(make<Half>({1, 0}, {2}), 1.0001), ST::Float16, {2}, {1, 1});
  check_values(clamp(make<Half>({0}, {1}), 0.1), ST::Float16, {1}, {0.0999755859375});
  check_values(clamp(make<BFloat16>({-3, 3}, {2}), -1, 1), ST::BFloat16, {2}, {-1, 1});
}

TEST_CASE("clamp refuses bool, two None bounds and bounds that overflow") {
  CHECK_THROWS_AS(clamp(make<bool>({1}, {1}), true), Error);
  CHECK_THROWS_AS(clamp(make<float>({1}, {1}), std::optional<Scalar>(), std::nullopt), Error);
  // "value cannot be converted to type int8_t without overflow"
  CHECK_THROWS_AS(clamp(make<int8_t>({1}, {1}), -1000), Error);
  CHECK_THROWS_AS(clamp(make<float>({1}, {1}), 1e300), Error);
}

// ---- layouts and forms ------------------------------------------------------------------------
TEST_CASE("binary ops broadcast, and read transposed, stepped and offset operands") {
  const Tensor x = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  check_values(add(x, make<float>({10, 20, 30}, {3})), ST::Float32, {2, 3},
               {11, 22, 33, 14, 25, 36});
  check_values(mul(make<int32_t>({1, 2}, {2, 1}), make<int32_t>({1, 10, 100}, {1, 3})), ST::Int32,
               {2, 3}, {1, 10, 100, 2, 20, 200});
  check_values(sub(x.t(), make<float>({1}, {})), ST::Float32, {3, 2}, {0, 3, 1, 4, 2, 5});
  check_values(maximum(x.slice(1, 0, std::nullopt, 2), x.narrow(1, 1, 2)), ST::Float32, {2, 2},
               {2, 3, 5, 6});
  check_values(gt(x.select(0, 1), x.select(0, 0)), ST::Bool, {3}, {1, 1, 1});
  check_values(add(make<float>({1}, {}), make<float>({2}, {})), ST::Float32, {}, {3});
  check_values(mul(make<float>({}, {0, 3}), make<float>({2, 2, 2}, {3})), ST::Float32, {0, 3}, {});
}

TEST_CASE("binary out= converts the computed result and in-place writes through a view") {
  // torch.add(int8 100, int8 100, out=int64) == -56: computed in int8, then converted.
  Tensor wide = zeros({1}, ST::Int64, kRef);
  add_out(wide, make<int8_t>({100}, {1}), make<int8_t>({100}, {1}));
  check_i64(wide, {1}, {-56});
  Tensor base = zeros({2, 2}, ST::Float32, kRef);
  Tensor out = base.t();
  sub_out(out, make<float>({1, 2, 3, 4}, {2, 2}), make<float>({1}, {1}));
  check_values(base, ST::Float32, {2, 2}, {0, 2, 1, 3});
  Tensor y = make<int32_t>({1, 2, 3, 4}, {2, 2});
  Tensor yt = y.t();
  add_(yt, make<int32_t>({10, 20}, {2}), 2);  // yt[i][j] += 2 * [10, 20][j]
  check_values(y, ST::Int32, {2, 2}, {21, 22, 43, 44});
  Tensor col = y.select(1, 0);  // [21, 43]
  mul_(col, make<int32_t>({-1}, {}));
  check_values(y, ST::Int32, {2, 2}, {-21, 22, -43, 44});
  Tensor c = make<float>({-5, 5}, {2});
  clamp_(c, -1, 1);
  check_values(c, ST::Float32, {2}, {-1, 1});
}

}  // namespace
}  // namespace bp::test
