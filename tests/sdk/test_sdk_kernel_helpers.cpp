// The SDK's helpers for kernel bodies, which the reference and CPU backends share and
// vendors gain: PyTorch's conversions (sdk/convert.hpp), Scalar's checked conversion, the
// wrapping integer math (sdk/int_math.hpp), the argument checks (sdk/argument_checks.hpp)
// and the parsing of the op families' str arguments (sdk/op_families.hpp). The kernels that
// use them are tested through the public API in tests/reference/ and tests/cpu/.
#include <backplane/sdk/sdk.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace sdk = bp::sdk;

namespace {

// The message of the sdk::Error `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const sdk::Error& e) {
    return e.what();
  }
  return "";
}

bp_value int_value(int64_t i) {
  bp_value v{};
  v.tag = BP_VALUE_INT;
  v.u.i = i;
  return v;
}
bp_value float_value(double f) {
  bp_value v{};
  v.tag = BP_VALUE_FLOAT;
  v.u.f = f;
  return v;
}

// A view of a row-major f32 tensor of `shape` (no data: only its geometry is read).
struct FakeTensor {
  std::vector<int64_t> shape, strides;
  bp_tensor tensor{};
  FakeTensor(std::vector<int64_t> sizes, bp_dtype dtype) : shape(std::move(sizes)) {
    strides.assign(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    tensor.struct_size = sizeof tensor;
    tensor.dtype = dtype;
    tensor.ndim = static_cast<int32_t>(shape.size());
    tensor.shape = shape.data();
    tensor.strides = strides.data();
  }
  sdk::StridedView view() const { return sdk::StridedView(&tensor); }
};

}  // namespace

TEST_CASE("convert rounds once into bf16, i32 beyond 2^24 included") {
  // 2^24 + 2^16 + 1 is just above the midpoint of two bf16 values: through a nearest-rounded
  // float (2^24 + 2^16, the midpoint) it would round down to 2^24.
  CHECK(static_cast<float>(sdk::convert<sdk::BFloat16>(int32_t{16842753})) == 16908288.0f);
  CHECK(static_cast<float>(sdk::convert<sdk::BFloat16>(int64_t{16842753})) == 16908288.0f);
  CHECK(static_cast<float>(sdk::convert<sdk::Half>(int16_t{2049})) == 2048.0f);  // ties to even
}

TEST_CASE("convert gives x86-64 PyTorch's results for NaN and out-of-range floats") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(sdk::convert<int64_t>(nan) == std::numeric_limits<int64_t>::min());
  CHECK(sdk::convert<int32_t>(3e9) == std::numeric_limits<int32_t>::min());
  CHECK(sdk::convert<int8_t>(nan) == 0);      // INT32_MIN wrapped into 8 bits
  CHECK(sdk::convert<uint8_t>(300.0) == 44);  // 300 wrapped
  CHECK(sdk::convert<bool>(sdk::Half::from_bits(0x8000)) == false);  // -0
  CHECK(sdk::convert<bool>(nan));
}

TEST_CASE("checked_convert refuses what overflows the type, as PyTorch's Scalar checks") {
  int8_t i8 = 0;
  CHECK_FALSE(sdk::checked_convert(int_value(300), &i8));
  CHECK_FALSE(sdk::checked_convert(float_value(127.5), &i8));
  CHECK(sdk::checked_convert(float_value(-128.0), &i8));
  CHECK(i8 == -128);
  uint8_t u8 = 0;
  CHECK(sdk::checked_convert(int_value(-1), &u8));  // two's complement, as PyTorch
  CHECK(u8 == 255);
  float f32 = 0;
  CHECK_FALSE(sdk::checked_convert(float_value(1e300), &f32));
  CHECK(sdk::checked_convert(float_value(std::numeric_limits<double>::infinity()), &f32));
  int64_t i64 = 0;
  CHECK_FALSE(sdk::checked_convert(float_value(0x1p63), &i64));
}

