// The CPU plugin's binary kernels (plugins/cpu/binary.cpp) against the reference backend:
// add sub (with alpha) mul div (true, trunc, floor) pow maximum minimum eq ne lt le gt ge
// logical_and logical_or where clamp, in every dtype each is registered for, on every
// layout of each operand, broadcasting ([4, 1, 5] with [3, 1]; a 0-d operand), empty and
// odd sizes (1, 7, 1023, and 70001, which runs the OpenMP split), every pair of special
// values (NaN, +-inf, -0, subnormals, extremes), in place and into out= tensors.
// Tolerances: exact everywhere except pow and alpha != 1 on floats: + - * / maximum and
// minimum are correctly rounded in f32/f64 and the f16/bf16 results, computed in f32 and
// rounded once, equal the oracle's single rounding (f32 has more than 2p + 2 bits); the
// rounding modes of div are computed in double like the oracle. pow uses the C library's
// powf/pow and alpha a fused multiply-add: check_same's defaults (1.3e-6 for f32).
#include "elementwise_checks.hpp"

#include <functional>
#include <string>
#include <vector>

namespace bp::test {
namespace {

using namespace ew;

using BinaryFn = std::function<Tensor(const Tensor&, const Tensor&)>;

struct BinaryOp {
  std::string name;
  std::vector<ST> dtypes;
  BinaryFn fn;
  bool rounds_differently;  // loose tolerance on floating dtypes
  bool nonzero_divisor;     // integer division: the second operand must have no zero
};

std::vector<BinaryOp> binary_ops() {
  const std::vector<ST> all = kAllDtypes, no_bool = all_but_bool(), fl = kFloatDtypes;
  return {
      {"add", all, [](const Tensor& a, const Tensor& b) { return add(a, b); }, false, false},
      {"add alpha", all,
       [](const Tensor& a, const Tensor& b) {
         if (a.dtype() == ST::Bool) return add(a, b, true);
         if (is_floating(a.dtype())) return add(a, b, 0.75);
         return add(a, b, 3);
       },
       true, false},
      {"sub", no_bool, [](const Tensor& a, const Tensor& b) { return sub(a, b); }, false, false},
      {"sub alpha", no_bool,
       [](const Tensor& a, const Tensor& b) {
         return is_floating(a.dtype()) ? sub(a, b, -2.5) : sub(a, b, -5);
       },
       true, false},
      {"mul", all, [](const Tensor& a, const Tensor& b) { return mul(a, b); }, false, false},
      {"div", fl, [](const Tensor& a, const Tensor& b) { return div(a, b); }, false, false},
      {"div trunc", no_bool,
       [](const Tensor& a, const Tensor& b) { return div(a, b, std::string("trunc")); }, false,
       true},
      {"div floor", no_bool,
       [](const Tensor& a, const Tensor& b) { return div(a, b, std::string("floor")); }, false,
       true},
      {"pow", no_bool, [](const Tensor& a, const Tensor& b) { return pow(a, b); }, true, false},
      {"maximum", all, [](const Tensor& a, const Tensor& b) { return maximum(a, b); }, false,
       false},
      {"minimum", all, [](const Tensor& a, const Tensor& b) { return minimum(a, b); }, false,
       false},
      {"eq", all, [](const Tensor& a, const Tensor& b) { return eq(a, b); }, false, false},
      {"ne", all, [](const Tensor& a, const Tensor& b) { return ne(a, b); }, false, false},
      {"lt", all, [](const Tensor& a, const Tensor& b) { return lt(a, b); }, false, false},
      {"le", all, [](const Tensor& a, const Tensor& b) { return le(a, b); }, false, false},
      {"gt", all, [](const Tensor& a, const Tensor& b) { return gt(a, b); }, false, false},
      {"ge", all, [](const Tensor& a, const Tensor& b) { return ge(a, b); }, false, false},
      {"logical_and", all, [](const Tensor& a, const Tensor& b) { return logical_and(a, b); },
       false, false},
      {"logical_or", all, [](const Tensor& a, const Tensor& b) { return logical_or(a, b); }, false,
       false},
      {"where", all, [](const Tensor& a, const Tensor& b) { return where(gt(a, b), a, b); }, false,
       false},
      {"clamp", no_bool,
       [](const Tensor& a, const Tensor&) {
         return is_floating(a.dtype()) ? clamp(a, Scalar(-1.5), Scalar(2.25))
                                       : clamp(a, Scalar(-2), Scalar(3));
       },
       false, false},
  };
}

Tol tolerance(const BinaryOp& op, ST dtype) {
  return op.rounds_differently && is_floating(dtype) ? loose(dtype) : exact();
}

// Random operand values; for integer division and integer pow, values that keep the
// oracle's results meaningful (no zero divisor; exponents in [-2, 9]).
Tensor operand(const BinaryOp& op, IntArrayRef shape, ST dtype, uint64_t seed, bool second) {
  if (second && op.nonzero_divisor && !is_floating(dtype)) {
    const Tensor t = random_tensor(shape, dtype, seed, kRefDevice, dtype == ST::UInt8 ? 1 : -9, 9);
    return where(eq(t, zeros({}, dtype, kRefDevice)), ones({}, dtype, kRefDevice), t);
  }
  if (second && op.name == "pow" && !is_floating(dtype))
    return random_tensor(shape, dtype, seed, kRefDevice, dtype == ST::UInt8 ? 0 : -2, 9);
  if (!is_floating(dtype) && dtype != ST::Bool && op.name == "pow")
    return random_tensor(shape, dtype, seed, kRefDevice, dtype == ST::UInt8 ? 0 : -5, 5);
  return random_tensor(shape, dtype, seed, kRefDevice);
}

void check_binary(const BinaryOp& op, ST dtype, const Tensor& a, const Tensor& b,
                  const std::string& what) {
  CAPTURE(what);
  const Device cpu = cpu_device();
  check_close(op.fn(on(a, cpu), on(b, cpu)), op.fn(a, b), tolerance(op, dtype));
}

TEST_CASE("cpu binary ops match the reference in every dtype, size, layout and broadcast") {
  const Device cpu = cpu_device();
  for (const BinaryOp& op : binary_ops()) {
    for (ST dtype : op.dtypes) {
      CAPTURE(op.name);
      CAPTURE(dtype_name(dtype));
      const Tol tol = tolerance(op, dtype);
      const Tensor a = operand(op, {3, 4, 5}, dtype, 41, false);
      const Tensor b = operand(op, {3, 4, 5}, dtype, 42, true);
      // Each operand in each layout, the other contiguous.
      for (const auto& [layout_name, layout] : layouts()) {
        const std::string name = layout_name;  // clang 14 cannot capture a binding
        CAPTURE(name);
        check_close(op.fn(layout(on(a, cpu)), on(b, cpu)), op.fn(layout(a), b), tol);
        check_close(op.fn(on(a, cpu), layout(on(b, cpu))), op.fn(a, layout(b)), tol);
      }
      for (int64_t n : kSizes) {
        const uint64_t seed = 43 + static_cast<uint64_t>(n);
        check_binary(op, dtype, operand(op, {n}, dtype, seed, false),
                     operand(op, {n}, dtype, seed + 1, true), "size " + std::to_string(n));
      }
      // Broadcasting: [4, 1, 5] with [3, 1] -> [4, 3, 5]; a 0-d operand on either side; a
      // large broadcast that runs the threads with a stride-0 operand.
      check_binary(op, dtype, operand(op, {4, 1, 5}, dtype, 51, false),
                   operand(op, {3, 1}, dtype, 52, true), "[4, 1, 5] with [3, 1]");
      check_binary(op, dtype, operand(op, {}, dtype, 53, false), operand(op, {7}, dtype, 54, true),
                   "0-d with [7]");
      check_binary(op, dtype, operand(op, {2, 3}, dtype, 55, false),
                   operand(op, {}, dtype, 56, true), "[2, 3] with 0-d");
      check_binary(op, dtype, operand(op, {}, dtype, 57, false), operand(op, {}, dtype, 58, true),
                   "0-d with 0-d");
      check_binary(op, dtype, operand(op, {300, 1}, dtype, 59, false),
                   operand(op, {1, 301}, dtype, 60, true), "[300, 1] with [1, 301]");
      check_binary(op, dtype, operand(op, {0, 3}, dtype, 61, false),
                   operand(op, {3}, dtype, 62, true), "empty [0, 3] with [3]");
      // Every pair of special values (integer division skips zero divisors).
      const Tensor s = specials(dtype);
      const int64_t k = s.numel();
      Tensor sb = s.view({1, k});
      if (op.nonzero_divisor && !is_floating(dtype))
        sb = where(eq(sb, zeros({}, dtype, kRefDevice)), ones({}, dtype, kRefDevice), sb);
      if (op.name == "pow" && !is_floating(dtype))
        sb = random_tensor({1, k}, dtype, 63, kRefDevice, dtype == ST::UInt8 ? 0 : -2, 9);
      check_binary(op, dtype, s.view({k, 1}), sb, "special values");
    }
  }
}

TEST_CASE("cpu add_ and friends work in place, and out= may have another dtype or layout") {
  const Device cpu = cpu_device();
  for (ST dtype : {ST::Float32, ST::BFloat16, ST::Int64, ST::Bool}) {
    CAPTURE(dtype_name(dtype));
    const Tensor a = random_tensor({70001}, dtype, 71, kRefDevice);
    const Tensor b = random_tensor({70001}, dtype, 72, kRefDevice);
    Tensor ref = clone(a), got = on(a, cpu);
    add_(ref, b);
    add_(got, on(b, cpu));
    check_close(got, ref, exact());
    // In place with a broadcast other, and a transposed self.
    const Tensor m = random_tensor({6, 7}, dtype, 73, kRefDevice);
    const Tensor row = random_tensor({7}, dtype, 74, kRefDevice);
    Tensor ref_m = transposed_copy(m), got_m = transposed_copy(on(m, cpu));
    mul_(ref_m, row);
    mul_(got_m, on(row, cpu));
    check_close(got_m, ref_m, exact());
  }
  // An i8 sum into an i64 out= wraps in i8 first (add(int8 100, int8 100, out=int64) == -56).
  const Tensor a = random_tensor({1000}, ST::Int8, 75, kRefDevice, -128, 127);
  Tensor ref_out = empty({1000}, ST::Int64, kRefDevice);
  Tensor got_out = empty({1000}, ST::Int64, cpu);
  add_out(ref_out, a, a);
  add_out(got_out, on(a, cpu), on(a, cpu));
  check_close(got_out, ref_out, exact());
  // An f32 comparison into a transposed f32 out=.
  const Tensor x = random_tensor({5, 8}, ST::Float32, 76, kRefDevice);
  const Tensor y = random_tensor({5, 8}, ST::Float32, 77, kRefDevice);
  Tensor ref_t = empty({8, 5}, ST::Float32, kRefDevice).t();
  Tensor got_t = empty({8, 5}, ST::Float32, cpu).t();
  lt_out(ref_t, x, y);
  lt_out(got_t, on(x, cpu), on(y, cpu));
  check_close(got_t, ref_t, exact());
  // A 16M-element f32 add_out, contiguous: the streaming-store path.
  const Tensor big_a = random_tensor({1 << 22}, ST::Float32, 78, kRefDevice);
  const Tensor big_b = random_tensor({1 << 22}, ST::Float32, 79, kRefDevice);
  Tensor ref_big = empty({1 << 22}, ST::Float32, kRefDevice);
  Tensor got_big = empty({1 << 22}, ST::Float32, cpu);
  add_out(ref_big, big_a, big_b);
  add_out(got_big, on(big_a, cpu), on(big_b, cpu));
  check_close(got_big, ref_big, exact());
}

TEST_CASE("cpu integer division by zero is an error that leaves self unchanged") {
  const Device cpu = cpu_device();
  for (ST dtype : {ST::Int8, ST::UInt8, ST::Int32, ST::Int64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor a = random_tensor({100}, dtype, 81, kRefDevice, 1, 9);
    Tensor self = on(a, cpu);
    Tensor zero_at_end = on(random_tensor({100}, dtype, 82, kRefDevice, 1, 9), cpu);
    Tensor last = zero_at_end.slice(0, 99, 100);
    copy_(last, zeros({1}, dtype, cpu));
    CHECK_THROWS(div_(self, zero_at_end, std::string("floor")));
    CHECK_THROWS(div(self, zero_at_end, std::string("trunc")));
    check_close(self, a, exact());
  }
}

TEST_CASE("cpu integer division wraps INT_MIN / -1 and floors toward -inf") {
  const Device cpu = cpu_device();
  for (ST dtype : {ST::Int8, ST::Int16, ST::Int32, ST::Int64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor s = specials(dtype);
    const Tensor minus_one = full({s.numel()}, -1, dtype, kRefDevice);
    for (const char* mode : {"trunc", "floor"}) {
      check_close(div(on(s, cpu), on(minus_one, cpu), std::string(mode)),
                  div(s, minus_one, std::string(mode)), exact());
    }
  }
}

// Rows of up to 4 elements skip the SIMD loops (simd::short_binary in plugins/cpu/simd.hpp):
// each element must come out bit for bit as it does inside a long row, where the SIMD loops
// compute it, fused multiply-add for alpha included.
TEST_CASE("cpu short rows give the bits of the same elements in a long row") {
  const Device cpu = cpu_device();
  for (ST dtype : {ST::Float32, ST::Float64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor a = on(add(mul(arange(0, 64, 1, dtype, kRefDevice), 0.37), -7.1), cpu);
    const Tensor b = on(add(mul(arange(0, 64, 1, dtype, kRefDevice), -0.29), 3.3), cpu);
    const std::vector<std::function<Tensor(const Tensor&, const Tensor&)>> ops = {
        [](const Tensor& x, const Tensor& y) { return add(x, y); },
        [](const Tensor& x, const Tensor& y) { return add(x, y, 0.1); },
        [](const Tensor& x, const Tensor& y) { return sub(x, y, 3.7); },
        [](const Tensor& x, const Tensor& y) { return sub(x, y); },
        [](const Tensor& x, const Tensor& y) { return mul(x, y); },
        [](const Tensor& x, const Tensor& y) { return div(x, y); }};
    for (size_t k = 0; k < ops.size(); ++k) {
      CAPTURE(k);
      const Tensor whole = ops[k](a, b);
      for (int64_t start = 0; start + 4 <= 64; start += 4) {
        for (int64_t n = 1; n <= 4; ++n) {
          CAPTURE(start);
          CAPTURE(n);
          // A narrowed 1-D tensor is dense: the kernel sees one row of n elements.
          const Tensor part = ops[k](a.narrow(0, start, n), b.narrow(0, start, n));
          check_close(part, whole.narrow(0, start, n), exact());
        }
      }
    }
  }
}

// The dense entries of add sub mul div maximum minimum on f32/f64 (binary.cpp; plugin.h's
// bp_dense_call) take the contiguous calls; the same values read through a strided view take
// the kernel. Both must give the same bits, special values included, at every ISA level
// (cpu/kernels_at_<level>); 70001 elements, above two threading grains, the entry declines.
TEST_CASE("cpu dense entries give the bits of the kernel") {
  const Device cpu = cpu_device();
  for (ST dtype : {ST::Float32, ST::Float64}) {
    CAPTURE(dtype_name(dtype));
    const std::vector<double> sv = to_vector<double>(to(specials(dtype), ST::Float64));
    for (const int64_t n : {1, 3, 4, 5, 17, 1023, 70001}) {
      CAPTURE(n);
      std::vector<double> av(static_cast<size_t>(n)), bv(av.size());
      for (size_t i = 0; i < av.size(); ++i) {
        av[i] = i % 3 == 0 ? sv[i % sv.size()] : 0.37 * static_cast<double>(i) - 7.1;
        bv[i] = i % 5 == 0 ? sv[(i * 7 + 3) % sv.size()] : -0.29 * static_cast<double>(i) + 3.3;
      }
      const Tensor a = on(to(from_vector(av, {n}, kRefDevice), dtype), cpu);
      const Tensor b = on(to(from_vector(bv, {n}, kRefDevice), dtype), cpu);
      const Tensor a_strided = stepped_copy(a), b_strided = stepped_copy(b);
      const std::vector<std::function<Tensor(const Tensor&, const Tensor&)>> ops = {
          [](const Tensor& x, const Tensor& y) { return add(x, y); },
          [](const Tensor& x, const Tensor& y) { return add(x, y, 0.1); },
          [](const Tensor& x, const Tensor& y) { return add(x, y, int64_t{3}); },
          [](const Tensor& x, const Tensor& y) { return sub(x, y, 3.7); },
          [](const Tensor& x, const Tensor& y) { return mul(x, y); },
          [](const Tensor& x, const Tensor& y) { return div(x, y); },
          [](const Tensor& x, const Tensor& y) { return maximum(x, y); },
          [](const Tensor& x, const Tensor& y) { return minimum(x, y); }};
      for (size_t k = 0; k < ops.size(); ++k) {
        CAPTURE(k);
        check_close(ops[k](a, b), on(ops[k](a_strided, b_strided), kRefDevice), exact());
      }
      // Alphas the kernel refuses: the same error for contiguous and strided operands (the
      // meta rule refuses them first; the dense entry would decline them too).
      for (const Scalar alpha : {Scalar(true), Scalar(1e300)}) {
        if (dtype == ST::Float64 && alpha.is_floating()) continue;  // 1e300 fits f64
        std::string dense_error, kernel_error;
        try {
          add(a, b, alpha);
        } catch (const Error& e) {
          dense_error = e.what();
        }
        try {
          add(a_strided, b_strided, alpha);
        } catch (const Error& e) {
          kernel_error = e.what();
        }
        CHECK_FALSE(dense_error.empty());
        CHECK(dense_error == kernel_error);
      }
    }
  }
}

}  // namespace
}  // namespace bp::test
