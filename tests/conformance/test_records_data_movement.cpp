// The op records of the data movement group (conformance/src/records/data_movement.cpp):
// every sample of every dtype has a valid, unique name and builds its arguments; the
// reference backend runs it (or, for an error input, throws the error named); the CPU
// plugin gives the reference's result within the op's tolerance. Spot checks pin a few
// results to PyTorch's values.
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

const std::vector<std::string> kOps = {"copy_",      "fill_.Scalar", "arange.start_step",
                                       "cat",        "index_select", "gather",
                                       "where.self", "embedding"};

Tensor run_sample(const std::string& op, ScalarType dtype, const std::string& name) {
  return bp::test::reference_result(op, dtype, name);
}

}  // namespace

TEST_CASE("records data_movement: every op of the group has a record with its dtypes") {
  for (const std::string& op : kOps) {
    const OpRecord& r = record_of(op);
    CHECK(r.op == op);
    const bool no_bool = op == "arange.start_step";
    CHECK(r.dtypes.size() == (no_bool ? 9u : 10u));
  }
}

TEST_CASE("records data_movement: every sample passes on the reference and the CPU plugin") {
  bp::test::check_record_group(kOps);
}

TEST_CASE("records data_movement: spot checks against PyTorch") {
  const bp::Device ref = kReferenceDevice;
  // torch.arange(0, 300, 100, dtype=torch.int8) == [0, 100, -56]
  Tensor a = run_sample("arange.start_step", ScalarType::Int8, "wrap_0_300_100");
  CHECK(bp::to_vector<int8_t>(a) == std::vector<int8_t>{0, 100, -56});
  // torch.arange(5, 0, -1.5, dtype=torch.int32) == [5, 4, 3, 2]
  Tensor b = run_sample("arange.start_step", ScalarType::Int32, "float_scalars_truncated");
  CHECK(bp::to_vector<int32_t>(b) == std::vector<int32_t>{5, 4, 3, 2});
  CHECK(run_sample("arange.start_step", ScalarType::Float32, "dtype_none_float_scalars").dtype() ==
        ScalarType::Float32);
  CHECK(run_sample("arange.start_step", ScalarType::Int64, "dtype_none_int_scalars").sizes() ==
        bp::Shape{6});
  // fill_(-1) on uint8 is 255; fill_(2.75) on int16 truncates to 2.
  CHECK(bp::to_vector<uint8_t>(
            run_sample("fill_.Scalar", ScalarType::UInt8, "negative_wraps"))[0] == 255);
  CHECK(bp::to_vector<int16_t>(
            run_sample("fill_.Scalar", ScalarType::Int16, "float_value_truncated"))[12] == 2);
  // cat promotes: i64 with f32 is f32 of [3 + 2, 5]; legacy [0] tensors are skipped.
  Tensor c = run_sample("cat", ScalarType::Int64, "mixed_dtype_f32");
  CHECK(c.dtype() == ScalarType::Float32);
  CHECK(c.sizes() == bp::Shape{5, 5});
  CHECK(run_sample("cat", ScalarType::Float16, "legacy_empty_skipped").sizes() == bp::Shape{3, 5});
  // where(cond, int tensor, python float) is f32 (a wrapped number promotes by category).
  CHECK(run_sample("where.self", ScalarType::Int32, "wrapped_number_other").dtype() ==
        ScalarType::Float32);
  CHECK(run_sample("embedding", ScalarType::BFloat16, "indices_2d_i32").sizes() ==
        bp::Shape{3, 5, 7});
  CHECK(run_sample("index_select", ScalarType::Bool, "self_0d").dim() == 0);
  CHECK(run_sample("gather", ScalarType::Float64, "index_larger_along_dim").sizes() ==
        bp::Shape{7, 8});
  // copy_ from float specials into int32 (defined ones only): torch gives trunc toward zero.
  {
    const Tensor src = bp::tensor<float>({-0.0f, 2.5f, -2.5f, 1.5f}, ref);
    Tensor dst = bp::zeros({4}, ScalarType::Int32, ref);
    bp::copy_(dst, src);
    CHECK(bp::to_vector<int32_t>(dst) == std::vector<int32_t>{0, 2, -2, 1});
  }
  // Out of range into int8 on x86-64 PyTorch: nan -> 0, 300.0 -> 44 (docs/reference.md).
  {
    const Tensor src = bp::tensor<float>({NAN, 300.0f}, ref);
    Tensor dst = bp::zeros({2}, ScalarType::Int8, ref);
    bp::copy_(dst, src);
    CHECK(bp::to_vector<int8_t>(dst) == std::vector<int8_t>{0, 44});
  }
}
