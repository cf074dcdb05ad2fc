// Helpers for the reference backend's tests: tensors on reference:0 built from literal
// values (any dtype, bool included), and checks of a result's dtype, shape and values, exact
// (NaN equal to NaN) or within a tolerance. Expected values in these tests are literals or
// PyTorch 1.13 output pasted as data, never recomputed by the code under test.
#pragma once

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace bp::test {

inline const Device kRef{device_types::Reference, 0};
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
using Dims = std::vector<int64_t>;

// A contiguous tensor of element type T on reference:0 holding `values` (each cast to T).
// Bytes are staged by hand because std::vector<bool> has no data().
template <typename T>
Tensor make(const std::vector<double>& values, const Dims& shape) {
  std::vector<unsigned char> bytes(values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i) {
    const T v = static_cast<T>(values[i]);
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
  }
  return from_data(bytes.data(), dtype_of<T>(), shape, kRef);
}

inline std::string shape_of(const Tensor& t) {
  return shape_str(as_ref(t.sizes()));
}
inline std::string dtype_str(const Tensor& t) {
  return std::string(dtype_name(t.dtype()));
}

// Checks dtype, shape and every value: |got - want| <= atol + rtol * |want|, with NaN only
// matching NaN and infinities only matching themselves. rtol = atol = 0 is exact.
inline void check_values(const Tensor& t, ScalarType dtype, const Dims& shape,
                         const std::vector<double>& want, double rtol = 0.0, double atol = 0.0) {
  CHECK(dtype_str(t) == std::string(dtype_name(dtype)));
  CHECK(shape_of(t) == shape_str(shape));
  if (shape_of(t) != shape_str(shape)) return;
  const std::vector<double> got = to_vector<double>(t);
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CAPTURE(got[i]);
    CAPTURE(want[i]);
    if (std::isnan(want[i]) || std::isinf(want[i]) || (rtol == 0.0 && atol == 0.0)) {
      CHECK((std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i]));
    } else {
      CHECK(std::fabs(got[i] - want[i]) <= atol + rtol * std::fabs(want[i]));
    }
  }
}

// As check_values for int64 results, compared exactly over the whole int64 range.
inline void check_i64(const Tensor& t, const Dims& shape, const std::vector<int64_t>& want) {
  CHECK(dtype_str(t) == "i64");
  CHECK(shape_of(t) == shape_str(shape));
  if (t.dtype() != ScalarType::Int64 || shape_of(t) != shape_str(shape)) return;
  CHECK(to_vector<int64_t>(t) == want);
}

// Runs f, which must throw bp::Error with `code` and a message containing `part`.
template <typename F>
void check_error(F&& f, ErrorCode code, const std::string& part) {
  try {
    f();
  } catch (const Error& e) {
    const std::string message = e.what();
    CAPTURE(message);
    CHECK(std::string(to_string(e.code())) == std::string(to_string(code)));
    CHECK(message.find(part) != std::string::npos);
    return;
  }
  FAIL_CHECK("expected a bp::Error containing \"" << part << "\"");
}

}  // namespace bp::test
