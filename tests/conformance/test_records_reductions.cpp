// The op records of the reductions (conformance/src/records/reductions.cpp): every sample
// of every dtype has a valid, unique name and builds its arguments; the reference backend
// runs it (or, for an error input, throws the error named); the CPU plugin gives the
// reference's result within the op's tolerance. Spot checks pin a few results to PyTorch's
// values (empty reductions, NaN propagation, first index on ties, result dtypes).
#include "record_checks.hpp"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace {

using bp::IValue;
using bp::ScalarType;
using bp::Tensor;
using namespace bp::conformance;
using bp::test::record_of;

const std::vector<std::string> kOps = {
    "sum.dim_IntList", "mean.dim", "prod.dim_int", "amax",   "amin",
    "argmax",          "argmin",   "all.dim",      "any.dim"};

Tensor run_sample(const std::string& op, ScalarType dtype, const std::string& name) {
  return bp::test::reference_result(op, dtype, name);
}

}  // namespace

TEST_CASE("records reductions: every op of the group has a record with its dtypes") {
  for (const std::string& op : kOps) {
    const OpRecord& r = record_of(op);
    CHECK(r.op == op);
    const bool no_bool = op == "argmax" || op == "argmin";
    CHECK(r.dtypes.size() == (no_bool ? 9u : 10u));
  }
}

TEST_CASE("records reductions: every sample passes on the reference and the CPU plugin") {
  bp::test::check_record_group(kOps);
}

TEST_CASE("records reductions: spot checks against PyTorch") {
  using S = ScalarType;
  // Integer and bool sums are i64; keepdim keeps a size-1 dim; None reduces to 0-d.
  CHECK(run_sample("sum.dim_IntList", S::Int8, "dim1_7x13").dtype() == S::Int64);
  CHECK(run_sample("sum.dim_IntList", S::Bool, "full_none_7x13").dtype() == S::Int64);
  CHECK(run_sample("sum.dim_IntList", S::Float16, "full_none_7x13").dim() == 0);
  CHECK(run_sample("sum.dim_IntList", S::Float32, "dim0_keepdim_7x13").sizes() == bp::Shape{1, 13});
  CHECK(run_sample("sum.dim_IntList", S::Float32, "negative_dims_3x4x5").sizes() == bp::Shape{4});
  CHECK(run_sample("sum.dim_IntList", S::Int16, "dtype_i16").dtype() == S::Int16);
  // torch.zeros(0, 5).sum(0) == zeros(5); prod(0) == ones(5); mean(0) is NaN.
  CHECK(bp::to_vector<double>(run_sample("sum.dim_IntList", S::Float64, "empty_0x5_dim0")) ==
        std::vector<double>(5, 0.0));
  CHECK(bp::to_vector<int64_t>(run_sample("prod.dim_int", S::Int32, "empty_0x5_dim0")) ==
        std::vector<int64_t>(5, 1));
  CHECK(std::isnan(bp::to_vector<float>(run_sample("mean.dim", S::Float32, "empty_0x5_dim0"))[0]));
  CHECK(run_sample("mean.dim", S::Int32, "dtype_f64").dtype() == S::Float64);
  // all over no elements is true, any is false; a uint8 input gives uint8.
  const std::vector<uint8_t> all_empty =
      bp::to_vector<uint8_t>(run_sample("all.dim", S::UInt8, "empty_0x5_dim0"));
  CHECK(all_empty == std::vector<uint8_t>(5, 1));
  CHECK(run_sample("any.dim", S::Float32, "empty_0x5_dim0").dtype() == S::Bool);
  CHECK(bp::to_vector<bool>(run_sample("any.dim", S::Float32, "empty_0x5_dim0")) ==
        std::vector<bool>(5, false));
  // argmax/argmin: int64, first index on ties, NaN wins (torch 1.13).
  const bp::Device ref = kReferenceDevice;
  const Tensor ties = bp::tensor<float>({1.0f, 3.0f, 3.0f, -2.0f, -2.0f}, ref);
  CHECK(bp::to_vector<int64_t>(bp::call("argmax", {ties, IValue(), false})[0]) ==
        std::vector<int64_t>{1});
  CHECK(bp::to_vector<int64_t>(bp::call("argmin", {ties, IValue(), false})[0]) ==
        std::vector<int64_t>{3});
  const Tensor with_nan = bp::tensor<float>({1.0f, NAN, 5.0f, NAN}, ref);
  CHECK(bp::to_vector<int64_t>(bp::call("argmin", {with_nan, int64_t{0}, false})[0]) ==
        std::vector<int64_t>{1});
  CHECK(std::isnan(bp::to_vector<float>(bp::call("amax", {with_nan, bp::Shape{}, false})[0])[0]));
  CHECK(run_sample("argmax", S::Int8, "ties_flat_none_keepdim").sizes() == bp::Shape{1, 1});
  CHECK(run_sample("argmin", S::BFloat16, "dim1_7x13").dtype() == S::Int64);
  CHECK(run_sample("amin", S::Bool, "dim1_7x13").dtype() == S::Bool);
}
