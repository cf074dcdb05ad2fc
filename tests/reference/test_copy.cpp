// Tests for plugins/reference/data_movement_copy.cpp through the public API: copy_ (every pair of
// dtypes, strided and broadcast sources, strided and offset destinations, 0-d and empty tensors,
// PyTorch's float -> int, int -> int, bool and f16/bf16 rounding rules), fill_ (every dtype,
// PyTorch's overflow errors) and arange (floating and integral, wrap-around). Expected
// values are literals or PyTorch 1.13 (x86-64) output pasted as data.
#include "reference_checks.hpp"

#include <cstdint>
#include <limits>

namespace bp::test {
namespace {

using ST = ScalarType;
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();

// Calls f.template operator()<T>() for every element type of a Backplane dtype.
template <typename F>
void for_each_type(F&& f) {
  f.template operator()<bool>();
  f.template operator()<int8_t>();
  f.template operator()<uint8_t>();
  f.template operator()<int16_t>();
  f.template operator()<int32_t>();
  f.template operator()<int64_t>();
  f.template operator()<Half>();
  f.template operator()<BFloat16>();
  f.template operator()<float>();
  f.template operator()<double>();
}

// copy_ of `values` (f64) into a fresh tensor of `dtype`.
Tensor converted(const std::vector<double>& values, ScalarType dtype) {
  Tensor out = empty({static_cast<int64_t>(values.size())}, dtype, kRef);
  copy_(out, make<double>(values, {static_cast<int64_t>(values.size())}));
  return out;
}

// ---- copy_: layouts ---------------------------------------------------------------------
TEST_CASE("copy_ converts between every pair of dtypes, from a stepped source") {
  for_each_type([]<typename S>() {
    for_each_type([]<typename D>() {
      CAPTURE(dtype_name(dtype_of<S>()));
      CAPTURE(dtype_name(dtype_of<D>()));
      // Every other element of [0, 9, 1, 9, 2, 9, 5, 9] is [0, 1, 2, 5].
      const Tensor src = make<S>({0, 9, 1, 9, 2, 9, 5, 9}, {8}).slice(0, 0, std::nullopt, 2);
      Tensor dst = zeros({4}, dtype_of<D>(), kRef);
      copy_(dst, src);
      const bool to_or_from_bool = std::is_same_v<S, bool> || std::is_same_v<D, bool>;
      check_values(
          dst, dtype_of<D>(), {4},
          to_or_from_bool ? std::vector<double>{0, 1, 1, 1} : std::vector<double>{0, 1, 2, 5});
    });
  });
}

TEST_CASE("copy_ writes a transposed destination from a contiguous source") {
  Tensor base = zeros({3, 2}, ST::Float32, kRef);
  Tensor dst = base.t();  // [2, 3], strides [1, 2]
  copy_(dst, make<int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}));
  check_values(dst, ST::Float32, {2, 3}, {1, 2, 3, 4, 5, 6});
  check_values(base, ST::Float32, {3, 2}, {1, 4, 2, 5, 3, 6});
}

TEST_CASE("copy_ into an offset view leaves the rest of the storage untouched") {
  Tensor base = full({2, 4}, 7, ST::Int16, kRef);
  Tensor window = base.narrow(1, 1, 2);  // offset 1, strides [4, 1]
  copy_(window, make<double>({-1, -2, -3, -4}, {2, 2}));
  check_values(base, ST::Int16, {2, 4}, {7, -1, -2, 7, 7, -3, -4, 7});
}

TEST_CASE("copy_ broadcasts a smaller source over the destination") {
  Tensor dst = zeros({2, 3}, ST::Float64, kRef);
  copy_(dst, make<uint8_t>({1, 2, 3}, {3}));
  check_values(dst, ST::Float64, {2, 3}, {1, 2, 3, 1, 2, 3});
  copy_(dst, make<bool>({1}, {}));
  check_values(dst, ST::Float64, {2, 3}, {1, 1, 1, 1, 1, 1});
}