TEST_CASE("Scalar::checked_to names the op, the argument, the value and the type") {
  const sdk::Scalar value(int_value(300));
  CHECK(error_of([&] { (void)value.checked_to<int8_t>("fill_.Scalar", "value"); }) ==
        "fill_.Scalar: argument 'value' value 300 cannot be converted to type i8 without "
        "overflow");
  CHECK(value.checked_to<int16_t>("fill_.Scalar", "value") == 300);
  CHECK(sdk::Scalar(float_value(0.5)).text() == "0.5");
  // An integer into f32/f64 takes checked_to's inline shortcut: the same value, rounded
  // once, as checked_convert gives (2^24 + 1 and 2^53 + 1 round to even; -2^63 is exact).
  for (const int64_t i : {int64_t{16777217}, (int64_t{1} << 53) + 1, int64_t{-7},
                          std::numeric_limits<int64_t>::min()}) {
    CAPTURE(i);
    float f32 = 0;
    double f64 = 0;
    REQUIRE(sdk::checked_convert(int_value(i), &f32));
    REQUIRE(sdk::checked_convert(int_value(i), &f64));
    CHECK(sdk::Scalar(int_value(i)).checked_to<float>("add.Tensor", "alpha") == f32);
    CHECK(sdk::Scalar(int_value(i)).checked_to<double>("add.Tensor", "alpha") == f64);
  }
}

TEST_CASE("integer math wraps like PyTorch's") {
  CHECK(sdk::wrapping_abs(int8_t{-128}) == -128);
  CHECK(sdk::wrapping_neg(int32_t{std::numeric_limits<int32_t>::min()}) ==
        std::numeric_limits<int32_t>::min());
  CHECK(sdk::wrapping_neg(uint8_t{1}) == 255);
  CHECK(sdk::wrapping_pow(int8_t{3}, int8_t{5}) == -13);  // 243 wrapped
  CHECK(sdk::wrapping_pow(int32_t{2}, int32_t{-1}) == 0);
  CHECK(sdk::wrapping_pow(int32_t{-1}, int32_t{-3}) == -1);
  CHECK(sdk::wrapping_pow(int64_t{1}, int64_t{-7}) == 1);
}

TEST_CASE("argument checks refuse calls outside a kernel's contract, naming what is wrong") {
  CHECK(error_of([] { sdk::check_dim("gather", 2, 2); }) ==
        "gather: dim 2 is out of range for a tensor of 2 dims");
  CHECK(error_of([] { sdk::check_dim("gather", 0, 0); }).empty());  // 0-d takes dim 0
  CHECK(error_of([] { sdk::check_index_value("gather", -1, 0, 3); }) ==
        "gather: index -1 is out of range for dimension 0 with size 3");
  const FakeTensor a({2, 3}, BP_DTYPE_F32), b({4, 5}, BP_DTYPE_F32), c({2, 5}, BP_DTYPE_F32);
  CHECK(error_of([&] { sdk::check_matmul(a.view(), b.view(), c.view()); })
            .starts_with("matmul: 'self' of shape [2, 3] and 'other' of shape [4, 5] do not "
                         "multiply into an output of shape [2, 5]"));
}

TEST_CASE("reduced_dims reads int, int[] and None and checks the keepdim output") {
  const FakeTensor in({2, 3}, BP_DTYPE_F32), kept({2, 1}, BP_DTYPE_F32), all({1, 1}, BP_DTYPE_F32);
  bp_value none{};
  CHECK(sdk::reduced_dims("sum", none, in.view(), all.view()) == std::vector<bool>{true, true});
  CHECK(sdk::reduced_dims("sum", int_value(1), in.view(), kept.view()) ==
        std::vector<bool>{false, true});
  CHECK(error_of([&] { (void)sdk::reduced_dims("sum", int_value(0), in.view(), kept.view()); }) ==
        "sum: output of shape [2, 1] is not the keepdim shape of reducing an input of shape "
        "[2, 3]");
}

TEST_CASE("gelu's approximate and div's rounding_mode parse with PyTorch's messages") {
  CHECK(sdk::gelu_approximation("gelu", nullptr) == sdk::GeluApproximation::kNone);
  CHECK(sdk::gelu_approximation("gelu", "tanh") == sdk::GeluApproximation::kTanh);
  CHECK(error_of([] { (void)sdk::gelu_approximation("gelu", "fast"); }) ==
        "gelu: argument 'approximate' must be either 'none' or 'tanh', but got 'fast'");
  CHECK(sdk::rounding_mode("div.Tensor_mode", "floor") == sdk::RoundingMode::kFloor);
  CHECK(error_of([] { (void)sdk::rounding_mode("div.Tensor_mode", "up"); }) ==
        "div.Tensor_mode: expected rounding_mode to be one of None, 'trunc', or 'floor' but "
        "found 'up'");
}
