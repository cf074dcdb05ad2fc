// The comparator, each rule both ways: within tolerance passes, just outside fails; NaN
// positions, infinity signs, signed zeros, exact integers over the whole int64 range, ULP
// bounds at exactly N and N+1 (in f16, bf16, f32 and f64, across a binade and across zero),
// dtype and shape mismatches, the message, and the out-variant layout check. Tensors live on
// the reference device; values are literals (bit patterns where the ULP matters).
#include <backplane/backplane.hpp>
#include <backplane/conformance/compare.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using bp::ScalarType;
using bp::Tensor;
using bp::conformance::compare;
using bp::conformance::CompareResult;
using bp::conformance::Tolerance;

namespace {

const bp::Device kRef{bp::device_types::Reference, 0};
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr float kNaNf = std::numeric_limits<float>::quiet_NaN();
constexpr float kInff = std::numeric_limits<float>::infinity();
const Tolerance kExact{0.0, 0.0, 0, true};

template <typename T>
Tensor make(const std::vector<T>& values, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
  return bp::from_data(values.data(), bp::dtype_of<T>(), shape, kRef);
}
Tensor f32(const std::vector<float>& v, std::vector<int64_t> shape = {}) {
  return make(v, std::move(shape));
}
Tensor f64(const std::vector<double>& v) {
  return make(v);
}
// f16/bf16 tensors from bit patterns.
Tensor half_bits(const std::vector<uint16_t>& bits) {
  return bp::from_data(bits.data(), ScalarType::Float16, {static_cast<int64_t>(bits.size())}, kRef);
}
Tensor bf16_bits(const std::vector<uint16_t>& bits) {
  return bp::from_data(bits.data(), ScalarType::BFloat16, {static_cast<int64_t>(bits.size())},
                       kRef);
}
float f32_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
double f64_bits(uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("rtol/atol: within atol + rtol*|want| passes, just outside fails") {
  const Tolerance tol{1e-3, 1e-2, 0, false};  // at want = 10: allowed 0.01 + 0.01 = 0.02
  const CompareResult in = compare(f64({10.0195}), f64({10.0}), tol);
  CHECK(in.ok);
  CHECK(in.message.empty());
  CHECK(in.first_bad_index == -1);
  CHECK(in.max_abs_err == doctest::Approx(0.0195));
  const CompareResult out = compare(f64({10.0205}), f64({10.0}), tol);
  CHECK_FALSE(out.ok);
  CHECK(out.first_bad_index == 0);
  // atol alone near zero, both signs.
  CHECK(compare(f64({-0.0099}), f64({0.0}), tol).ok);
  CHECK_FALSE(compare(f64({-0.0101}), f64({0.0}), tol).ok);
  // The PyTorch f32 default at 100: allowed 1e-5 + 1.3e-4.
  const Tolerance f32_default{1.3e-6, 1e-5, 0, false};
  CHECK(compare(f32({100.0001f}), f32({100.0f}), f32_default).ok);
  CHECK_FALSE(compare(f32({100.0002f}), f32({100.0f}), f32_default).ok);
}

TEST_CASE("NaN positions must match") {
  const Tolerance loose{1.0, 1e9, 1000, false};
  CHECK(compare(f32({kNaNf, 1.0f}), f32({kNaNf, 1.0f}), loose).ok);
  CHECK(compare(f32({kNaNf}), f32({-kNaNf}), kExact).ok);  // any NaN is NaN
  const CompareResult nan_for_number = compare(f32({1.0f, kNaNf}), f32({1.0f, 2.0f}), loose);
  CHECK_FALSE(nan_for_number.ok);
  CHECK(nan_for_number.first_bad_index == 1);
  CHECK(contains(nan_for_number.message, "got nan, want 2"));
  CHECK(contains(nan_for_number.message, "NaN positions must match"));
  const CompareResult number_for_nan = compare(f64({0.0}), f64({kNaN}), loose);
  CHECK_FALSE(number_for_nan.ok);
  CHECK(contains(number_for_nan.message, "got 0, want nan"));
  // NaNs do not count towards the error maxima.
  CHECK(nan_for_number.max_abs_err == 0.0);
}

TEST_CASE("infinities must match with their sign") {
  const Tolerance loose{1.0, 1e9, 1000, false};
  CHECK(compare(f32({kInff, -kInff}), f32({kInff, -kInff}), loose).ok);
  const CompareResult sign = compare(f32({-kInff}), f32({kInff}), loose);
  CHECK_FALSE(sign.ok);
  CHECK(contains(sign.message, "got -inf, want inf"));
  // The largest finite f32 is 1 ULP below +inf in bits, but is no infinity.
  const float max_f32 = std::numeric_limits<float>::max();
  CHECK_FALSE(compare(f32({max_f32}), f32({kInff}), loose).ok);
  CHECK_FALSE(compare(f32({kInff}), f32({max_f32}), loose).ok);
}

TEST_CASE("-0 and +0 are equal, in exact and toleranced comparisons") {
  CHECK(compare(f32({-0.0f}), f32({0.0f}), Tolerance{0.0, 0.0, 1, false}).ok);
  CHECK(compare(f64({0.0}), f64({-0.0}), kExact).ok);
  CHECK(bp::conformance::ulp_distance(-0.0, 0.0, ScalarType::Float32) == 0);
}

TEST_CASE("exact: any difference fails, integers compared over the whole int64 range") {
  CHECK(compare(make<int32_t>({1, 2, 3}), make<int32_t>({1, 2, 3}), kExact).ok);
  const CompareResult off = compare(make<int32_t>({1, 2, 4}), make<int32_t>({1, 2, 3}), kExact);
  CHECK_FALSE(off.ok);
  CHECK(off.first_bad_index == 2);
  CHECK(off.max_abs_err == 1.0);
  CHECK(contains(off.message, "1 of 3 elements differ"));
  CHECK(contains(off.message, "at [2]: got 4, want 3 (exact)"));
  // 2^53 + 1 and 2^53 are the same double; as int64 they differ.
  const int64_t big = (int64_t{1} << 53) + 1;
  CHECK_FALSE(compare(make<int64_t>({big - 1}), make<int64_t>({big}), kExact).ok);
  CHECK(compare(make<int64_t>({big}), make<int64_t>({big}), kExact).ok);
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  const CompareResult extremes = compare(make<int64_t>({lo}), make<int64_t>({hi}), kExact);
  CHECK_FALSE(extremes.ok);
  CHECK(extremes.max_ulp == hi);  // saturated, not overflowed
  // Integers are exact even under a loose tolerance: there is no rounding to allow for.
  CHECK_FALSE(compare(make<int8_t>({5}), make<int8_t>({6}), Tolerance{1.0, 10.0, 100, false}).ok);
  CHECK_FALSE(compare(bp::from_vector<bool>({true, false}, {2}, kRef),
                      bp::from_vector<bool>({true, true}, {2}, kRef), kExact)
                  .ok);
  // Floats under exact: one ULP fails.
  CHECK_FALSE(compare(f32({f32_bits(0x3f800001u)}), f32({1.0f}), kExact).ok);
}

TEST_CASE("ULP bound in f32: exactly N passes, N+1 fails, across a binade and zero") {
  const Tolerance four{0.0, 0.0, 4, false};
  CHECK(compare(f32({f32_bits(0x3f800004u)}), f32({1.0f}), four).ok);
  const CompareResult five = compare(f32({f32_bits(0x3f800005u)}), f32({1.0f}), four);
  CHECK_FALSE(five.ok);
  CHECK(five.max_ulp == 5);
  CHECK(contains(five.message, "5 ulp; allowed 4 ulp or atol 0"));
  // Below 1.0 the ULP halves: 0x3f7ffffc is 4 steps under 1.0.
  CHECK(compare(f32({f32_bits(0x3f7ffffcu)}), f32({1.0f}), four).ok);
  CHECK_FALSE(compare(f32({f32_bits(0x3f7ffffbu)}), f32({1.0f}), four).ok);
  // Across zero: +2 and -2 smallest subnormals are 4 steps apart.
  CHECK(compare(f32({f32_bits(0x80000002u)}), f32({f32_bits(0x00000002u)}), four).ok);
  CHECK_FALSE(compare(f32({f32_bits(0x80000003u)}), f32({f32_bits(0x00000002u)}), four).ok);
  // A negative value, 4 and 5 steps away in magnitude.
  CHECK(compare(f32({f32_bits(0xc0000004u)}), f32({-2.0f}), four).ok);
  CHECK_FALSE(compare(f32({f32_bits(0xc0000005u)}), f32({-2.0f}), four).ok);
}

TEST_CASE("ULP bound in f64, f16 and bf16 is counted in the output dtype") {
  const Tolerance four{0.0, 0.0, 4, false};
  CHECK(compare(f64({f64_bits(0x3ff0000000000004ull)}), f64({1.0}), four).ok);
  CHECK_FALSE(compare(f64({f64_bits(0x3ff0000000000005ull)}), f64({1.0}), four).ok);
  const Tolerance one{0.0, 0.0, 1, false};
  // f16 1.0 = 0x3c00; the next values are 0x3c01, 0x3c02.
  CHECK(compare(half_bits({0x3c01}), half_bits({0x3c00}), one).ok);
  const CompareResult h2 = compare(half_bits({0x3c02}), half_bits({0x3c00}), one);
  CHECK_FALSE(h2.ok);
  CHECK(h2.max_ulp == 2);
  CHECK(h2.max_abs_err == 0.001953125);  // 2 * 2^-10
  // bf16 1.0 = 0x3f80.
  CHECK(compare(bf16_bits({0x3f81}), bf16_bits({0x3f80}), one).ok);
  const CompareResult b2 = compare(bf16_bits({0x3f82}), bf16_bits({0x3f80}), one);
  CHECK_FALSE(b2.ok);
  CHECK(b2.max_ulp == 2);
  // Largest f16 subnormal to smallest normal is 1 step.
  CHECK(compare(half_bits({0x03ff}), half_bits({0x0400}), one).ok);
}

TEST_CASE("a ULP bound or an absolute floor: either one admits a value") {
  const Tolerance ulp_or_floor{0.0, 1e-7, 2, false};
  // 1e-9 vs 3e-9 in f32: thousands of ULPs apart, within the floor.
  const CompareResult near_zero = compare(f32({1e-9f}), f32({3e-9f}), ulp_or_floor);
  CHECK(near_zero.ok);
  CHECK(near_zero.max_ulp > 2);
  CHECK_FALSE(compare(f32({1e-9f}), f32({2e-7f}), ulp_or_floor).ok);
}

TEST_CASE("dtype and shape mismatches fail before values, naming both") {
  const CompareResult dtype = compare(half_bits({0x3c00}), f32({1.0f}), kExact);
  CHECK_FALSE(dtype.ok);
  CHECK(dtype.message == "dtype mismatch: got f16, want f32");
  const CompareResult shape =
      compare(f32({1, 2, 3, 4, 5, 6}, {2, 3}), f32({1, 2, 3, 4, 5, 6}, {3, 2}), kExact);
  CHECK_FALSE(shape.ok);
  CHECK(shape.message == "shape mismatch: got [2, 3], want [3, 2]");
  CHECK_FALSE(compare(f32({1.0f}, {1}), make<float>({1.0f}, {1, 1}), kExact).ok);
}

TEST_CASE("the message names the first bad element by multi-index, counts and maxima") {
  const Tensor want = f32({0, 1, 2, 3, 4, 5}, {2, 3});
  const Tensor got = f32({0, 1, 2, 3, 4.5f, 7}, {2, 3});
  const CompareResult r = compare(got, want, Tolerance{0.0, 0.1, 0, false});
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad_index == 4);
  CHECK(r.max_abs_err == 2.0);
  CHECK(contains(r.message,
                 "2 of 6 elements differ: 2 finite out of tolerance (max |diff| 2, "
                 "max ulp "));
  CHECK(contains(r.message, "first at [1, 1]: got 4.5, want 4 (|diff| 0.5, "));
  CHECK(contains(r.message, "allowed rtol 0 atol 0.1"));
}

TEST_CASE("strided inputs are compared in row-major logical order; empty tensors pass") {
  // got^T holds [[1, 2, 3], [4, 5, 6]] read through a transposed view.
  const Tensor base = f32({1, 4, 2, 5, 3, 6}, {3, 2});
  const Tensor transposed = base.permute({1, 0});
  CHECK(compare(transposed, f32({1, 2, 3, 4, 5, 6}, {2, 3}), kExact).ok);
  const CompareResult bad = compare(transposed, f32({1, 2, 3, 4, 5, 7}, {2, 3}), kExact);
  CHECK_FALSE(bad.ok);
  CHECK(bad.first_bad_index == 5);
  CHECK(contains(bad.message, "at [1, 2]"));
  CHECK(compare(bp::empty({0, 3}, ScalarType::Float32, kRef),
                bp::empty({0, 3}, ScalarType::Float32, kRef), kExact)
            .ok);
}

TEST_CASE("0-d tensors: the message shows the empty multi-index") {
  const Tensor got = bp::scalar_tensor(2.0, ScalarType::Float64, kRef);
  const Tensor want = bp::scalar_tensor(3.0, ScalarType::Float64, kRef);
  const CompareResult r = compare(got, want, kExact);
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad_index == 0);
  CHECK(contains(r.message, "at []: got 2, want 3"));
}