TEST_CASE("copy_ handles 0-d and empty tensors") {
  Tensor s = zeros({}, ST::BFloat16, kRef);
  copy_(s, make<float>({2.5}, {}));
  check_values(s, ST::BFloat16, {}, {2.5});
  Tensor e = zeros({0, 3}, ST::Int8, kRef);
  copy_(e, make<float>({}, {0, 3}));
  check_values(e, ST::Int8, {0, 3}, {});
}

TEST_CASE("copy_ refuses a source that does not broadcast") {
  Tensor dst = zeros({2, 3}, ST::Float32, kRef);
  check_error([&] { copy_(dst, make<float>({1, 2}, {2})); }, ErrorCode::Shape, "src");
}

// ---- copy_: conversions -----------------------------------------------------------------
TEST_CASE("copy_ from floating to integral truncates toward zero as PyTorch on x86-64") {
  // NaN, Inf and out-of-range values: int64/uint8 through a 64-bit conversion, the narrower
  // signed types through a 32-bit one ("integer indefinite" = the minimum), then wrapped.
  const std::vector<double> x = {kNaN, kInf, -kInf,        1e10,       -1e10,  3.7,     -3.7,
                                 300,  -129, 2147483647.9, 0x1p40 + 7, -300.7, 40000.5, -0.9};
  const Tensor f64 = make<double>(x, {14});
  auto to_dtype = [&](ST dt) {
    Tensor out = zeros({14}, dt, kRef);
    copy_(out, f64);
    return out;
  };
  // torch.tensor(x, dtype=torch.float64).to(dt).tolist()
  check_values(to_dtype(ST::Int8), ST::Int8, {14},
               {0, 0, 0, 0, 0, 3, -3, 44, 127, -1, 0, -44, 64, 0});
  check_values(to_dtype(ST::UInt8), ST::UInt8, {14},
               {0, 0, 0, 0, 0, 3, 253, 44, 127, 255, 7, 212, 64, 0});
  check_values(to_dtype(ST::Int16), ST::Int16, {14},
               {0, 0, 0, 0, 0, 3, -3, 300, -129, -1, 0, -300, -25536, 0});
  const double m32 = -2147483648.0;
  check_values(to_dtype(ST::Int32), ST::Int32, {14},
               {m32, m32, m32, m32, m32, 3, -3, 300, -129, 2147483647, m32, -300, 40000, 0});
  check_i64(to_dtype(ST::Int64), {14},
            {kI64Min, kI64Min, kI64Min, 10000000000, -10000000000, 3, -3, 300, -129, 2147483647,
             1099511627783, -300, 40000, 0});
}

TEST_CASE("copy_ from f32, f16 and bf16 to integers follows the same rules") {
  // 2147483647.9 is 2^31 as f32; 2^40 + 7 is 2^40.
  const Tensor f32 = make<float>({kNaN, 300, -300.7f, 2147483647.9f, 0x1p40}, {5});
  Tensor i32 = zeros({5}, ST::Int32, kRef);
  copy_(i32, f32);
  check_values(i32, ST::Int32, {5}, {-2147483648.0, 300, -300, -2147483648.0, -2147483648.0});
  Tensor i64 = zeros({5}, ST::Int64, kRef);
  copy_(i64, f32);
  check_i64(i64, {5}, {kI64Min, 300, -300, 2147483648, 1099511627776});
  // torch.tensor([nan, inf, 300, -3.5, 65504], dtype=torch.float16).to(torch.int8)
  Tensor i8 = zeros({5}, ST::Int8, kRef);
  copy_(i8, make<Half>({kNaN, kInf, 300, -3.5, 65504}, {5}));
  check_values(i8, ST::Int8, {5}, {0, 0, 44, -3, -32});
  // torch.tensor([nan, -inf, 3e9, -2.75], dtype=torch.bfloat16).to(torch.uint8)
  Tensor u8 = zeros({4}, ST::UInt8, kRef);
  copy_(u8, make<BFloat16>({kNaN, -kInf, 3e9, -2.75}, {4}));
  check_values(u8, ST::UInt8, {4}, {0, 0, 0, 254});
}

