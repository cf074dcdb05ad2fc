// Tests for plugins/cpu/scans.cpp: cumsum and cumprod on cpu:0 against the reference backend,
// bit for bit for every dtype but f16/bf16 (both accumulate f32/f64 in f64 and integers in 64
// bits, in the line's order), for every layout and dim, and past the threading grain.
#include "cpu_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

// f16/bf16 accumulate in f32 on the CPU and in f64 on the reference: an ulp apart at most
// per output of these short lines.
double scan_rtol(ST dt) {
  return dt == ST::Float16 || dt == ST::BFloat16 ? default_rtol(dt) : 0.0;
}

TEST_CASE("cpu cumsum and cumprod match the reference for every dtype, layout and dim") {
  uint64_t seed = 800;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor x = random_tensor({4, 5, 6}, dt, ++seed, kRefDevice, -2.0, 2.0);
    for (int64_t dim : {0, 1, 2, -1}) {
      CAPTURE(dim);
      for (CpuLayout layout : kCpuLayouts) {
        CAPTURE(std::string(layout_name(layout)));
        check_cpu(cumsum(cpu_copy(x, layout), dim), cumsum(x, dim), scan_rtol(dt), 0);
        check_cpu(cumprod(cpu_copy(x, layout), dim), cumprod(x, dim), scan_rtol(dt), 0);
      }
    }
  }
}

TEST_CASE("cpu cumsum of many lines (threaded) equals the reference") {
  const Tensor x = random_tensor({2048, 67}, ST::Float32, 820, kRefDevice);
  check_cpu(cumsum(on(x, cpu_device()), 0), cumsum(x, 0), 0, 0);
  check_cpu(cumsum(on(x, cpu_device()), 1), cumsum(x, 1), 0, 0);
}

}  // namespace
}  // namespace bp::test
