// Tests for plugins/cpu/reductions.cpp (and reduce_engine.hpp, simd_reduce.cpp): sum, prod,
// amax, amin, argmax, argmin, all and any on cpu:0 against the reference backend, for every
// dtype, on contiguous, transposed and offset inputs, 0-d and empty tensors, dim lists with
// negative dims and keepdim, sizes that take each loop of the engine (row folds, outer-dim
// folds, threads over outputs, threads within one output), and NaN/Inf/ties.
#include "cpu_checks.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace bp::test {
namespace {

using ST = ScalarType;
using Dims = std::vector<int64_t>;

// Float sums may differ from the double reference by their rounding: at most about n
// roundings of partial sums bounded by n * max|x| (the test values have |x| <= 4), i.e.
// atol = n * 4 * eps of the accumulating dtype. Other results compare with the dtype's
// default tolerance (exact for integers, bool and every amax/argmax/all).
double sum_atol(ST dtype, int64_t n) {
  return is_floating(dtype) ? static_cast<double>(n) * 4.0 * accumulate_eps(dtype) + 1e-5 : 0.0;
}

// Float products: one rounding per factor in the accumulating dtype, on top of the result's.
double prod_rtol(ST dtype, int64_t n) {
  return is_floating(dtype) ? default_rtol(dtype) + static_cast<double>(n) * accumulate_eps(dtype)
                            : 0.0;
}

int64_t reduced_count(const Tensor& x, const Dims& dims) {
  if (dims.empty() || x.dim() == 0) return x.numel();
  int64_t n = 1;
  for (int64_t d : dims) n *= x.size(d < 0 ? d + x.dim() : d);
  return n;
}

// Every op on one input (given on the reference device), compared in every layout.
void check_all_ops(const Tensor& ref, const std::vector<Dims>& dim_lists) {
  const ST dt = ref.dtype();
  for (CpuLayout layout : kCpuLayouts) {
    CAPTURE(std::string(layout_name(layout)));
    const Tensor x = cpu_copy(ref, layout);
    for (const Dims& dims : dim_lists) {
      CAPTURE(shape_str(IntArrayRef(dims)));
      for (bool keepdim : {false, true}) {
        CAPTURE(keepdim);
        check_cpu(sum(x, dims, keepdim), sum(ref, dims, keepdim), default_rtol(dt),
                  sum_atol(dt, reduced_count(ref, dims)));
        bool nonempty = true;
        for (int64_t d : dims)
          nonempty = nonempty && (ref.dim() == 0 || ref.size(d < 0 ? d + ref.dim() : d) != 0);
        if (dims.empty()) nonempty = ref.numel() != 0;
        if (nonempty) {
          check_cpu(amax(x, dims, keepdim), amax(ref, dims, keepdim), 0, 0);
          check_cpu(amin(x, dims, keepdim), amin(ref, dims, keepdim), 0, 0);
        }
        if (dims.size() == 1 || ref.dim() == 0) {
          const int64_t d = dims.empty() ? 0 : dims[0];
          const int64_t n = ref.dim() == 0 ? 1 : ref.size(d < 0 ? d + ref.dim() : d);
          check_cpu(prod(x, d, keepdim), prod(ref, d, keepdim), prod_rtol(dt, n), default_atol(dt));
          check_cpu(all(x, d, keepdim), all(ref, d, keepdim), 0, 0);
          check_cpu(any(x, d, keepdim), any(ref, d, keepdim), 0, 0);
          if (dt != ST::Bool && (ref.dim() == 0 || ref.size(d < 0 ? d + ref.dim() : d) != 0)) {
            check_cpu(argmax(x, d, keepdim), argmax(ref, d, keepdim), 0, 0);
            check_cpu(argmin(x, d, keepdim), argmin(ref, d, keepdim), 0, 0);
          }
        }
      }
    }
    if (dt != ST::Bool && ref.numel() != 0) {
      check_cpu(argmax(x), argmax(ref), 0, 0);
      check_cpu(argmin(x), argmin(ref), 0, 0);
    }
  }
}

TEST_CASE("cpu reductions match the reference for every dtype, layout and dim list") {
  uint64_t seed = 100;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    // Values in [-4, 4]: integer products of 13 of them wrap i8/i16 results exactly as the
    // reference (both wrap modulo 2^bits) and f16 products stay finite.
    check_all_ops(random_tensor({5, 13}, dt, ++seed, kRefDevice),
                  {{}, {0}, {1}, {-1}, {0, 1}, {-2, -1}});
    check_all_ops(random_tensor({3, 4, 7}, dt, ++seed, kRefDevice),
                  {{}, {0}, {1}, {2}, {-1}, {0, 2}, {0, 1}, {1, 2}});
    check_all_ops(random_tensor({37}, dt, ++seed, kRefDevice), {{}, {0}, {-1}});
    check_all_ops(random_tensor({}, dt, ++seed, kRefDevice), {{}, {0}, {-1}});
  }
}