TEST_CASE("copy_ between integral types wraps modulo 2^bits") {
  const Tensor i16 = make<int16_t>({-129, 128, 255, 256, -1}, {5});
  Tensor i8 = zeros({5}, ST::Int8, kRef);
  copy_(i8, i16);
  check_values(i8, ST::Int8, {5}, {127, -128, -1, 0, -1});
  Tensor u8 = zeros({5}, ST::UInt8, kRef);
  copy_(u8, i16);
  check_values(u8, ST::UInt8, {5}, {127, 128, 255, 0, 255});
  Tensor back = zeros({2}, ST::Int8, kRef);
  copy_(back, make<uint8_t>({255, 128}, {2}));
  check_values(back, ST::Int8, {2}, {-1, -128});
  // int64 values beyond 2^53 survive an int64 -> int64 copy and wrap into int32.
  const Tensor big = from_vector<int64_t>({(int64_t{1} << 62) + 1, kI64Min}, {2});
  check_i64(clone(big), {2}, {(int64_t{1} << 62) + 1, kI64Min});
  Tensor i32 = zeros({2}, ST::Int32, kRef);
  copy_(i32, big);
  check_values(i32, ST::Int32, {2}, {1, 0});
}

TEST_CASE("copy_ to bool is != 0 with NaN true, and from bool gives 0 and 1") {
  Tensor b = zeros({5}, ST::Bool, kRef);
  copy_(b, make<float>({0.0, -0.0, kNaN, 1e-30f, -kInf}, {5}));
  check_values(b, ST::Bool, {5}, {0, 0, 1, 1, 1});
  copy_(b, make<int64_t>({0, -5, 256, 0, 1}, {5}));
  check_values(b, ST::Bool, {5}, {0, 1, 1, 0, 1});
  Tensor h = zeros({2}, ST::Float16, kRef);
  copy_(h, make<bool>({1, 0}, {2}));
  check_values(h, ST::Float16, {2}, {1, 0});
}

TEST_CASE("copy_ to f16 rounds to nearest even, to inf on overflow and into subnormals") {
  // 1 + 2^-11 lies halfway between 1 and 1 + 2^-10: even is 1. 1 + 3 * 2^-11 lies halfway
  // between 1 + 2^-10 and 1 + 2^-9: even is 1 + 2^-9.
  check_values(
      converted({1 + 0x1p-11, 1 + 3 * 0x1p-11, 65504, 65519.99, 65520, -65520}, ST::Float16),
      ST::Float16, {6}, {1, 1 + 0x1p-9, 65504, 65504, kInf, -kInf});
  // Subnormals are multiples of 2^-24: 2^-25 ties to 0, 3 * 2^-25 ties to 2^-23.
  const Tensor f32 = make<float>({0x1p-25f, 0x1.000002p-25f, 3 * 0x1p-25f, 6.1e-5f, 1e-7f}, {5});
  Tensor h = zeros({5}, ST::Float16, kRef);
  copy_(h, f32);
  check_values(h, ST::Float16, {5}, {0, 0x1p-24, 0x1p-23, 6.097555160522461e-05, 0x1p-23});
}

TEST_CASE("copy_ rounds f64 to f16 and bf16 once (PyTorch rounds twice, through f32)") {
  // 1 + 2^-11 + 2^-40 is just above the f16 midpoint 1 + 2^-11, so it rounds up; through
  // f32 it would first become the midpoint and then round to even (PyTorch gives 1.0).
  check_values(converted({1 + 0x1p-11 + 0x1p-40}, ST::Float16), ST::Float16, {1}, {1 + 0x1p-10});
  check_values(converted({1 + 0x1p-8 + 0x1p-40}, ST::BFloat16), ST::BFloat16, {1}, {1 + 0x1p-7});
  // bf16 ties to even as well: 1 + 2^-8 -> 1, 1 + 3 * 2^-8 -> 1 + 2^-6.
  check_values(converted({1 + 0x1p-8, 1 + 3 * 0x1p-8, 3.4e38, -1e-45}, ST::BFloat16), ST::BFloat16,
               {4}, {1, 1 + 0x1p-6, kInf, -0.0});
  // f16 -> f32 -> f16 round trip is exact.
  const Tensor h = make<Half>({0x1p-24, 65504, -0.0, kNaN}, {4});
  Tensor f = zeros({4}, ST::Float32, kRef);
  copy_(f, h);
  check_values(f, ST::Float32, {4}, {0x1p-24, 65504, 0, kNaN});
}

