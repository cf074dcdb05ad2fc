// The tolerance table: the documented defaults per dtype, ULP bounds of the transcendental
// ops, exact families and dtypes, the K-scaled bounds of reductions, op-name forms, and that
// every operator of the catalog has a line. Expected values are the literals of the docs.
#include <backplane/conformance/tolerance.hpp>
#include <backplane/core/catalog.hpp>
#include <backplane/core/error.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using bp::ScalarType;
using bp::conformance::input_scale_for;
using bp::conformance::Tolerance;
using bp::conformance::tolerance_for;

namespace {
constexpr double kEps32 = 1.1920928955078125e-07;  // 2^-23
constexpr double kEps64 = 2.220446049250313e-16;   // 2^-52
}  // namespace

TEST_CASE("add/sub get PyTorch's default rtol/atol per dtype (alpha rounds twice)") {
  const Tolerance f32 = tolerance_for("add", ScalarType::Float32);
  CHECK(f32.rtol == 1.3e-6);
  CHECK(f32.atol == 1e-5);
  CHECK(f32.max_ulp == 0);
  CHECK_FALSE(f32.exact);
  CHECK(tolerance_for("sub", ScalarType::Float64).rtol == 1e-7);
  CHECK(tolerance_for("sub", ScalarType::Float64).atol == 1e-7);
}

TEST_CASE("mul and div round once, as in PyTorch: bit-exact, zero signs included") {
  for (ScalarType t :
       {ScalarType::Float16, ScalarType::BFloat16, ScalarType::Float32, ScalarType::Float64}) {
    CAPTURE(bp::dtype_name(t));
    CHECK(tolerance_for("mul", t).exact);
    CHECK(tolerance_for("div", t).signed_zeros);
    CHECK(tolerance_for("div.Tensor_mode", t).exact);
  }
}

TEST_CASE("transcendental ops are ULP-bounded in the output dtype") {
  for (const char* op : {"exp", "log", "tanh", "sigmoid", "erf", "pow"}) {
    CAPTURE(op);
    const Tolerance f32 = tolerance_for(op, ScalarType::Float32);
    CHECK(f32.max_ulp == 4);
    CHECK(f32.rtol == 0.0);
    // Only subnormal results may be off by more (flushed to zero).
    CHECK(f32.atol == std::ldexp(1.0, -126));
    CHECK(tolerance_for(op, ScalarType::Float64).atol == std::ldexp(1.0, -1022));
    CHECK(tolerance_for(op, ScalarType::Float16).atol == std::ldexp(1.0, -14));
    CHECK(tolerance_for(op, ScalarType::Float64).max_ulp == 4);
    CHECK(tolerance_for(op, ScalarType::Float16).max_ulp == 1);
    CHECK(tolerance_for(op, ScalarType::BFloat16).max_ulp == 1);
  }
  CHECK(tolerance_for("sqrt", ScalarType::Float32).max_ulp == 1);
  CHECK(tolerance_for("reciprocal", ScalarType::Float64).max_ulp == 1);
  CHECK(tolerance_for("rsqrt", ScalarType::Float32).max_ulp == 2);
  CHECK(tolerance_for("silu", ScalarType::Float16).max_ulp == 2);
  // sin/cos and gelu have an absolute floor for results that cancel to near zero.
  CHECK(tolerance_for("sin", ScalarType::Float32).atol == kEps32);
  CHECK(tolerance_for("cos", ScalarType::Float64).atol == kEps64);
  CHECK(tolerance_for("gelu", ScalarType::Float32).atol == 8 * kEps32);
  // Half types compute in f32, so their floor is f32's, not the far looser f16 eps, unless
  // the subnormal floor of f16 (2^-14) is larger.
  CHECK(tolerance_for("gelu", ScalarType::Float16).atol == std::ldexp(1.0, -14));
  CHECK(tolerance_for("gelu", ScalarType::BFloat16).atol == 8 * kEps32);
  CHECK(tolerance_for("sin", ScalarType::BFloat16).atol == kEps32);
}

TEST_CASE("integer, bool, index, comparison and data-movement results are exact") {
  CHECK(tolerance_for("add", ScalarType::Int32).exact);
  CHECK(tolerance_for("exp", ScalarType::Int64).exact);  // whatever the op
  CHECK(tolerance_for("mul", ScalarType::Bool).exact);
  CHECK(tolerance_for("sum", ScalarType::UInt8, 1000).exact);
  for (const char* op :
       {"argmax", "argmin",  "index_select", "gather",     "eq",          "ne",    "lt",  "le",
        "gt",     "ge",      "logical_and",  "logical_or", "logical_not", "copy_", "cat", "where",
        "fill_",  "maximum", "amax",         "neg",        "floor",       "clamp"}) {
    CAPTURE(op);
    CHECK(tolerance_for(op, ScalarType::Float32).exact);
    CHECK(tolerance_for(op, ScalarType::Float16).exact);
  }
}

TEST_CASE("zeros are compared by sign where PyTorch fixes it, not for maximum/minimum/amax/amin") {
  for (const char* op : {"copy_", "fill_", "cat", "index_select", "gather", "where", "embedding",
                         "neg", "abs", "sign", "relu", "floor", "ceil", "clamp", "mul", "div"}) {
    CAPTURE(op);
    CHECK(tolerance_for(op, ScalarType::Float32).signed_zeros);
    CHECK(tolerance_for(op, ScalarType::BFloat16).signed_zeros);
  }
  for (const char* op : {"maximum", "minimum", "amax", "amin", "add", "sum", "exp"}) {
    CAPTURE(op);
    CHECK_FALSE(tolerance_for(op, ScalarType::Float32).signed_zeros);
  }
  CHECK_FALSE(tolerance_for("neg", ScalarType::Int32).signed_zeros);  // integers: no -0
}

