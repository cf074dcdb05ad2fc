// The comparator of the conformance suite: a device's result against the reference
// backend's, under a Tolerance, with a message that says where and by how much the first
// mismatch is off. Also the layout check of out-variant outputs. Thread-safe.
#pragma once

#include "backplane/conformance/tolerance.hpp"

#include <backplane/core/shape.hpp>
#include <backplane/core/tensor.hpp>

#include <cstdint>
#include <string>

namespace bp::conformance {

// The byte every guard and every fresh output of a conformance case is filled with (an
// unlikely value in every dtype: f32 -2.9e-16, f16 -0.0220, i32 -1515870811, bool 0xA5 =
// not a valid bool). An output element that still holds it after the op was not written.
inline constexpr uint8_t kGuardByte = 0xA5;

struct CompareResult {
  bool ok = true;
  // Over element pairs that are both finite (NaN and infinities are checked by position
  // and sign, not measured): the largest |got - want| and the largest ULP distance in the
  // output dtype (integer dtypes: the largest difference as an integer count).
  double max_abs_err = 0.0;
  int64_t max_ulp = 0;
  int64_t first_bad_index = -1;  // row-major flat index of the first bad element, -1 if none
  std::string message;           // empty when ok
};

// Compares `got` (the device's result) with `want` (the reference backend's). A dtype or
// shape mismatch fails before any value is read and names both. The message counts the
// kinds of mismatch apart: NaN where the other is not (or the reverse), an infinity of the
// wrong sign or against a finite value, finite values out of tolerance (with the largest
// |diff| and ULP distance over those), and elements that still hold the guard pattern
// (kGuardByte in every byte: "not written (or read out of bounds)"). Both tensors may be on any
// device and have any strides; elements are compared in row-major order. Integer and bool
// results are compared exactly (as int64, so the whole int64 range) whatever `tol` says.
CompareResult compare(const Tensor& got, const Tensor& want, const Tolerance& tol);

// The multi-index ("[1, 3]") of row-major element `flat` of a tensor of `sizes` (which has
// that element: no size is 0).
std::string multi_index(int64_t flat, IntArrayRef sizes);

// ULP distance of two finite values of a floating dtype, each exactly representable in it:
// how many representable values lie from one to the other (-0 and +0 are the same point).
int64_t ulp_distance(double a, double b, ScalarType dtype);

// For out-variants: the output tensor the kernel wrote must keep the shape and strides the
// caller gave it (or, when it was resized, be contiguous of the result's shape). Returns ""
// when `out` has exactly `sizes` and `strides`, else a message naming both layouts.
std::string check_out_layout(const Tensor& out, IntArrayRef sizes, IntArrayRef strides);

}  // namespace bp::conformance