TEST_CASE("cpu reductions of empty tensors: sum 0, prod 1, all true, any false") {
  for (ST dt : {ST::Float32, ST::Int32, ST::Bool, ST::BFloat16}) {
    CAPTURE(dtype_name(dt));
    const Tensor ref = zeros({0, 3}, dt, kRefDevice);
    const Tensor x = on(ref, cpu_device());
    check_cpu(sum(x), sum(ref));
    check_cpu(sum(x, Dims{0}), sum(ref, Dims{0}));
    check_cpu(sum(x, Dims{1}, true), sum(ref, Dims{1}, true));
    check_cpu(prod(x, 0), prod(ref, 0));
    check_cpu(all(x, 0), all(ref, 0), 0, 0);
    check_cpu(any(x, 0), any(ref, 0), 0, 0);
    check_cpu(amax(x, Dims{1}), amax(ref, Dims{1}), 0, 0);  // 0 outputs: nothing to reduce
    // PyTorch: "amax(): Expected reduction dim 0 to have non-zero size".
    check_cpu_error([&] { amax(x, Dims{0}); }, ErrorCode::InvalidArgument, "size 0");
    check_cpu_error([&] { amin(x); }, ErrorCode::InvalidArgument, "size 0");
    if (dt != ST::Bool) {
      check_cpu_error([&] { argmax(x, 0); }, ErrorCode::InvalidArgument, "size 0");
      check_cpu_error([&] { argmin(x); }, ErrorCode::InvalidArgument, "empty");
    }
  }
}

TEST_CASE("cpu sum accumulates f16/bf16 in f32, integers and bool in int64") {
  // 4096 ones in f16: a sum in f16 would stop at 2048 (2048 + 1 rounds to 2048).
  const Tensor ones_ref = to(full({4096}, Scalar(1.0), ST::Float64, kRefDevice), ST::Float16);
  const Tensor s = sum(on(ones_ref, cpu_device()));
  CHECK(to_vector<double>(on(s, kRefDevice)) == std::vector<double>{4096});
  const Tensor big_ref = to(full({3}, Scalar(2147483647.0), ST::Float64, kRefDevice), ST::Int32);
  const Tensor si = sum(on(big_ref, cpu_device()));
  CHECK(si.dtype() == ST::Int64);
  CHECK(to_vector<int64_t>(on(si, kRefDevice)) == std::vector<int64_t>{3 * int64_t{2147483647}});
  // Integer products give int64 too, and wrap modulo 2^64 as the reference.
  const Tensor p_ref = random_tensor({40}, ST::Int64, 7, kRefDevice, 1e9, 4e9);
  check_cpu(prod(on(p_ref, cpu_device()), 0), prod(p_ref, 0), 0, 0);
  // With dtype=, the input is converted first: bool summed as i32, i32 summed as f64.
  const Tensor b_ref = random_tensor({6, 9}, ST::Bool, 8, kRefDevice);
  check_cpu(sum(on(b_ref, cpu_device()), Dims{1}, false, ST::Int32),
            sum(b_ref, Dims{1}, false, ST::Int32), 0, 0);
  check_cpu(sum(on(big_ref, cpu_device()), std::nullopt, false, ST::Float64),
            sum(big_ref, std::nullopt, false, ST::Float64), 0, 0);
}

TEST_CASE("cpu f32 sum of 1M elements stays within f32 tolerance of the double reference") {
  // Positive values, so no cancellation: a plain running f32 sum is off by ~1e-4 relative
  // here (its error grows with n); blocked pairwise summation keeps it near f32 rounding.
  const Tensor ref = random_tensor({1 << 20}, ST::Float32, 11, kRefDevice, 0.0, 1.0);
  const Tensor x = on(ref, cpu_device());
  check_cpu(sum(x), sum(ref), default_rtol(ST::Float32), 0.0);
  // The same elements as [1024, 1024] reduced over dim 0 (the outer-dim loop) and dim 1.
  const Tensor ref2 = ref.view({1024, 1024}), x2 = x.view({1024, 1024});
  check_cpu(sum(x2, Dims{0}), sum(ref2, Dims{0}), default_rtol(ST::Float32), 0.0);
  check_cpu(sum(x2, Dims{1}), sum(ref2, Dims{1}), default_rtol(ST::Float32), 0.0);
  // As f16: accumulated in f32 before the one rounding.
  const Tensor h_ref = to(ref, ST::Float16);
  check_cpu(sum(on(h_ref, cpu_device())), sum(h_ref));
}