TEST_CASE("out-variant layout: sizes and strides as given, size-1 strides ignored") {
  using bp::conformance::check_out_layout;
  const Tensor c = bp::empty({2, 3}, ScalarType::Float32, kRef);
  CHECK(check_out_layout(c, {2, 3}, {3, 1}).empty());
  CHECK(check_out_layout(c, {2, 3}, {1, 2}) ==
        "out layout: got sizes [2, 3] strides [3, 1], want sizes [2, 3] strides [1, 2]");
  CHECK_FALSE(check_out_layout(c, {3, 2}, {2, 1}).empty());
  CHECK_FALSE(check_out_layout(c, {6}, {1}).empty());
  // A transposed out keeps its strides.
  const Tensor t = c.permute({1, 0});
  CHECK(check_out_layout(t, {3, 2}, {1, 3}).empty());
  CHECK_FALSE(check_out_layout(t, {3, 2}, {2, 1}).empty());
  // The stride of a size-1 dim, and any stride of an empty tensor, address nothing.
  const Tensor row = bp::empty({1, 4}, ScalarType::Float32, kRef);
  CHECK(check_out_layout(row, {1, 4}, {1, 1}).empty());
  const Tensor none = bp::empty({0, 4}, ScalarType::Float32, kRef);
  CHECK(check_out_layout(none, {0, 4}, {7, 7}).empty());
}