TEST_CASE("reductions and matmul scale with the reduced length K") {
  const Tolerance k1 = tolerance_for("sum", ScalarType::Float32, 1);
  CHECK(k1.rtol == doctest::Approx(1.3e-6 + kEps32).epsilon(1e-12));
  CHECK(k1.atol == doctest::Approx(1e-5 + kEps32).epsilon(1e-12));
  const Tolerance k100 = tolerance_for("matmul", ScalarType::Float32, 100);
  CHECK(k100.rtol == doctest::Approx(1.3e-6 + 10 * kEps32).epsilon(1e-12));
  CHECK(k100.atol == doctest::Approx(1e-5 + 100 * kEps32).epsilon(1e-12));
  // f16/bf16 accumulate in f32: their K term is f32's, on top of their own default, plus
  // one rounding of an intermediate of magnitude sqrt(K) in the half type.
  const double eps_bf16 = std::ldexp(1.0, -7);
  const Tolerance bf16 = tolerance_for("sum", ScalarType::BFloat16, 10000);
  CHECK(bf16.rtol == doctest::Approx(1.6e-2 + 100 * kEps32 + eps_bf16).epsilon(1e-12));
  CHECK(bf16.atol == doctest::Approx(1e-5 + 10000 * kEps32 + 100 * eps_bf16).epsilon(1e-12));
  const Tolerance f64 = tolerance_for("softmax.int", ScalarType::Float64, 4);
  CHECK(f64.rtol == doctest::Approx(1e-7 + 2 * kEps64).epsilon(1e-12));
  // prod's relative error grows linearly with K.
  CHECK(tolerance_for("prod.dim_int", ScalarType::Float32, 100).rtol ==
        doctest::Approx(1.3e-6 + 100 * kEps32).epsilon(1e-12));
  // Bigger K, looser bound; the elementwise ops ignore K.
  CHECK(tolerance_for("sum", ScalarType::Float32, 4096).atol > k100.atol);
  CHECK(tolerance_for("add", ScalarType::Float32, 4096).atol == 1e-5);
}

TEST_CASE("the absolute bound of accumulating ops grows with the inputs' magnitude") {
  const Tolerance unit = tolerance_for("sum", ScalarType::Float32, 100);
  const Tolerance big = tolerance_for("sum", ScalarType::Float32, 100, 1000.0);
  CHECK(big.atol == doctest::Approx(1e-5 + 100 * kEps32 * 1000).epsilon(1e-12));
  CHECK(big.rtol == unit.rtol);
  CHECK(tolerance_for("add", ScalarType::Float32, 1, 1000.0).atol == 1e-5);  // not accumulating
  // The scale: the largest input RMS, the product of the two largest for the matmul family,
  // never below 1.
  CHECK(input_scale_for("sum.dim_IntList", {3.0, 0.5}) == 3.0);
  CHECK(input_scale_for("matmul", {3.0, 0.5, 4.0}) == 12.0);
  CHECK(input_scale_for("linear", {0.5, 0.25}) == 1.0);
  CHECK(input_scale_for("softmax.int", {}) == 1.0);
}

TEST_CASE("op names: overloads, namespaces, out and in-place forms name the same family") {
  const Tolerance plain = tolerance_for("exp", ScalarType::Float32);
  for (const char* name : {"exp.out", "aten::exp", "aten::exp.out", "exp_"}) {
    CAPTURE(name);
    const Tolerance t = tolerance_for(name, ScalarType::Float32);
    CHECK(t.max_ulp == plain.max_ulp);
    CHECK(t.atol == plain.atol);
  }
  CHECK(tolerance_for("add.Tensor", ScalarType::Float32).rtol == 1.3e-6);
  CHECK(tolerance_for("where.self", ScalarType::Float32).exact);
  CHECK(tolerance_for("copy_", ScalarType::Float32).exact);  // copy_ is its own name
}

TEST_CASE("an unknown op or a reduced length below 1 is refused") {
  try {
    tolerance_for("frobnicate", ScalarType::Float32);
    FAIL("expected bp::Error");
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::InvalidArgument);
    CHECK(std::string(e.what()).find("'frobnicate'") != std::string::npos);
  }
  CHECK_THROWS_AS(tolerance_for("sum", ScalarType::Float32, 0), bp::Error);
  CHECK_THROWS_AS(tolerance_for("exp_x", ScalarType::Float32), bp::Error);
}

TEST_CASE("every operator of the catalog has a tolerance") {
  for (const bp::OpDef& op : bp::Catalog::get().ops()) {
    CAPTURE(op.name);
    CHECK_NOTHROW(tolerance_for(op.name, ScalarType::Float32));
  }
}

TEST_CASE("dtype_eps and the printed form") {
  CHECK(bp::conformance::dtype_eps(ScalarType::Float16) == 0.0009765625);
  CHECK(bp::conformance::dtype_eps(ScalarType::BFloat16) == 0.0078125);
  CHECK(bp::conformance::dtype_eps(ScalarType::Float32) == kEps32);
  CHECK(bp::conformance::dtype_eps(ScalarType::Int32) == 0.0);
  CHECK(bp::conformance::to_string(Tolerance{0, 0, 0, true}) == "exact");
  CHECK(bp::conformance::to_string(Tolerance{1.3e-6, 1e-5, 0, false}) == "rtol 1.3e-06 atol 1e-05");
  CHECK(bp::conformance::to_string(Tolerance{0, 0, 4, false}) == "4 ulp or atol 0");
}