TEST_CASE("cpu reductions above the threading grain match the reference") {
  for (ST dt : {ST::Float32, ST::Float64, ST::BFloat16, ST::Int32, ST::UInt8}) {
    CAPTURE(dtype_name(dt));
    // Many rows (threads over outputs), long rows in few outputs (threads within an output),
    // and outer-dim folds with a contiguous kept dim.
    const Tensor rows = random_tensor({64, 4099}, dt, 21, kRefDevice);
    const Tensor few = random_tensor({3, 70001}, dt, 22, kRefDevice);
    const Tensor tall = random_tensor({2051, 67}, dt, 23, kRefDevice);
    for (const Tensor& ref : {rows, few, tall}) {
      CAPTURE(shape_str(as_ref(ref.sizes())));
      for (CpuLayout layout : {CpuLayout::Contiguous, CpuLayout::Transposed}) {
        CAPTURE(std::string(layout_name(layout)));
        const Tensor x = cpu_copy(ref, layout);
        for (int64_t d : {0, 1}) {
          CAPTURE(d);
          check_cpu(sum(x, Dims{d}), sum(ref, Dims{d}), default_rtol(dt),
                    sum_atol(dt, ref.size(d)));
          check_cpu(amax(x, Dims{d}), amax(ref, Dims{d}), 0, 0);
          check_cpu(amin(x, Dims{d}, true), amin(ref, Dims{d}, true), 0, 0);
          check_cpu(argmax(x, d), argmax(ref, d), 0, 0);
          check_cpu(argmin(x, d, true), argmin(ref, d, true), 0, 0);
          check_cpu(any(x, d), any(ref, d), 0, 0);
          check_cpu(all(x, d), all(ref, d), 0, 0);
        }
        check_cpu(sum(x), sum(ref), default_rtol(dt), sum_atol(dt, ref.numel()));
        check_cpu(argmax(x), argmax(ref), 0, 0);
      }
    }
  }
}

// reduce_engine.hpp hands a sum over one contiguous dim whose kept dims merge into one run
// to the reducer's `rows` (one SIMD call per thread); these layouts take it and its edges.
TEST_CASE("cpu f32/f64 sums over the last dim: batched rows, sliced rows, unmerged kept dims") {
  for (ST dt : {ST::Float32, ST::Float64, ST::BFloat16}) {
    CAPTURE(dtype_name(dt));
    const Tensor ref = random_tensor({4, 6, 4100}, dt, 41, kRefDevice);
    const Tensor x = on(ref, cpu_device());
    // [4, 6] merge into 24 rows of 4100 (two pairwise blocks and a scalar tail).
    check_cpu(sum(x, Dims{-1}), sum(ref, Dims{-1}), default_rtol(dt), sum_atol(dt, 4100));
    check_cpu(sum(x, Dims{2}, true), sum(ref, Dims{2}, true), default_rtol(dt), sum_atol(dt, 4100));
    // Rows 4100 apart holding 1001 elements each: the row stride is not the row length.
    const Tensor part = x.narrow(2, 7, 1001), part_ref = ref.narrow(2, 7, 1001);
    check_cpu(sum(part, Dims{-1}), sum(part_ref, Dims{-1}), default_rtol(dt), sum_atol(dt, 1001));
    // Kept dims that do not merge (a permuted view): the per-output loop instead.
    const Tensor perm = x.permute({1, 0, 2}), perm_ref = ref.permute({1, 0, 2});
    check_cpu(sum(perm, Dims{-1}), sum(perm_ref, Dims{-1}), default_rtol(dt), sum_atol(dt, 4100));
    // One row only (no kept dim), and rows of one element.
    check_cpu(sum(x.select(0, 1).select(0, 2), Dims{0}),
              sum(ref.select(0, 1).select(0, 2), Dims{0}), default_rtol(dt), sum_atol(dt, 4100));
    check_cpu(sum(x.narrow(2, 0, 1), Dims{-1}), sum(ref.narrow(2, 0, 1), Dims{-1}));
  }
  // Long rows keep the pairwise accuracy through the batched path: 8 rows of 2^17 values in
  // [0, 1] (no cancellation), each within f32's rtol of the double reference.
  const Tensor ref = random_tensor({8, 1 << 17}, ST::Float32, 42, kRefDevice, 0.0, 1.0);
  check_cpu(sum(on(ref, cpu_device()), Dims{1}), sum(ref, Dims{1}), default_rtol(ST::Float32), 0.0);
}

// [x0, ..., x(n-1)] as f32 on the reference device.
Tensor f32_values(const std::vector<double>& v, Dims shape) {
  return to(from_vector(v, shape, kRefDevice), ST::Float32);
}