TEST_CASE("each kind of mismatch is counted apart: a NaN is one, not a max |diff| of 0") {
  const Tolerance loose{0.0, 0.1, 0, false};
  const CompareResult one_nan = compare(f32({1, kNaNf, 3}), f32({1, 2, 3}), loose);
  CHECK_FALSE(one_nan.ok);
  CHECK(one_nan.message ==
        "1 of 3 elements differ: 1 NaN where the other is not; first at [1]: got nan, want 2 "
        "(NaN positions must match)");
  const CompareResult mixed = compare(f32({kNaNf, 5, kInff, 4}), f32({1, 2, -kInff, 4}), loose);
  CHECK(contains(mixed.message,
                 "3 of 4 elements differ: 1 NaN where the other is not, 1 "
                 "infinity mismatched, 1 finite out of tolerance (max |diff| 3, "
                 "max ulp "));
  CHECK(contains(mixed.message, "first at [0]: got nan, want 1"));
}

TEST_CASE("an element that still holds the guard pattern is named: not written") {
  using bp::conformance::kGuardByte;
  // Elements 2 and 3 never written: every byte is still the guard byte.
  std::vector<uint8_t> bytes(4 * sizeof(float), kGuardByte);
  const float written[2] = {1.0f, 2.0f};
  std::memcpy(bytes.data(), written, sizeof written);
  const Tensor got = bp::from_data(bytes.data(), ScalarType::Float32, {4}, kRef);
  const CompareResult r = compare(got, f32({1, 2, 3, 4}), Tolerance{0.0, 0.1, 0, false});
  CHECK_FALSE(r.ok);
  CHECK(r.first_bad_index == 2);
  CHECK(contains(r.message,
                 "2 of 4 elements differ: 2 not written (or read out of bounds): "
                 "still the guard pattern; first at [2]: got "));
  CHECK(contains(r.message,
                 "want 3 (not written (or read out of bounds): the element still "
                 "holds the guard pattern)"));
  // Integers too.
  std::vector<uint8_t> ints(3 * sizeof(int32_t), kGuardByte);
  const int32_t seven = 7;
  std::memcpy(ints.data(), &seven, sizeof seven);
  const CompareResult i = compare(bp::from_data(ints.data(), ScalarType::Int32, {3}, kRef),
                                  make<int32_t>({7, 8, 9}), kExact);
  CHECK(contains(i.message, "2 of 3 elements differ: 2 not written"));
  // A wrong value is not "not written", and a reference value that is the pattern itself
  // (equal to the device's) passes.
  CHECK_FALSE(
      contains(compare(f32({1, 2, 5, 4}), f32({1, 2, 3, 4}), kExact).message, "not written"));
  CHECK(compare(got, got, kExact).ok);
}

TEST_CASE("exact with signed zeros: a zero of the wrong sign is its own kind of mismatch") {
  const Tolerance signed_exact{0.0, 0.0, 0, true, true};
  CHECK(compare(f32({-0.0f, 0.0f, 1.0f}), f32({-0.0f, 0.0f, 1.0f}), signed_exact).ok);
  const CompareResult r = compare(f32({0.0f, 0.0f, 1.0f}), f32({-0.0f, 0.0f, 1.0f}), signed_exact);
  CHECK_FALSE(r.ok);
  CHECK(r.message ==
        "1 of 3 elements differ: 1 zero of the wrong sign; first at [0]: got 0, want -0 (a "
        "zero of the wrong sign; this op's zeros are compared by sign)");
  // Without signed_zeros, -0 == +0 as before.
  CHECK(compare(f32({0.0f}), f32({-0.0f}), kExact).ok);
  CHECK(bp::conformance::to_string(signed_exact) == "exact, zeros by sign");
}
