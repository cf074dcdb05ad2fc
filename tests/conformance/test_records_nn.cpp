// The nn group's op records (conformance/src/records/nn.cpp): every op of the group has a
// record; every sample of every dtype (quick and full) has a valid, unique name, builds its
// arguments, and runs on the reference backend, or, for an error input, is refused there
// with the expected text. Every case also passes on the CPU plugin, run as the suite runs
// it (record_checks.hpp). Spot checks pin output shapes of matmul's rank combinations and attention
// to PyTorch's.
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
    "softmax.int", "log_softmax.int", "layer_norm", "rms_norm",
    "matmul",      "addmm",           "linear",     "scaled_dot_product_attention",
};

// The reference's result of one named sample.
bp::Tensor run_sample(const std::string& op, ScalarType dt, const std::string& name) {
  return bp::test::reference_result(op, dt, name);
}

}  // namespace

TEST_CASE("records/nn: every op of the group has exactly one record") {
  std::map<std::string, int> count;
  for (const bpc::OpRecord& r : bpc::op_records()) ++count[r.op];
  for (const char* op : kGroupOps) {
    INFO(op);
    CHECK(bp::Catalog::get().at(op).name == op);
    CHECK(count[op] == 1);
  }
}

TEST_CASE("records/nn: every sample passes on the reference and the CPU plugin") {
  bp::test::check_record_group(
      std::vector<std::string>(std::begin(kGroupOps), std::end(kGroupOps)));
}

TEST_CASE("records/nn: result shapes and dtypes are PyTorch's") {
  struct Expect {
    const char* op;
    ScalarType dt;
    const char* sample;
    ScalarType out;
    std::vector<int64_t> shape;
  };
  // torch.matmul(torch.ones(7), torch.ones(7, 5)).shape == (5,), etc.
  const Expect cases[] = {
      {"matmul", ScalarType::Float32, "dot_13", ScalarType::Float32, {}},
      {"matmul", ScalarType::Float32, "vector_matrix_7_7x5", ScalarType::Float32, {5}},
      {"matmul", ScalarType::Int32, "matrix_vector_6x7_7", ScalarType::Int32, {6}},
      {"matmul",
       ScalarType::Float64,
       "broadcast_batch_3x1x4x5_2x5x6",
       ScalarType::Float64,
       {3, 2, 4, 6}},
      {"matmul", ScalarType::Float32, "empty_k_3x0_0x4", ScalarType::Float32, {3, 4}},
      {"matmul", ScalarType::Int8, "vector_batched_4_2x4x5", ScalarType::Int8, {2, 5}},
      {"linear", ScalarType::Float32, "vector_weight_5x7_7", ScalarType::Float32, {5}},
      {"linear", ScalarType::Float32, "batched_2x3x8_4x8", ScalarType::Float32, {2, 3, 4}},
      {"scaled_dot_product_attention",
       ScalarType::Float32,
       "broadcast_batch",
       ScalarType::Float32,
       {2, 3, 5, 4}},
      {"scaled_dot_product_attention",
       ScalarType::Float16,
       "unbatched_5x8_7x8",
       ScalarType::Float16,
       {5, 6}},
      {"softmax.int", ScalarType::Int32, "last_dim_7x13", ScalarType::Float32, {7, 13}},
      {"log_softmax.int", ScalarType::BFloat16, "dtype_f32_7x13", ScalarType::Float32, {7, 13}},
      {"layer_norm", ScalarType::BFloat16, "two_dims_3x4x5", ScalarType::BFloat16, {3, 4, 5}},
  };
  for (const Expect& e : cases) {
    INFO(e.op << "/" << bp::dtype_name(e.dt) << "/" << e.sample);
    const bp::Tensor t = run_sample(e.op, e.dt, e.sample);
    CHECK(t.dtype() == e.out);
    CHECK(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()) == e.shape);
  }
}

TEST_CASE("records/nn: addmm with beta = 0 ignores NaN in self") {
  const bp::Tensor t = run_sample("addmm", ScalarType::Float32, "beta_0_special_self_4x8");
  for (float v : bp::to_vector<float>(t)) CHECK_FALSE(std::isnan(v));
}