TEST_CASE("copy_ from large integers rounds once into floating types") {
  // 2^60 + 2^52 + 1 is just above a bf16 midpoint; as a double it would be the midpoint.
  const Tensor big = from_vector<int64_t>({(int64_t{1} << 60) + (int64_t{1} << 52) + 1}, {1});
  Tensor bf = zeros({1}, ST::BFloat16, kRef);
  copy_(bf, big);
  check_values(bf, ST::BFloat16, {1}, {0x1p60 + 0x1p53});
  Tensor f = zeros({1}, ST::Float32, kRef);
  copy_(f, from_vector<int64_t>({(int64_t{1} << 62) + (int64_t{1} << 38) + 1}, {1}));
  check_values(f, ST::Float32, {1}, {0x1p62 + 0x1p39});  // torch: 4.611686568183202e+18
  Tensor d = zeros({1}, ST::Float64, kRef);
  copy_(d, from_vector<int64_t>({(int64_t{1} << 53) + 1}, {1}));
  check_values(d, ST::Float64, {1}, {0x1p53});
  // int32 -> f16: torch.tensor([2049, 2051, 65519, 65520, -65520]).to(torch.float16)
  Tensor h = zeros({5}, ST::Float16, kRef);
  copy_(h, make<int32_t>({2049, 2051, 65519, 65520, -65520}, {5}));
  check_values(h, ST::Float16, {5}, {2048, 2052, 65504, kInf, -kInf});
}

// ---- fill_ --------------------------------------------------------------------------------
TEST_CASE("fill_ writes every dtype") {
  for_each_type([]<typename T>() {
    CAPTURE(dtype_name(dtype_of<T>()));
    Tensor t = empty({2, 2}, dtype_of<T>(), kRef);
    fill_(t, 3);
    check_values(t, dtype_of<T>(), {2, 2}, std::vector<double>(4, std::is_same_v<T, bool> ? 1 : 3));
  });
}

TEST_CASE("fill_ converts the value as PyTorch's checked conversion") {
  auto filled = [](ST dt, Scalar v) {
    Tensor t = zeros({2}, dt, kRef);
    fill_(t, v);
    return t;
  };
  check_values(filled(ST::Int8, 2.7), ST::Int8, {2}, {2, 2});
  check_values(filled(ST::Int8, -2.7), ST::Int8, {2}, {-2, -2});
  check_values(filled(ST::UInt8, -1), ST::UInt8, {2}, {255, 255});
  check_values(filled(ST::UInt8, -255), ST::UInt8, {2}, {1, 1});
  check_values(filled(ST::Bool, kNaN), ST::Bool, {2}, {1, 1});
  check_values(filled(ST::Bool, 0.0), ST::Bool, {2}, {0, 0});
  check_values(filled(ST::Bool, 5), ST::Bool, {2}, {1, 1});
  check_values(filled(ST::Int32, true), ST::Int32, {2}, {1, 1});
  check_values(filled(ST::Float16, 0.1), ST::Float16, {2}, {0.0999755859375, 0.0999755859375});
  check_values(filled(ST::Float16, 65504), ST::Float16, {2}, {65504, 65504});
  check_values(filled(ST::Float16, -kInf), ST::Float16, {2}, {-kInf, -kInf});
  check_values(filled(ST::Float32, kNaN), ST::Float32, {2}, {kNaN, kNaN});
  // Rounded once: just above the f16 midpoint 1 + 2^-11 (PyTorch, through f32, gives 1).
  check_values(filled(ST::Float16, 1 + 0x1p-11 + 0x1p-30), ST::Float16, {2},
               {1 + 0x1p-10, 1 + 0x1p-10});
  check_i64(filled(ST::Int64, int64_t{9223372036854775807}), {2},
            {9223372036854775807, 9223372036854775807});
  check_i64(filled(ST::Int64, -9.2e18), {2}, {-9200000000000000000, -9200000000000000000});
}

