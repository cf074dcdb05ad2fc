// The elementwise group's op records (conformance/src/records/elementwise*.cpp): every op of
// the group has a record; every sample of every dtype (quick and full) has a valid, unique
// name, builds its arguments, and runs on the reference backend, or, for an error input,
// is refused there with the expected text. Every case also passes on the CPU plugin, run
// as the suite runs it (record_checks.hpp). Spot checks pin the output
// dtype and shape of the promotion samples to PyTorch's (torch 1.13) answers.
#include "record_checks.hpp"

#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace bpc = bp::conformance;
using bp::ScalarType;

namespace {

const char* const kGroupOps[] = {
    "neg",
    "abs",
    "sign",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "erf",
    "relu",
    "gelu",
    "silu",
    "floor",
    "ceil",
    "logical_not",
    "add.Tensor",
    "add.Scalar",
    "sub.Tensor",
    "sub.Scalar",
    "mul.Tensor",
    "mul.Scalar",
    "div.Tensor",
    "div.Tensor_mode",
    "div.Scalar",
    "div.Scalar_mode",
    "pow.Tensor_Tensor",
    "pow.Tensor_Scalar",
    "maximum",
    "minimum",
    "eq.Tensor",
    "eq.Scalar",
    "ne.Tensor",
    "ne.Scalar",
    "lt.Tensor",
    "lt.Scalar",
    "le.Tensor",
    "le.Scalar",
    "gt.Tensor",
    "gt.Scalar",
    "ge.Tensor",
    "ge.Scalar",
    "logical_and",
    "logical_or",
    "clamp",
};

// The reference's result of one named sample.
bp::Tensor run_sample(const std::string& op, ScalarType dt, const std::string& name) {
  return bp::test::reference_result(op, dt, name);
}

}  // namespace

TEST_CASE("records/elementwise: every op of the group has exactly one record") {
  std::map<std::string, int> count;
  for (const bpc::OpRecord& r : bpc::op_records()) ++count[r.op];
  for (const char* op : kGroupOps) {
    INFO(op);
    CHECK(bp::Catalog::get().at(op).name == op);
    CHECK(count[op] == 1);
  }
}

TEST_CASE("records/elementwise: every sample passes on the reference and the CPU plugin") {
  bp::test::check_record_group(
      std::vector<std::string>(std::begin(kGroupOps), std::end(kGroupOps)));
}

TEST_CASE("records/elementwise: promotion samples have PyTorch's result dtypes") {
  struct Expect {
    const char* op;
    ScalarType dt;
    const char* sample;
    ScalarType out;
    std::vector<int64_t> shape;
  };
  // torch.result_type answers, e.g. torch.add(u8 tensor, i8 tensor).dtype == int16.
  const Expect cases[] = {
      {"add.Tensor", ScalarType::UInt8, "mixed_i8_6x5", ScalarType::Int16, {6, 5}},
      {"add.Tensor", ScalarType::Float16, "mixed_bf16_6x5", ScalarType::Float32, {6, 5}},
      {"add.Tensor", ScalarType::Bool, "mixed_i32_6x5", ScalarType::Int32, {6, 5}},
      {"add.Tensor", ScalarType::Int32, "f32_0d_other_4x5", ScalarType::Float32, {4, 5}},
      {"add.Tensor", ScalarType::Float16, "f32_0d_other_4x5", ScalarType::Float16, {4, 5}},
      {"mul.Tensor", ScalarType::Int8, "wrapped_int_5x6", ScalarType::Int8, {5, 6}},
      {"mul.Tensor", ScalarType::Int8, "wrapped_float_5x6", ScalarType::Float32, {5, 6}},
      {"sub.Tensor", ScalarType::Int64, "broadcast_3x1_1x4", ScalarType::Int64, {3, 4}},
      {"div.Tensor", ScalarType::Int64, "contiguous_7x13", ScalarType::Float32, {7, 13}},
      {"div.Tensor_mode", ScalarType::Int16, "trunc_contiguous_7x13", ScalarType::Int16, {7, 13}},
      {"pow.Tensor_Tensor", ScalarType::Bool, "contiguous_7x13", ScalarType::Int32, {7, 13}},
      {"eq.Tensor", ScalarType::Float32, "broadcast_13_7x13", ScalarType::Bool, {7, 13}},
      {"add.Scalar", ScalarType::Int32, "float_scalar_7x13", ScalarType::Float32, {7, 13}},
      {"add.Scalar", ScalarType::UInt8, "int_scalar_7x13", ScalarType::UInt8, {7, 13}},
      {"pow.Tensor_Scalar", ScalarType::Bool, "square_7x13", ScalarType::Int64, {7, 13}},
      {"exp", ScalarType::Int32, "contiguous_7x13", ScalarType::Float32, {7, 13}},
      {"logical_not", ScalarType::Float32, "scalar_0d", ScalarType::Bool, {}},
      {"clamp", ScalarType::Int32, "float_bounds_7x13", ScalarType::Float32, {7, 13}},
      {"clamp", ScalarType::Bool, "both_7x13", ScalarType::Int64, {7, 13}},
  };
  for (const Expect& e : cases) {
    INFO(e.op << "/" << bp::dtype_name(e.dt) << "/" << e.sample);
    const bp::Tensor t = run_sample(e.op, e.dt, e.sample);
    CHECK(t.dtype() == e.out);
    CHECK(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()) == e.shape);
  }
}

TEST_CASE("records/elementwise: integer samples wrap around as PyTorch") {
  // special_pairs of add on i8 holds 127 + 1 (row 1, col 3 of specials {min, max, 0, 1,
  // -1, min+1, max-1}): PyTorch gives -128.
  const bp::Tensor t = run_sample("add.Tensor", ScalarType::Int8, "special_pairs");
  REQUIRE(t.sizes() == bp::Shape{7, 7});
  const std::vector<int8_t> v = bp::to_vector<int8_t>(t);
  CHECK(v[1 * 7 + 3] == -128);
  CHECK(v[0 * 7 + 4] == 127);  // -128 + -1
}