TEST_CASE("cpu amax/amin propagate NaN; argmax/argmin pick the first extreme, NaN first") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Literal results from PyTorch 1.13:
  //   torch.tensor([1., 3., 3., nan, 3., nan]).argmax() -> 3, .amax() -> nan
  //   torch.tensor([2., 5., 5., -inf, 5.]).argmax() -> 1, .argmin() -> 3
  {
    const Tensor x = on(f32_values({1, 3, 3, nan, 3, nan}, {6}), cpu_device());
    CHECK(to_vector<int64_t>(on(argmax(x), kRefDevice)) == std::vector<int64_t>{3});
    CHECK(to_vector<int64_t>(on(argmin(x), kRefDevice)) == std::vector<int64_t>{3});
    CHECK(std::isnan(to_vector<double>(on(amax(x), kRefDevice))[0]));
    CHECK(std::isnan(to_vector<double>(on(amin(x), kRefDevice))[0]));
  }
  {
    const Tensor x = on(f32_values({2, 5, 5, -inf, 5}, {5}), cpu_device());
    CHECK(to_vector<int64_t>(on(argmax(x), kRefDevice)) == std::vector<int64_t>{1});
    CHECK(to_vector<int64_t>(on(argmin(x), kRefDevice)) == std::vector<int64_t>{3});
    CHECK(to_vector<double>(on(amin(x), kRefDevice)) == std::vector<double>{-inf});
  }
  // Long rows (the SIMD loops and their scalar tails) with NaN, +-Inf and ties placed in the
  // vector body, in the tail, and not at all; every dtype with NaN.
  for (ST dt : {ST::Float32, ST::Float64, ST::Float16, ST::BFloat16}) {
    CAPTURE(dtype_name(dt));
    std::vector<double> v(8 * 203);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>((i * 37) % 11) - 5.0;
    v[0 * 203 + 100] = nan;  // row 0: NaN in the body
    v[1 * 203 + 202] = nan;  // row 1: NaN in the tail
    v[2 * 203 + 7] = inf;    // row 2: +Inf, and -Inf later
    v[2 * 203 + 150] = -inf;
    v[3 * 203 + 5] = 9;  // row 3: ties of the max
    v[3 * 203 + 190] = 9;
    v[4 * 203 + 3] = nan;  // row 4: two NaNs and an Inf
    v[4 * 203 + 60] = nan;
    v[4 * 203 + 61] = inf;
    const Tensor ref = to(from_vector(v, {8, 203}, kRefDevice), dt);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor x = cpu_copy(ref, layout);
      for (int64_t d : {0, 1}) {
        CAPTURE(d);
        INFO("amax");
        check_cpu(amax(x, Dims{d}), amax(ref, Dims{d}), 0, 0);
        INFO("amin");
        check_cpu(amin(x, Dims{d}), amin(ref, Dims{d}), 0, 0);
        INFO("argmax");
        check_cpu(argmax(x, d), argmax(ref, d), 0, 0);
        check_cpu(argmin(x, d), argmin(ref, d), 0, 0);
        check_cpu(sum(x, Dims{d}), sum(ref, Dims{d}), default_rtol(dt), sum_atol(dt, 203));
        check_cpu(any(x, d), any(ref, d), 0, 0);
        check_cpu(all(x, d), all(ref, d), 0, 0);
      }
      check_cpu(argmax(x), argmax(ref), 0, 0);
      check_cpu(amax(x), amax(ref), 0, 0);
    }
  }
}

TEST_CASE("cpu sum writes a strided out tensor and reads broadcast views") {
  const Tensor ref = random_tensor({5, 6}, ST::Float32, 31, kRefDevice);
  Tensor base = on(zeros({5, 2}, ST::Float32, kRefDevice), cpu_device());
  Tensor column = base.select(1, 1);  // stride 2, offset 1
  sum_out(column, on(ref, cpu_device()), Dims{1});
  Tensor want = zeros({5, 2}, ST::Float32, kRefDevice);
  Tensor want_col = want.select(1, 1);
  sum_out(want_col, ref, Dims{1});
  check_cpu(base, want);
  const Tensor row_ref = random_tensor({7}, ST::Float64, 32, kRefDevice);
  const Tensor row = on(row_ref, cpu_device());
  check_cpu(sum(row.expand({4, 7}), Dims{0}), sum(row_ref.expand({4, 7}), Dims{0}));
  check_cpu(amax(row.expand({4, 7}), Dims{1}), amax(row_ref.expand({4, 7}), Dims{1}), 0, 0);
}

}  // namespace
}  // namespace bp::test
