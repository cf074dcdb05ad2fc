// Tests for plugins/cpu/nn.cpp, the fused softmax, log_softmax, layer_norm and rms_norm
// kernels: on cpu:0 they replace the composites' decompositions, so each result is compared
// with the composite computed on the reference backend (its primitives in double) for
// f32/f64/f16/bf16, every dim, transposed and offset inputs, 0-d and empty tensors, rows
// long enough for threads, NaN/+-Inf rows, optional weight/bias and eps.
#include "cpu_checks.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace bp::test {
namespace {

using ST = ScalarType;
constexpr ST kFloatDtypes[] = {ST::Float32, ST::Float64, ST::Float16, ST::BFloat16};

// The fused kernels compute in f32 (f64 for f64) in another order than the composite
// (which rounds each primitive's result to the compute dtype too): a few roundings of the
// compute dtype on values of magnitude ~1, so rtol/atol of a few eps (f32: 1e-5 is ~84
// eps); f16/bf16 results round once from f32 as the composite's, within their default rtol.
double nn_rtol(ST dt) {
  return dt == ST::Float32 ? 1e-5 : dt == ST::Float64 ? 1e-12 : default_rtol(dt);
}
double nn_atol(ST dt) {
  return dt == ST::Float64 ? 1e-12 : 1e-5;
}

TEST_CASE("cpu fused softmax and log_softmax match the composite on the reference") {
  uint64_t seed = 900;
  for (ST dt : kFloatDtypes) {
    CAPTURE(dtype_name(dt));
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{}, {7}, {5, 13}, {3, 4, 6}, {0, 5}}) {
      const Tensor ref = random_tensor(shape, dt, ++seed, kRefDevice);
      for (CpuLayout layout : kCpuLayouts) {
        CAPTURE(std::string(layout_name(layout)));
        const Tensor x = cpu_copy(ref, layout);
        for (int64_t dim = -1; dim < std::max<int64_t>(ref.dim(), 1); ++dim) {
          CAPTURE(dim);
          check_cpu(softmax(x, dim), softmax(ref, dim), nn_rtol(dt), nn_atol(dt));
          check_cpu(log_softmax(x, dim), log_softmax(ref, dim), nn_rtol(dt), nn_atol(dt));
        }
      }
    }
  }
  // dtype= converts first (f32 input, f64 result).
  const Tensor r32 = random_tensor({4, 9}, ST::Float32, 950, kRefDevice);
  check_cpu(softmax(on(r32, cpu_device()), 1, ST::Float64), softmax(r32, 1, ST::Float64),
            nn_rtol(ST::Float64), nn_atol(ST::Float64));
}

TEST_CASE("cpu fused softmax of long rows and of NaN/Inf rows") {
  const Tensor big = random_tensor({96, 4096}, ST::Float32, 960, kRefDevice, -20.0, 20.0);
  check_cpu(softmax(on(big, cpu_device()), -1), softmax(big, -1), 1e-5, 1e-7);
  check_cpu(log_softmax(on(big, cpu_device()), 0), log_softmax(big, 0), 1e-5, 1e-5);
  // Contiguous f32 rows over several threads' chunks (the direct path), and in place: the
  // output is the input, which that path must not read after writing.
  check_cpu(log_softmax(on(big, cpu_device()), -1), log_softmax(big, -1), 1e-5, 1e-5);
  for (bool log : {false, true}) {
    CAPTURE(log);
    Tensor x = on(big, cpu_device());
    if (log)
      log_softmax_out(x, x, -1);
    else
      softmax_out(x, x, -1);
    check_cpu(x, log ? log_softmax(big, -1) : softmax(big, -1), 1e-5, 1e-5);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  // Rows: a NaN; +inf; all -inf; one -inf among finite values; large values.
  const std::vector<double> v = {1,    nan,  2, 3,    1, inf, 2,    3,   -inf,  -inf,
                                 -inf, -inf, 1, -inf, 2, 3,   1000, 999, -1000, 0};
  for (ST dt : kFloatDtypes) {
    CAPTURE(dtype_name(dt));
    const Tensor ref = to(from_vector(v, {5, 4}, kRefDevice), dt);
    const Tensor x = on(ref, cpu_device());
    check_cpu(softmax(x, 1), softmax(ref, 1), nn_rtol(dt), nn_atol(dt));
    check_cpu(log_softmax(x, 1), log_softmax(ref, 1), nn_rtol(dt), nn_atol(dt));
  }
}

TEST_CASE("cpu fused layer_norm and rms_norm match the composite on the reference") {
  uint64_t seed = 1000;
  for (ST dt : kFloatDtypes) {
    CAPTURE(dtype_name(dt));
    const Tensor ref = random_tensor({3, 4, 6}, dt, ++seed, kRefDevice);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor x = cpu_copy(ref, layout);
      for (const std::vector<int64_t>& norm :
           std::vector<std::vector<int64_t>>{{6}, {4, 6}, {3, 4, 6}}) {
        CAPTURE(norm.size());
        const Tensor w = random_tensor(norm, dt, ++seed, kRefDevice);
        const Tensor b = random_tensor(norm, dt, ++seed, kRefDevice);
        const Tensor cw = cpu_copy(w, layout), cb = cpu_copy(b, CpuLayout::Offset);
        check_cpu(layer_norm(x, norm), layer_norm(ref, norm), nn_rtol(dt), nn_atol(dt));
        check_cpu(layer_norm(x, norm, cw, cb, 1e-3), layer_norm(ref, norm, w, b, 1e-3), nn_rtol(dt),
                  nn_atol(dt));
        check_cpu(layer_norm(x, norm, std::nullopt, cb), layer_norm(ref, norm, std::nullopt, b),
                  nn_rtol(dt), nn_atol(dt));
        check_cpu(rms_norm(x, norm), rms_norm(ref, norm), nn_rtol(dt), nn_atol(dt));
        check_cpu(rms_norm(x, norm, cw, 0.5), rms_norm(ref, norm, w, 0.5), nn_rtol(dt),
                  nn_atol(dt));
      }
    }
    // Empty input, and constant rows (variance 0: the result is 0 * rsqrt(eps)).
    const Tensor e = zeros({0, 6}, dt, kRefDevice);
    check_cpu(layer_norm(on(e, cpu_device()), {6}), layer_norm(e, {6}), 0, 0);
    check_cpu(rms_norm(on(e, cpu_device()), {6}), rms_norm(e, {6}), 0, 0);
    const Tensor k = to(full({2, 5}, Scalar(3.0), ST::Float64, kRefDevice), dt);
    check_cpu(layer_norm(on(k, cpu_device()), {5}), layer_norm(k, {5}), nn_rtol(dt), nn_atol(dt));
  }
  const Tensor big = random_tensor({64, 4096}, ST::Float32, 1090, kRefDevice);
  const Tensor w = random_tensor({4096}, ST::Float32, 1091, kRefDevice);
  check_cpu(layer_norm(on(big, cpu_device()), {4096}, on(w, cpu_device())),
            layer_norm(big, {4096}, w), 1e-5, 1e-5);
  check_cpu(rms_norm(on(big, cpu_device()), {4096}, on(w, cpu_device())), rms_norm(big, {4096}, w),
            1e-5, 1e-5);
}

}  // namespace
}  // namespace bp::test
