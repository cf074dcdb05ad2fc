// The input generator: the same seed gives the same values, every layout holds the same
// logical values as the contiguous tensor (only strides, offset and gaps differ), the gaps
// hold the sentinel a kernel must never read, and special values are what the docs list.
#include <backplane/backplane.hpp>
#include <backplane/conformance/inputs.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using bp::ScalarType;
using bp::Tensor;
using bp::conformance::InputMaker;
using bp::conformance::Layout;
using bp::conformance::Values;

TEST_CASE("inputs: the same seed draws the same values, another seed others") {
  InputMaker a(7), b(7), c(8);
  const auto va = bp::to_vector<float>(a.tensor({5, 3}, ScalarType::Float32));
  CHECK(va == bp::to_vector<float>(b.tensor({5, 3}, ScalarType::Float32)));
  CHECK(va != bp::to_vector<float>(c.tensor({5, 3}, ScalarType::Float32)));
}

TEST_CASE("inputs: every layout holds the contiguous tensor's values") {
  for (ScalarType dtype : {ScalarType::Float32, ScalarType::Int8, ScalarType::Bool,
                           ScalarType::BFloat16, ScalarType::Int64}) {
    InputMaker base(3);
    const Tensor want = base.tensor({4, 6, 5}, dtype, Values::Normal);
    for (Layout layout : {Layout::Transposed, Layout::Strided, Layout::Offset, Layout::Permuted}) {
      InputMaker maker(3);
      const Tensor t = maker.tensor({4, 6, 5}, dtype, Values::Normal, layout);
      CAPTURE(static_cast<int>(layout));
      CAPTURE(bp::dtype_name(dtype));
      CHECK(t.sizes() == want.sizes());
      CHECK(bp::to_vector<double>(t) == bp::to_vector<double>(want));
      if (layout == Layout::Offset) {
        CHECK(t.is_contiguous());
        CHECK(t.storage_offset() == 3);
      } else {
        CHECK_FALSE(t.is_contiguous());
      }
    }
  }
}

TEST_CASE("inputs: the gaps of a strided view hold the sentinel, NaN for floats") {
  InputMaker maker(1);
  const Tensor t = maker.tensor({3, 4}, ScalarType::Float32, Values::Normal, Layout::Strided);
  CHECK(t.strides()[1] == 2);
  const Tensor whole = t.as_strided({t.storage_offset()}, {1}, 0);  // the gap before element 0
  CHECK(std::isnan(bp::to_vector<float>(whole).at(0)));
}

TEST_CASE("inputs: special values come first (shuffled) and cover NaN, infinities, -0, extremes") {
  InputMaker maker(5);
  const auto f = bp::to_vector<float>(maker.tensor({40}, ScalarType::Float32, Values::Special));
  int nan = 0, pinf = 0, ninf = 0, negzero = 0, denorm = 0;
  for (float v : f) {
    nan += std::isnan(v);
    pinf += v == std::numeric_limits<float>::infinity();
    ninf += v == -std::numeric_limits<float>::infinity();
    negzero += v == 0.0f && std::signbit(v);
    denorm += std::fpclassify(v) == FP_SUBNORMAL;
  }
  CHECK(nan == 1);
  CHECK(pinf == 1);
  CHECK(ninf == 1);
  CHECK(negzero == 1);
  CHECK(denorm == 2);
  const auto i8 = bp::to_vector<int8_t>(maker.tensor({20}, ScalarType::Int8, Values::Special));
  CHECK(std::count(i8.begin(), i8.end(), int8_t{-128}) >= 1);
  CHECK(std::count(i8.begin(), i8.end(), int8_t{127}) >= 1);
  const auto i64 = bp::to_vector<int64_t>(maker.tensor({10}, ScalarType::Int64, Values::Special));
  CHECK(std::count(i64.begin(), i64.end(), std::numeric_limits<int64_t>::min()) == 1);
  CHECK(std::count(i64.begin(), i64.end(), std::numeric_limits<int64_t>::max()) == 1);
}

TEST_CASE("inputs: integer values stay in their dtype's range, u8 non-negative") {
  InputMaker maker(9);
  const auto u8 = bp::to_vector<int64_t>(maker.tensor({500}, ScalarType::UInt8, Values::Wide));
  for (int64_t v : u8) REQUIRE((v >= 0 && v <= 255));
  const auto i16 = bp::to_vector<int64_t>(maker.tensor({500}, ScalarType::Int16, Values::Wide));
  bool large = false;
  for (int64_t v : i16) {
    REQUIRE((v >= -32768 && v <= 32767));
    large |= v > 1000 || v < -1000;
  }
  CHECK(large);  // Wide reaches beyond the small Normal range
}

TEST_CASE("inputs: indices and masks") {
  InputMaker maker(2);
  const auto idx = bp::to_vector<int64_t>(maker.indices({100}, -3, 4));
  for (int64_t v : idx) REQUIRE((v >= -3 && v <= 4));
  const Tensor m = maker.mask({200}, 0.25);
  CHECK(m.dtype() == ScalarType::Bool);
  const auto mv = bp::to_vector<bool>(m);
  const auto trues = std::count(mv.begin(), mv.end(), true);
  CHECK(trues > 20);
  CHECK(trues < 80);
}