TEST_CASE("fill_ refuses values that overflow the dtype") {
  auto fill = [](ST dt, Scalar v) {
    Tensor t = zeros({2}, dt, kRef);
    fill_(t, v);
  };
  // Each of these is "value cannot be converted to type ... without overflow" in PyTorch.
  const std::vector<std::pair<ST, Scalar>> cases = {
      {ST::Int8, 300},     {ST::Int8, -129},     {ST::Int8, 127.5},       {ST::UInt8, -256},
      {ST::UInt8, -1.0},   {ST::UInt8, -0.5},    {ST::Int32, kNaN},       {ST::Int64, kInf},
      {ST::Int64, 9.3e18}, {ST::Float16, 70000}, {ST::Float16, 65519.99}, {ST::BFloat16, 3.4e38},
      {ST::Float32, 1e300}};
  for (const auto& c : cases) {
    CAPTURE(dtype_name(c.first));
    CAPTURE(c.second.str());
    CHECK_THROWS_AS(fill(c.first, c.second), Error);
  }
}

TEST_CASE("fill_ writes only the elements of a strided view") {
  Tensor base = zeros({3, 4}, ST::Int32, kRef);
  Tensor view = base.slice(1, 1, std::nullopt, 2).t();  // columns 1 and 3, transposed
  fill_(view, -7);
  check_values(base, ST::Int32, {3, 4}, {0, -7, 0, -7, 0, -7, 0, -7, 0, -7, 0, -7});
  Tensor s = zeros({}, ST::Float64, kRef);
  fill_(s, 0.5);
  check_values(s, ST::Float64, {}, {0.5});
  Tensor e = zeros({0}, ST::Float64, kRef);
  fill_(e, 1);
  check_values(e, ST::Float64, {0}, {});
}

// ---- arange -------------------------------------------------------------------------------
TEST_CASE("arange computes start + i * step in double for floating dtypes") {
  check_values(arange(0, 1, 0.25, ST::Float32), ST::Float32, {4}, {0, 0.25, 0.5, 0.75});
  check_values(arange(5, 0, -1.5), ST::Float32, {4}, {5, 3.5, 2, 0.5});
  // torch.arange(0, 1, 0.1, dtype=torch.float64): i * 0.1, not a running sum.
  check_values(arange(0, 1, 0.1, ST::Float64), ST::Float64, {10},
               {0.0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001,
                0.7000000000000001, 0.8, 0.9});
  // torch.arange(0, 1, 0.1, dtype=torch.float16)
  check_values(arange(0, 1, 0.1, ST::Float16), ST::Float16, {10},
               {0.0, 0.0999755859375, 0.199951171875, 0.300048828125, 0.39990234375, 0.5,
                0.60009765625, 0.7001953125, 0.7998046875, 0.89990234375});
  check_values(arange(-2, 2, 1, ST::BFloat16), ST::BFloat16, {4}, {-2, -1, 0, 1});
}

TEST_CASE("arange counts in int64 for integral dtypes and wraps into narrow ones") {
  check_i64(arange(0, 5), {5}, {0, 1, 2, 3, 4});
  check_values(arange(5, 0, -1.5, ST::Int32), ST::Int32, {4}, {5, 4, 3, 2});
  check_values(arange(0, 300, 100, ST::Int8), ST::Int8, {3}, {0, 100, -56});
  check_values(arange(0, 10, 3, ST::UInt8), ST::UInt8, {4}, {0, 3, 6, 9});
  check_values(arange(-4, 4, 3, ST::Int16), ST::Int16, {3}, {-4, -1, 2});
  const int64_t big = int64_t{1} << 62;
  check_i64(arange(big, big + 3), {3}, {big, big + 1, big + 2});
  check_values(arange(3, 3, 1, ST::Int64), ST::Int64, {0}, {});
}

TEST_CASE("arange refuses bool") {
  CHECK_THROWS_AS(arange(0, 3, 1, ST::Bool), Error);
}

}  // namespace
}  // namespace bp::test
