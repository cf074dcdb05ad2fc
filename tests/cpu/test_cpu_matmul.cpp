// Tests for plugins/cpu/linalg.cpp: matmul on cpu:0 against the reference backend for every
// dtype it supports (all but bool), 1-D/2-D/batched operands with broadcast batch dims,
// transposed operands (passed to the BLAS with a transpose flag), offset and stepped views
// (copied contiguous first), empty dims (k = 0 gives zeros), products large enough for BLAS
// threads and batches small enough to run in parallel, and integer wrap-around.
#include "cpu_checks.hpp"

#include <cstdint>
#include <limits>
#include <vector>

namespace bp::test {
namespace {

using ST = ScalarType;

constexpr ST kMatmulDtypes[] = {ST::Int8,    ST::UInt8,    ST::Int16,   ST::Int32,  ST::Int64,
                                ST::Float16, ST::BFloat16, ST::Float32, ST::Float64};

// Tolerance of a product with inner size k whose operands are bounded by 1 in magnitude
// (the floating tests draw from [-1, 1]): the reference sums in double and rounds once; the
// CPU sums k products in f32 (f16/bf16/f32; f64 in f64), in an order of its own and with
// FMAs, so each output may differ by up to k roundings of partial sums bounded by k,
// i.e. atol = k * eps of the accumulating dtype (for K = 1024 in f32 that is 1.2e-4; a
// fixed atol would be too tight for large k or meaningless for small k). On top, the
// result's own rounding (rtol of the dtype; f16/bf16 results round once from f32).
double matmul_atol(ST dtype, int64_t k) {
  return is_floating(dtype) ? static_cast<double>(k) * accumulate_eps(dtype) + 1e-6 : 0.0;
}

// Operands in [-1, 1] for floats and [-4, 4] for integers (random_tensor rounds those).
Tensor operand(IntArrayRef shape, ST dtype, uint64_t seed) {
  return is_floating(dtype) ? random_tensor(shape, dtype, seed, kRefDevice, -1.0, 1.0)
                            : random_tensor(shape, dtype, seed, kRefDevice);
}

void check_matmul(const Tensor& a, const Tensor& b, CpuLayout la, CpuLayout lb) {
  CAPTURE(shape_str(as_ref(a.sizes())));
  CAPTURE(shape_str(as_ref(b.sizes())));
  CAPTURE(std::string(layout_name(la)));
  CAPTURE(std::string(layout_name(lb)));
  const int64_t k = a.size(-1);
  check_cpu(matmul(cpu_copy(a, la), cpu_copy(b, lb)), matmul(a, b), default_rtol(a.dtype()),
            matmul_atol(a.dtype(), k));
}

TEST_CASE("cpu matmul matches the reference for every dtype, rank and layout") {
  struct Case {
    std::vector<int64_t> a, b;
  };
  const Case cases[] = {
      {{13}, {13}},                    // dot
      {{7}, {7, 5}},                   // vector @ matrix
      {{7, 13}, {13}},                 // matrix @ vector
      {{7, 13}, {13, 5}},              // odd sizes
      {{1, 9}, {9, 1}},                // 1 x 1 result
      {{3, 4, 5}, {5, 6}},             // batched @ matrix
      {{4, 5}, {2, 5, 3}},             // matrix @ batched
      {{2, 1, 4, 5}, {3, 5, 6}},       // broadcast batch dims
      {{2, 3, 17, 9}, {2, 3, 9, 11}},  // batch of equal dims
  };
  uint64_t seed = 600;
  for (ST dt : kMatmulDtypes) {
    CAPTURE(dtype_name(dt));
    for (const Case& c : cases) {
      const Tensor a = operand(c.a, dt, ++seed), b = operand(c.b, dt, ++seed);
      for (CpuLayout la : kCpuLayouts)
        for (CpuLayout lb : kCpuLayouts) check_matmul(a, b, la, lb);
    }
  }
}

TEST_CASE("cpu matmul of transposed, stepped and broadcast operands") {
  for (ST dt : {ST::Float32, ST::Float64, ST::BFloat16, ST::Int32}) {
    CAPTURE(dtype_name(dt));
    const Tensor a = operand({9, 12}, dt, 700), b = operand({12, 10}, dt, 701);
    const Device cpu = cpu_device();
    // A^T B^T as views of contiguous [12, 9] and [10, 12] blocks: BLAS transpose flags.
    const Tensor at = contiguous(a.t()), bt = contiguous(b.t());
    check_cpu(matmul(on(at, cpu).t(), on(bt, cpu).t()), matmul(a, b), default_rtol(dt),
              matmul_atol(dt, 12));
    // Every other column (stride 2): copied contiguous first.
    const Tensor wide = operand({9, 24}, dt, 702);
    check_cpu(matmul(on(wide, cpu).slice(1, 0, std::nullopt, 2), on(b, cpu)),
              matmul(wide.slice(1, 0, std::nullopt, 2), b), default_rtol(dt), matmul_atol(dt, 12));
    // A stride-0 row (expanded vector) and a batch dim of stride 0.
    const Tensor row = operand({12}, dt, 703);
    check_cpu(matmul(on(row, cpu).expand({5, 12}), on(b, cpu)), matmul(row.expand({5, 12}), b),
              default_rtol(dt), matmul_atol(dt, 12));
    check_cpu(matmul(on(a, cpu).expand({3, 9, 12}), on(b, cpu)), matmul(a.expand({3, 9, 12}), b),
              default_rtol(dt), matmul_atol(dt, 12));
  }
}

TEST_CASE("cpu matmul with empty dims") {
  for (ST dt : {ST::Float32, ST::Float16, ST::Float64, ST::Int64}) {
    CAPTURE(dtype_name(dt));
    const Device cpu = cpu_device();
    const Tensor a = zeros({3, 0}, dt, kRefDevice), b = zeros({0, 4}, dt, kRefDevice);
    check_cpu(matmul(on(a, cpu), on(b, cpu)), matmul(a, b), 0, 0);  // zeros [3, 4]
    const Tensor c = operand({0, 5}, dt, 710), d = operand({5, 4}, dt, 711);
    check_cpu(matmul(on(c, cpu), on(d, cpu)), matmul(c, d), 0, 0);  // [0, 4]
    const Tensor e = operand({2, 0, 3, 5}, dt, 712);
    check_cpu(matmul(on(e, cpu), on(d, cpu)), matmul(e, d), 0, 0);  // [2, 0, 3, 4]
  }
}

TEST_CASE("cpu matmul with a large inner size and large products") {
  // K = 1024 in f32 (see matmul_atol), products above the single-thread size so the BLAS
  // runs threaded (in row or column panels), and a batch of small products run in parallel one per
  // thread.
  const Device cpu = cpu_device();
  for (ST dt : {ST::Float32, ST::BFloat16, ST::Float16, ST::Float64}) {
    CAPTURE(dtype_name(dt));
    const Tensor a = operand({16, 1024}, dt, 720), b = operand({1024, 24}, dt, 721);
    check_cpu(matmul(on(a, cpu), on(b, cpu)), matmul(a, b), default_rtol(dt),
              matmul_atol(dt, 1024));
    const Tensor c = operand({150, 200}, dt, 722), d = operand({200, 130}, dt, 723);
    check_cpu(matmul(cpu_copy(c, CpuLayout::Transposed), on(d, cpu)), matmul(c, d),
              default_rtol(dt), matmul_atol(dt, 200));
    // Taller than wide / wider than tall: the threaded product is cut into row / column
    // panels (linalg.cpp, the last one ragged), with each operand as is and transposed.
    const Tensor p = operand({600, 64}, dt, 728), q = operand({64, 40}, dt, 729);
    check_cpu(matmul(cpu_copy(p, CpuLayout::Transposed), on(q, cpu)), matmul(p, q),
              default_rtol(dt), matmul_atol(dt, 64));
    check_cpu(matmul(on(p, cpu), cpu_copy(q, CpuLayout::Transposed)), matmul(p, q),
              default_rtol(dt), matmul_atol(dt, 64));
    const Tensor g = operand({70, 200}, dt, 726), h = operand({200, 600}, dt, 727);
    check_cpu(matmul(on(g, cpu), on(h, cpu)), matmul(g, h), default_rtol(dt), matmul_atol(dt, 200));
    check_cpu(matmul(cpu_copy(g, CpuLayout::Transposed), cpu_copy(h, CpuLayout::Transposed)),
              matmul(g, h), default_rtol(dt), matmul_atol(dt, 200));
    const Tensor e = operand({64, 8, 16}, dt, 724), f = operand({64, 16, 8}, dt, 725);
    check_cpu(matmul(on(e, cpu), cpu_copy(f, CpuLayout::Transposed)), matmul(e, f),
              default_rtol(dt), matmul_atol(dt, 16));
  }
}

TEST_CASE("cpu integer matmul is exact and wraps like PyTorch") {
  const Device cpu = cpu_device();
  // Products that overflow the dtype: the result is the exact sum modulo 2^bits.
  for (ST dt : {ST::Int8, ST::UInt8, ST::Int16, ST::Int32, ST::Int64}) {
    CAPTURE(dtype_name(dt));
    const double hi = dt == ST::Int64 ? 4e18 : dt == ST::Int32 ? 2e9 : dt == ST::Int16 ? 3e4 : 120;
    const double lo = dt == ST::UInt8 ? 0 : -hi;
    const Tensor a = random_tensor({6, 40}, dt, 730, kRefDevice, lo, hi);
    const Tensor b = random_tensor({40, 7}, dt, 731, kRefDevice, lo, hi);
    check_cpu(matmul(on(a, cpu), on(b, cpu)), matmul(a, b), 0, 0);
    check_cpu(matmul(cpu_copy(a, CpuLayout::Transposed), cpu_copy(b, CpuLayout::Offset)),
              matmul(a, b), 0, 0);
  }
  const Tensor big_a = random_tensor({130, 70}, ST::Int32, 732, kRefDevice, -1000, 1000);
  const Tensor big_b = random_tensor({70, 600}, ST::Int32, 733, kRefDevice, -1000, 1000);
  check_cpu(matmul(on(big_a, cpu), on(big_b, cpu)), matmul(big_a, big_b), 0, 0);
}

// Inputs whose f32 sums overflow or hold inf/NaN: the result of an f32 GEMM depends on its
// kernel's order of additions there (and oneDNN's kernels differ by ISA), so the plugin sums
// them in double as the reference does (linalg.cpp, onednn_keeps_semantics; docs/cpu.md
// "ISA levels"). The per-level conformance suites (conformance/suite_cpu_full_<level>)
// check the same rule under each of oneDNN's kernels.
TEST_CASE("cpu matmul of values whose f32 sums overflow, and of inf and NaN, is the reference's") {
  const double big = 3.0e38, inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Row 0: big + big - big - big is 0 in double and +inf summed in f32 in order. Row 1:
  // -inf plus two big products is -inf in double, NaN in f32 when big + big comes first.
  // Row 2: 0 * inf is NaN. Column 0 of b holds a NaN.
  const std::vector<double> a = {big, big, -big, -big, 1.5, big, big, -inf, 0, 1, 2, 3, 1, 2, 3, 4};
  const std::vector<double> b = {1, 1, 1, 1, 1, 2, 1, 1, inf, 2, 1, 1, nan, 1, 2, 1};
  for (ST dt : {ST::Float32, ST::BFloat16}) {
    CAPTURE(dtype_name(dt));
    const Tensor ra = to(from_vector(a, {4, 4}, kRefDevice), dt);
    const Tensor rb = to(from_vector(b, {4, 4}, kRefDevice), dt);
    const Tensor got = matmul(on(ra, cpu_device()), on(rb, cpu_device()));
    check_cpu(got, matmul(ra, rb), 0.0, 0.0);
  }
  // f16 cannot hold big values, but its inf and NaN take the same path.
  const std::vector<double> h = {1, 2, 3, -inf, 0, 1, 2, 3, nan, 1, 1, 1, 4, 3, 2, 1};
  const Tensor ra = to(from_vector(h, {4, 4}, kRefDevice), ST::Float16);
  const Tensor rb = to(from_vector(b, {4, 4}, kRefDevice), ST::Float16);
  check_cpu(matmul(on(ra, cpu_device()), on(rb, cpu_device())), matmul(ra, rb), 0.0, 0.0);
}

TEST_CASE("cpu matmul rejects bool and mixed dtypes") {
  const Device cpu = cpu_device();
  const Tensor a = on(random_tensor({2, 3}, ST::Bool, 740, kRefDevice), cpu);
  CHECK_THROWS_AS(matmul(a, a.t()), Error);
  const Tensor f = on(random_tensor({2, 3}, ST::Float32, 741, kRefDevice), cpu);
  const Tensor g = on(random_tensor({3, 2}, ST::Float64, 742, kRefDevice), cpu);
  CHECK_THROWS_AS(matmul(f, g), Error);
}

}  // namespace
}  // namespace bp::test
