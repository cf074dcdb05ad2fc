// Tolerances of the conformance suite, as data per (op, dtype): how far a device's result
// may be from the reference backend's. The table lives in src/tolerance.cpp, one line per
// op family, each with the reason for its bounds (docs/conformance.md, "Tolerances and
// comparison"). Pure functions; thread-safe.
#pragma once

#include <backplane/core/dtype.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bp::conformance {

// A finite element passes when it equals the value wanted (exact; -0 == +0 unless
// signed_zeros), or else when
// |got - want| <= atol + rtol * |want|, or (max_ulp > 0) when got and want are at most
// max_ulp representable values apart in the output dtype. NaN positions and infinities
// always match exactly, whatever the tolerance.
struct Tolerance {
  double rtol = 0.0;
  double atol = 0.0;
  int64_t max_ulp = 0;  // 0 = not ULP-based
  bool exact = false;   // values equal (-0 == +0, NaN == NaN); rtol/atol/max_ulp unused
  // With exact: a zero must also have the wanted sign. For the ops whose zero sign PyTorch
  // fixes on every path (a moved or picked input value, relu, clamp, where, ...); not for
  // maximum/minimum and amax/amin, whose sign on a +-0 tie PyTorch's own CPU kernels leave
  // to the vector path taken (docs/conformance.md, "Signed zeros").
  bool signed_zeros = false;
};

// "exact", "rtol 1.3e-06 atol 1e-05", "4 ulp or atol 1.19e-07", ...
std::string to_string(const Tolerance& tol);

// The tolerance for `op_name` ("exp", "add.Tensor", "aten::add.out" and "add_" all name
// the family of "add") producing `dtype`. reduced_elements is K, the number of elements
// folded into each output element (the reduced length of sum/mean/prod, the inner dimension
// of matmul, the softmax/normalised length); other ops ignore it. Integer and bool outputs
// are always exact. Throws bp::Error(InvalidArgument) for an op the table does not know,
// so a new op cannot silently get a made-up tolerance, and for K < 1.
//
// input_scale is the magnitude of the terms each output accumulates (input_scale_for()):
// the absolute error of a sum is bounded relative to sum |x_i|, not to the result, so the
// absolute part of the accumulating families' bound grows with it. 1 for unit-scale inputs.
Tolerance tolerance_for(std::string_view op_name, ScalarType dtype, int64_t reduced_elements = 1,
                        double input_scale = 1.0);

// The input_scale of a call from the root-mean-square of each tensor input's finite values
// (in argument order): the largest of them, or the product of the two largest for the
// matmul family (each term is a product of two inputs); never below 1.
double input_scale_for(std::string_view op_name, std::vector<double> input_rms);

// Machine epsilon of a floating dtype (distance from 1 to the next value): 2^-10 for f16,
// 2^-7 for bf16, 2^-23 for f32, 2^-52 for f64. 0 for integer and bool dtypes.
double dtype_eps(ScalarType dtype);

}  // namespace bp::conformance
