// Tests for core/src/scalar.cpp and Scalar's inline conversions.
#include "backplane/core/scalar.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace bp {
namespace {

TEST_CASE("Scalar keeps its kind and wrapped-number dtype") {
  CHECK(Scalar(true).is_bool());
  CHECK(Scalar(3).is_integral());
  CHECK(Scalar(int8_t{3}).is_integral());
  CHECK(Scalar(2.5f).is_floating());
  CHECK(Scalar().kind() == Scalar::Kind::Int);
  CHECK(Scalar(true).dtype() == ScalarType::Bool);
  CHECK(Scalar(uint8_t{7}).dtype() == ScalarType::Int64);
  CHECK(Scalar(1.0).dtype() == ScalarType::Float64);
}

TEST_CASE("Scalar::to_int truncates toward zero") {
  CHECK(Scalar(2.9).to_int() == 2);
  CHECK(Scalar(-2.9).to_int() == -2);
  CHECK(Scalar(true).to_int() == 1);
  CHECK(Scalar(false).to_int() == 0);
  CHECK(Scalar(int64_t{-7}).to_int() == -7);
}

TEST_CASE("Scalar::to_int saturates and maps NaN to 0") {
  constexpr auto kMax = std::numeric_limits<int64_t>::max();
  constexpr auto kMin = std::numeric_limits<int64_t>::min();
  CHECK(Scalar(std::nan("")).to_int() == 0);
  CHECK(Scalar(1e300).to_int() == kMax);
  CHECK(Scalar(-1e300).to_int() == kMin);
  CHECK(Scalar(std::numeric_limits<double>::infinity()).to_int() == kMax);
  CHECK(Scalar(-std::numeric_limits<double>::infinity()).to_int() == kMin);
  CHECK(Scalar(9223372036854775808.0).to_int() == kMax);                 // 2^63
  CHECK(Scalar(-9223372036854775808.0).to_int() == kMin);                // -2^63 is exact
  CHECK(Scalar(9223372036854774784.0).to_int() == 9223372036854774784);  // largest < 2^63
}

TEST_CASE("Scalar::to_double and to_bool") {
  CHECK(Scalar(3).to_double() == 3.0);
  CHECK(Scalar(true).to_double() == 1.0);
  CHECK(Scalar(0.0).to_bool() == false);
  CHECK(Scalar(-0.5).to_bool() == true);
  CHECK(Scalar(0).to_bool() == false);
}

TEST_CASE("Scalar::str prints like Python") {
  CHECK(Scalar(true).str() == "True");
  CHECK(Scalar(false).str() == "False");
  CHECK(Scalar(-12).str() == "-12");
  CHECK(Scalar(2.5).str() == "2.5");
  CHECK(Scalar(2.0).str() == "2.0");
  CHECK(Scalar(0.1).str() == "0.1");
  CHECK(Scalar(1e20).str() == "1e+20");
  CHECK(Scalar(std::numeric_limits<double>::infinity()).str() == "inf");
  CHECK(Scalar(-std::numeric_limits<double>::infinity()).str() == "-inf");
  CHECK(Scalar(std::nan("")).str() == "nan");
}

}  // namespace
}  // namespace bp
