// The CPU plugin's unary kernels (plugins/cpu/unary.cpp) against the reference backend: every
// op in every dtype it is registered for, on contiguous, transposed, offset and stepped
// inputs, broadcast (expanded) inputs, 0-d, empty and odd sizes (1, 7, 1023, and 70001,
// which runs the OpenMP split), special values (NaN, +-inf, -0, subnormals, the largest
// finite values, integer extremes), in-place and out= of another dtype.
// Tolerances: exact for integers, bool, and ops that are correctly rounded in f32 (neg abs
// sign relu floor ceil sqrt reciprocal logical_not; f16/bf16 go through f32 and round once,
// which is exact for these). The transcendental functions use Highway's f32 approximations
// (documented within 1-4 ulp) and compositions of them (sigmoid, gelu): rtol 1e-5 for f32
// (about 80 ulp: gelu('tanh') amplifies the error of exp by |2u| <= 11 on [-4, 4]) with
// check_same's atol 1e-5 for results near zero (sin near pi, gelu's tails); check_same's
// defaults for f64, f16 and bf16 (whose own rounding dominates).
#include "elementwise_checks.hpp"

#include <functional>
#include <string>
#include <vector>

namespace bp::test {
namespace {

using namespace ew;

using UnaryFn = std::function<Tensor(const Tensor&)>;

struct UnaryOp {
  std::string name;
  std::vector<ST> dtypes;
  UnaryFn fn;
  bool transcendental;
};

std::vector<UnaryOp> unary_ops() {
  const std::vector<ST> all = kAllDtypes, no_bool = all_but_bool(), fl = kFloatDtypes;
  return {
      {"neg", no_bool, [](const Tensor& t) { return neg(t); }, false},
      {"abs", no_bool, [](const Tensor& t) { return abs(t); }, false},
      {"sign", all, [](const Tensor& t) { return sign(t); }, false},
      {"relu", no_bool, [](const Tensor& t) { return relu(t); }, false},
      {"floor", no_bool, [](const Tensor& t) { return floor(t); }, false},
      {"ceil", no_bool, [](const Tensor& t) { return ceil(t); }, false},
      {"logical_not", all, [](const Tensor& t) { return logical_not(t); }, false},
      {"sqrt", fl, [](const Tensor& t) { return sqrt(t); }, false},
      {"reciprocal", fl, [](const Tensor& t) { return reciprocal(t); }, false},
      {"rsqrt", fl, [](const Tensor& t) { return rsqrt(t); }, true},
      {"exp", fl, [](const Tensor& t) { return exp(t); }, true},
      {"log", fl, [](const Tensor& t) { return log(t); }, true},
      {"sin", fl, [](const Tensor& t) { return sin(t); }, true},
      {"cos", fl, [](const Tensor& t) { return cos(t); }, true},
      {"tanh", fl, [](const Tensor& t) { return tanh(t); }, true},
      {"sigmoid", fl, [](const Tensor& t) { return sigmoid(t); }, true},
      {"erf", fl, [](const Tensor& t) { return erf(t); }, true},
      {"gelu", fl, [](const Tensor& t) { return gelu(t); }, true},
      {"gelu_tanh", fl, [](const Tensor& t) { return gelu(t, "tanh"); }, true},
  };
}

Tol tolerance(const UnaryOp& op, ST dtype) {
  if (!op.transcendental) return exact();
  if (dtype == ST::Float32) return {1e-5, 1e-5};
  return loose(dtype);
}

// f applied to a reference tensor and to the same values on the CPU, compared.
void check_unary(const UnaryOp& op, ST dtype, const Tensor& ref_in, const std::string& what) {
  CAPTURE(what);
  check_close(op.fn(on(ref_in, cpu_device())), op.fn(ref_in), tolerance(op, dtype));
}

TEST_CASE("cpu unary ops match the reference in every dtype, size and layout") {
  for (const UnaryOp& op : unary_ops()) {
    for (ST dtype : op.dtypes) {
      CAPTURE(op.name);
      CAPTURE(dtype_name(dtype));
      const Tol tol = tolerance(op, dtype);
      const Tensor base = random_tensor({3, 4, 5}, dtype, 11, kRefDevice);
      for (const auto& [layout_name, layout] : layouts()) {
        const std::string name = layout_name;  // clang 14 cannot capture a binding
        CAPTURE(name);
        check_close(op.fn(layout(on(base, cpu_device()))), op.fn(layout(base)), tol);
      }
      for (int64_t n : kSizes)
        check_unary(op, dtype, random_tensor({n}, dtype, 12 + static_cast<uint64_t>(n), kRefDevice),
                    "size " + std::to_string(n));
      check_unary(op, dtype, random_tensor({}, dtype, 13, kRefDevice), "0-d");
      check_unary(op, dtype, random_tensor({0, 3}, dtype, 14, kRefDevice), "empty [0, 3]");
      check_unary(op, dtype, specials(dtype), "special values");
      // A broadcast input: stride 0 in dim 1.
      const Tensor small = random_tensor({4, 1, 5}, dtype, 15, kRefDevice);
      check_close(op.fn(on(small, cpu_device()).expand({4, 3, 5})), op.fn(small.expand({4, 3, 5})),
                  tol);
    }
  }
}

TEST_CASE("cpu unary ops work in place and into out= tensors of another dtype or layout") {
  for (ST dtype : {ST::Float32, ST::Float16, ST::Int32}) {
    CAPTURE(dtype_name(dtype));
    const Tensor x = random_tensor({5, 6}, dtype, 21, kRefDevice);
    Tensor ref = clone(x);
    Tensor cpu = on(x, cpu_device());
    neg_(ref);
    neg_(cpu);
    check_close(cpu, ref, exact());
    // A transposed out= view: the iterator writes it in its own memory order.
    Tensor ref_out = empty({6, 5}, dtype, kRefDevice).t();
    Tensor cpu_out = empty({6, 5}, dtype, cpu_device()).t();
    abs_out(ref_out, x);
    abs_out(cpu_out, on(x, cpu_device()));
    check_close(cpu_out, ref_out, exact());
  }
  // f32 exp into an f64 out=: rounded to f32 first, then widened (as the reference).
  const Tensor x = random_tensor({1000}, ST::Float32, 22, kRefDevice);
  Tensor ref_out = empty({1000}, ST::Float64, kRefDevice);
  Tensor cpu_out = empty({1000}, ST::Float64, cpu_device());
  exp_out(ref_out, x);
  exp_out(cpu_out, on(x, cpu_device()));
  check_close(cpu_out, ref_out, {1e-5, 1e-5});
  // logical_not of int8 into an int64 out=.
  const Tensor xi = random_tensor({1000}, ST::Int8, 23, kRefDevice);
  Tensor ref_i = empty({1000}, ST::Int64, kRefDevice);
  Tensor cpu_i = empty({1000}, ST::Int64, cpu_device());
  logical_not_out(ref_i, xi);
  logical_not_out(cpu_i, on(xi, cpu_device()));
  check_close(cpu_i, ref_i, exact());
}

TEST_CASE("cpu f16 and bf16 ops convert every bit pattern exactly (the SIMD conversions)") {
  std::vector<uint16_t> bits(65536);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
  for (ST dtype : {ST::Float16, ST::BFloat16}) {
    CAPTURE(dtype_name(dtype));
    const Tensor x = from_data(bits.data(), dtype, {65536}, kRefDevice);
    const Tensor cx = on(x, cpu_device());
    // Exact ops: the value goes to f32 and back unchanged (neg, abs) or rounded once
    // (sqrt, reciprocal), which must equal the oracle's single rounding.
    check_close(neg(cx), neg(x), exact());
    check_close(abs(cx), abs(x), exact());
    check_close(sqrt(cx), sqrt(x), exact());
    check_close(reciprocal(cx), reciprocal(x), exact());
  }
}

TEST_CASE("cpu gelu rejects an unknown approximation") {
  const Tensor x = on(random_tensor({3}, ST::Float32, 31, kRefDevice), cpu_device());
  CHECK_THROWS(gelu(x, "fast"));
}

}  // namespace
}  // namespace bp::test
