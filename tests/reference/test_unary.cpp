// Tests for plugins/reference/unary.cpp through the public API: every unary op on every dtype
// it allows, against literals and values computed with mpmath at 200 bits (then rounded to
// the dtype) or PyTorch 1.13 output pasted as data: special values (NaN, +-Inf, -0.0),
// integer extremes and wrap-around, 0-d, empty, transposed, stepped, offset and broadcast
// inputs, out= and in-place forms, and the dtype errors.
#include "reference_checks.hpp"

#include <cstdint>
#include <limits>

namespace bp::test {
namespace {

using ST = ScalarType;
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr double kF64Rtol = 4e-16;  // two ulps: libm's exp/log/erf... need not be exact

// Checks std::signbit of every element (for results that are +-0.0).
void check_signbits(const Tensor& t, const std::vector<bool>& want) {
  const std::vector<double> got = to_vector<double>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CHECK(std::signbit(got[i]) == want[i]);
  }
}

// Inputs of the transcendental table: exact in every floating dtype.
const std::vector<double> kX = {0.5, -1.25, 3};

// ---- neg abs sign ---------------------------------------------------------------------------
TEST_CASE("neg negates every non-bool dtype and wraps integer minimums") {
  check_values(neg(make<int8_t>({-128, 127, 0}, {3})), ST::Int8, {3}, {-128, -127, 0});
  check_values(neg(make<uint8_t>({1, 0, 255}, {3})), ST::UInt8, {3}, {255, 0, 1});
  check_values(neg(make<int16_t>({-32768, 5}, {2})), ST::Int16, {2}, {-32768, -5});
  check_values(neg(make<int32_t>({-2147483648.0, -7}, {2})), ST::Int32, {2}, {-2147483648.0, 7});
  check_i64(neg(from_vector<int64_t>({kI64Min, kI64Max}, {2})), {2}, {kI64Min, -kI64Max});
  check_values(neg(make<Half>({1, 65504}, {2})), ST::Float16, {2}, {-1, -65504});
  check_values(neg(make<BFloat16>({2.5}, {1})), ST::BFloat16, {1}, {-2.5});
  const Tensor f = neg(make<float>({0, -kInf, kNaN, -0.0}, {4}));
  check_values(f, ST::Float32, {4}, {0, kInf, kNaN, 0});
  check_signbits(f.narrow(0, 0, 1), {true});
  check_values(neg(make<double>({1e-300}, {1})), ST::Float64, {1}, {-1e-300});
}

TEST_CASE("abs keeps INT_MIN (wraps) and clears the sign of -0.0") {
  check_values(abs(make<int8_t>({-128, -5, 5}, {3})), ST::Int8, {3}, {-128, 5, 5});
  check_values(abs(make<uint8_t>({200, 0}, {2})), ST::UInt8, {2}, {200, 0});
  check_values(abs(make<int16_t>({-32768, -1}, {2})), ST::Int16, {2}, {-32768, 1});
  check_values(abs(make<int32_t>({-2147483647, 3}, {2})), ST::Int32, {2}, {2147483647, 3});
  check_i64(abs(from_vector<int64_t>({kI64Min, -1, kI64Max}, {3})), {3}, {kI64Min, 1, kI64Max});
  const Tensor f = abs(make<float>({-0.0, -kInf, kNaN, -2.5}, {4}));
  check_values(f, ST::Float32, {4}, {0, kInf, kNaN, 2.5});
  check_signbits(f.narrow(0, 0, 1), {false});
  check_values(abs(make<Half>({-65504}, {1})), ST::Float16, {1}, {65504});
  check_values(abs(make<BFloat16>({-0.5}, {1})), ST::BFloat16, {1}, {0.5});
  check_values(abs(make<double>({-1e308}, {1})), ST::Float64, {1}, {1e308});
}

TEST_CASE("sign is 0 for NaN and +0.0 for -0.0, and works on bool and unsigned") {
  // torch.sign(torch.tensor([nan, -0.0, 0.0, inf, -inf, -2.]))
  const Tensor f = sign(make<float>({kNaN, -0.0, 0.0, kInf, -kInf, -2}, {6}));
  check_values(f, ST::Float32, {6}, {0, 0, 0, 1, -1, -1});
  check_signbits(f, {false, false, false, false, true, true});
  check_values(sign(make<bool>({1, 0}, {2})), ST::Bool, {2}, {1, 0});
  check_values(sign(make<uint8_t>({3, 0, 253}, {3})), ST::UInt8, {3}, {1, 0, 1});
  check_values(sign(make<int8_t>({3, -3, 0, -128}, {4})), ST::Int8, {4}, {1, -1, 0, -1});
  check_values(sign(make<int16_t>({-9, 9}, {2})), ST::Int16, {2}, {-1, 1});
  check_values(sign(make<int32_t>({0, -2147483648.0}, {2})), ST::Int32, {2}, {0, -1});
  check_i64(sign(from_vector<int64_t>({kI64Min, kI64Max, 0}, {3})), {3}, {-1, 1, 0});
  check_values(sign(make<Half>({-0.001, kNaN}, {2})), ST::Float16, {2}, {-1, 0});
  check_values(sign(make<BFloat16>({7}, {1})), ST::BFloat16, {1}, {1});
  check_values(sign(make<double>({-1e-320}, {1})), ST::Float64, {1}, {-1});  // subnormal
}

// ---- relu floor ceil logical_not ------------------------------------------------------------
TEST_CASE("relu keeps NaN and -0.0 and zeroes negatives") {
  // torch.relu(torch.tensor([nan, -0.0, -1., 2.])) == [nan, -0., 0., 2.]
  const Tensor f = relu(make<float>({kNaN, -0.0, -1, 2}, {4}));
  check_values(f, ST::Float32, {4}, {kNaN, 0, 0, 2});
  check_signbits(f.narrow(0, 1, 3), {true, false, false});
  check_values(relu(make<int8_t>({-128, -3, 3}, {3})), ST::Int8, {3}, {0, 0, 3});
  check_values(relu(make<uint8_t>({200}, {1})), ST::UInt8, {1}, {200});
  check_values(relu(make<int16_t>({-1, 1}, {2})), ST::Int16, {2}, {0, 1});
  check_values(relu(make<int32_t>({-5}, {1})), ST::Int32, {1}, {0});
  check_i64(relu(from_vector<int64_t>({kI64Min, kI64Max}, {2})), {2}, {0, kI64Max});
  check_values(relu(make<Half>({-1, 0.5}, {2})), ST::Float16, {2}, {0, 0.5});
  check_values(relu(make<BFloat16>({-kInf, kInf}, {2})), ST::BFloat16, {2}, {0, kInf});
  check_values(relu(make<double>({-1e-300}, {1})), ST::Float64, {1}, {0});
}

TEST_CASE("floor and ceil round floating values and copy integral ones") {
  // torch.floor / torch.ceil of [-0.5, -0.0, 2.5, nan, -inf]
  const Tensor x = make<float>({-0.5, -0.0, 2.5, kNaN, -kInf}, {5});
  check_values(floor(x), ST::Float32, {5}, {-1, 0, 2, kNaN, -kInf});
  check_signbits(floor(x).narrow(0, 1, 1), {true});
  check_values(ceil(x), ST::Float32, {5}, {0, 0, 3, kNaN, -kInf});
  check_signbits(ceil(x).narrow(0, 0, 2), {true, true});
  check_i64(floor(from_vector<int64_t>({kI64Min, 7}, {2})), {2}, {kI64Min, 7});
  check_i64(ceil(from_vector<int64_t>({kI64Max}, {1})), {1}, {kI64Max});
  check_values(floor(make<int8_t>({-3}, {1})), ST::Int8, {1}, {-3});
  check_values(ceil(make<uint8_t>({255}, {1})), ST::UInt8, {1}, {255});
  check_values(floor(make<int16_t>({-3}, {1})), ST::Int16, {1}, {-3});
  check_values(ceil(make<int32_t>({9}, {1})), ST::Int32, {1}, {9});
  check_values(floor(make<Half>({-1.5, 1.5}, {2})), ST::Float16, {2}, {-2, 1});
  check_values(ceil(make<BFloat16>({-1.5, 1.5}, {2})), ST::BFloat16, {2}, {-1, 2});
  check_values(floor(make<double>({0x1p51 + 0.5, -0x1p-1074}, {2})), ST::Float64, {2},
               {0x1p51, -1});
  check_values(ceil(make<double>({0x1p-1074}, {1})), ST::Float64, {1}, {1});
}

TEST_CASE("logical_not gives bool for every dtype, NaN counting as true") {
  check_values(logical_not(make<float>({kNaN, 0, -0.0, 2}, {4})), ST::Bool, {4}, {0, 1, 1, 0});
  check_values(logical_not(make<bool>({1, 0}, {2})), ST::Bool, {2}, {0, 1});
  check_values(logical_not(make<int8_t>({-128, 0}, {2})), ST::Bool, {2}, {0, 1});
  check_values(logical_not(make<uint8_t>({0, 255}, {2})), ST::Bool, {2}, {1, 0});
  check_values(logical_not(make<int16_t>({0}, {1})), ST::Bool, {1}, {1});
  check_values(logical_not(make<int32_t>({4}, {1})), ST::Bool, {1}, {0});
  check_values(logical_not(from_vector<int64_t>({0, kI64Min}, {2})), ST::Bool, {2}, {1, 0});
  check_values(logical_not(make<Half>({0, kInf}, {2})), ST::Bool, {2}, {1, 0});
  check_values(logical_not(make<BFloat16>({-0.0}, {1})), ST::Bool, {1}, {1});
  check_values(logical_not(make<double>({0x1p-1074}, {1})), ST::Bool, {1}, {0});
}

// ---- transcendental ops ---------------------------------------------------------------------
// Expected values: mpmath at 200 bits, rounded to f64 / f32 / f16 / bf16.
struct Expected {
  std::vector<double> f64, f32, f16;
};

template <typename F>
void check_table(F&& op, const Expected& e) {
  check_values(op(make<double>(kX, {3})), ST::Float64, {3}, e.f64, kF64Rtol);
  check_values(op(make<float>(kX, {3})), ST::Float32, {3}, e.f32);
  check_values(op(make<Half>(kX, {3})), ST::Float16, {3}, e.f16);
}

TEST_CASE("exp log sqrt rsqrt reciprocal are correctly rounded into each dtype") {
  check_table([](const Tensor& t) { return exp(t); },
              {{1.6487212707001282, 0.2865047968601901, 20.085536923187668},
               {1.6487212181091309, 0.2865048050880432, 20.08553695678711},
               {1.6484375, 0.28662109375, 20.078125}});
  check_values(exp(make<BFloat16>(kX, {3})), ST::BFloat16, {3}, {1.6484375, 0.287109375, 20.125});
  check_table([](const Tensor& t) { return log(t); },
              {{-0.6931471805599453, kNaN, 1.0986122886681098},
               {-0.6931471824645996, kNaN, 1.0986123085021973},
               {-0.693359375, kNaN, 1.0986328125}});
  check_table([](const Tensor& t) { return sqrt(t); },
              {{0.7071067811865476, kNaN, 1.7320508075688772},
               {0.7071067690849304, kNaN, 1.7320507764816284},
               {0.70703125, kNaN, 1.732421875}});
  check_table([](const Tensor& t) { return rsqrt(t); },
              {{1.4142135623730951, kNaN, 0.5773502691896257},
               {1.4142135381698608, kNaN, 0.5773502588272095},
               {1.4140625, kNaN, 0.5771484375}});
  check_table([](const Tensor& t) { return reciprocal(t); },
              {{2.0, -0.8, 0.3333333333333333},
               {2.0, -0.800000011920929, 0.3333333432674408},
               {2.0, -0.7998046875, 0.333251953125}});
}

TEST_CASE("sin cos tanh sigmoid erf are correctly rounded into each dtype") {
  check_table([](const Tensor& t) { return sin(t); },
              {{0.479425538604203, -0.9489846193555862, 0.1411200080598672},
               {0.4794255495071411, -0.9489846229553223, 0.14112000167369843},
               {0.4794921875, -0.94921875, 0.14111328125}});
  check_table([](const Tensor& t) { return cos(t); },
              {{0.8775825618903728, 0.3153223623952687, -0.9899924966004454},
               {0.8775825500488281, 0.3153223693370819, -0.9899924993515015},
               {0.87744140625, 0.3154296875, -0.990234375}});
  check_table([](const Tensor& t) { return tanh(t); },
              {{0.46211715726000974, -0.8482836399575129, 0.9950547536867305},
               {0.46211716532707214, -0.8482836484909058, 0.9950547814369202},
               {0.462158203125, -0.84814453125, 0.9951171875}});
  check_values(tanh(make<BFloat16>(kX, {3})), ST::BFloat16, {3},
               {0.462890625, -0.84765625, 0.99609375});
  check_table([](const Tensor& t) { return sigmoid(t); },
              {{0.6224593312018546, 0.22270013882530884, 0.9525741268224333},
               {0.622459352016449, 0.22270013391971588, 0.9525741338729858},
               {0.62255859375, 0.22265625, 0.95263671875}});
  check_values(sigmoid(make<BFloat16>(kX, {3})), ST::BFloat16, {3},
               {0.62109375, 0.22265625, 0.953125});
  check_table([](const Tensor& t) { return erf(t); },
              {{0.5204998778130465, -0.9229001282564583, 0.9999779095030014},
               {0.5204998850822449, -0.9229001402854919, 0.9999778866767883},
               {0.5205078125, -0.9228515625, 1.0}});
}

TEST_CASE("gelu computes the erf form and the tanh approximation") {
  check_table([](const Tensor& t) { return gelu(t); },
              {{0.34573123063700656, -0.13206221708356908, 2.99595030590511},
               {0.3457312285900116, -0.13206221163272858, 2.995950222015381},
               {0.345703125, -0.132080078125, 2.99609375}});
  check_table([](const Tensor& t) { return gelu(t, "tanh"); },
              {{0.34571400982514394, -0.1322857970302854, 2.996362607918227},
               {0.3457140028476715, -0.13228580355644226, 2.9963626861572266},
               {0.345703125, -0.13232421875, 2.99609375}});
  // Far in the negative tail both keep their tiny values (PyTorch's 1 + erf(x) form
  // cancels to -0.0 here): mpmath's x * Phi(x) and 0.5 x (1 + tanh(u)) at x = -10. The
  // tail is steep (relative error ~ x^2 times that of the argument), hence the tolerance.
  check_values(gelu(make<double>({-10}, {1})), ST::Float64, {1}, {-7.619853024160526e-23}, 1e-13);
  check_values(gelu(make<double>({-10}, {1}), "tanh"), ST::Float64, {1}, {-1.204092348209806e-37},
               1e-13);
  // torch.nn.functional.gelu(torch.tensor([-inf, inf, nan, 0.])) == [nan, inf, nan, 0.]
  const Tensor special = make<float>({-kInf, kInf, kNaN, 0}, {4});
  check_values(gelu(special), ST::Float32, {4}, {kNaN, kInf, kNaN, 0});
  check_values(gelu(special, "tanh"), ST::Float32, {4}, {kNaN, kInf, kNaN, 0});
  check_values(gelu(make<BFloat16>({1}, {1})), ST::BFloat16, {1}, {0.83984375});
}

TEST_CASE("transcendental ops give IEEE results at special values") {
  check_values(exp(make<float>({-kInf, kInf, kNaN, 0, 100}, {5})), ST::Float32, {5},
               {0, kInf, kNaN, 1, kInf});
  check_values(log(make<float>({0, -0.0, -1, kInf, 1}, {5})), ST::Float32, {5},
               {-kInf, -kInf, kNaN, kInf, 0});
  const Tensor s = sqrt(make<float>({-0.0, -1, kInf, 4}, {4}));
  check_values(s, ST::Float32, {4}, {0, kNaN, kInf, 2});
  check_signbits(s.narrow(0, 0, 1), {true});
  // torch.rsqrt(torch.tensor([-0.0, 0.0, -1., inf])) == [-inf, inf, nan, 0.]
  check_values(rsqrt(make<float>({-0.0, 0, -1, kInf, 4}, {5})), ST::Float32, {5},
               {-kInf, kInf, kNaN, 0, 0.5});
  check_values(reciprocal(make<float>({-0.0, 0, kInf, 4}, {4})), ST::Float32, {4},
               {-kInf, kInf, 0, 0.25});
  const Tensor sn = sin(make<float>({0, -0.0, kInf, kNaN}, {4}));
  check_values(sn, ST::Float32, {4}, {0, 0, kNaN, kNaN});
  check_signbits(sn.narrow(0, 0, 2), {false, true});
  check_values(cos(make<float>({0, kInf}, {2})), ST::Float32, {2}, {1, kNaN});
  check_values(tanh(make<float>({-kInf, kInf, 20}, {3})), ST::Float32, {3}, {-1, 1, 1});
  // torch.sigmoid(torch.tensor([-inf, inf, nan, -800.])) == [0., 1., nan, 0.]
  check_values(sigmoid(make<float>({-kInf, kInf, kNaN, -800, 0}, {5})), ST::Float32, {5},
               {0, 1, kNaN, 0, 0.5});
  const Tensor e = erf(make<float>({-kInf, kInf, kNaN, -0.0}, {4}));
  check_values(e, ST::Float32, {4}, {-1, 1, kNaN, 0});
  check_signbits(e.narrow(0, 3, 1), {true});
  // f16 overflow and underflow after rounding once: exp(11.1) = 66171 > 65504 + half ulp.
  check_values(exp(make<Half>({11.1, -18}, {2})), ST::Float16, {2}, {kInf, 0});
}

TEST_CASE("floating ops compute integral and bool inputs in the default float dtype") {
  check_values(exp(make<int32_t>({0, 1}, {2})), ST::Float32, {2}, {1, 2.7182817459106445});
  check_values(sqrt(make<bool>({1, 0}, {2})), ST::Float32, {2}, {1, 0});
  check_values(reciprocal(from_vector<int64_t>({4, 0}, {2})), ST::Float32, {2}, {0.25, kInf});
}

// ---- layouts, forms and errors --------------------------------------------------------------
TEST_CASE("unary ops read transposed, stepped, offset and broadcast inputs") {
  const Tensor x = make<float>({1, -2, 3, -4, 5, -6}, {2, 3});
  check_values(neg(x.t()), ST::Float32, {3, 2}, {-1, 4, 2, -5, -3, 6});
  check_values(abs(x.slice(1, 0, std::nullopt, 2)), ST::Float32, {2, 2}, {1, 3, 4, 6});
  check_values(relu(x.narrow(0, 1, 1)), ST::Float32, {1, 3}, {0, 5, 0});
  check_values(sign(make<int32_t>({-7, 0}, {2}).expand({3, 2})), ST::Int32, {3, 2},
               {-1, 0, -1, 0, -1, 0});
  check_values(exp(make<double>({0}, {1}).expand({2, 2})), ST::Float64, {2, 2}, {1, 1, 1, 1});
}

TEST_CASE("unary ops handle 0-d and empty tensors") {
  check_values(neg(make<int64_t>({5}, {})), ST::Int64, {}, {-5});
  check_values(sqrt(make<double>({9}, {})), ST::Float64, {}, {3});
  check_values(logical_not(make<float>({0}, {})), ST::Bool, {}, {1});
  check_values(exp(make<float>({}, {0, 4})), ST::Float32, {0, 4}, {});
  check_values(abs(make<int8_t>({}, {0})), ST::Int8, {0}, {});
}

TEST_CASE("unary out= writes a strided out and in-place writes through a view") {
  Tensor base = zeros({2, 2}, ST::Float32, kRef);
  Tensor out = base.t();
  neg_out(out, make<float>({1, 2, 3, 4}, {2, 2}));
  check_values(base, ST::Float32, {2, 2}, {-1, -3, -2, -4});
  // As PyTorch: computed in f32 (the compute dtype), then converted to the f64 out.
  Tensor wide = zeros({1}, ST::Float64, kRef);
  exp_out(wide, make<float>({1}, {1}));
  check_values(wide, ST::Float64, {1}, {2.7182817459106445});
  Tensor lb = zeros({2}, ST::Bool, kRef);
  logical_not_out(lb, make<double>({0, 1}, {2}));
  check_values(lb, ST::Bool, {2}, {1, 0});
  Tensor y = make<double>({4, 9, 16, 25}, {2, 2});
  Tensor col = y.select(1, 1);  // [9, 25], stride 2, offset 1
  sqrt_(col);
  check_values(y, ST::Float64, {2, 2}, {4, 3, 16, 5});
  Tensor h = make<Half>({-1.5, 2.5}, {2});
  floor_(h);
  check_values(h, ST::Float16, {2}, {-2, 2});
  Tensor g = make<float>({1}, {1});
  gelu_(g, "tanh");
  check_values(g, ST::Float32, {1}, {0.8411920070648193});
}

TEST_CASE("unary ops refuse the dtypes PyTorch refuses") {
  const Tensor b = make<bool>({1, 0}, {2});
  CHECK_THROWS_AS(neg(b), Error);
  CHECK_THROWS_AS(abs(b), Error);
  CHECK_THROWS_AS(relu(b), Error);
  CHECK_THROWS_AS(floor(b), Error);
  CHECK_THROWS_AS(ceil(b), Error);
  CHECK_THROWS_AS(gelu(make<int32_t>({1}, {1})), Error);
  check_error([] { gelu(make<float>({1}, {1}), "bad"); }, ErrorCode::InvalidArgument,
              "approximate");
}

}  // namespace
}  // namespace bp::test
