// Tests for plugins/cpu/scatter.cpp: scatter.src and scatter_reduce.two on cpu:0 give the
// reference's bits for every dtype, reduction and layout, with repeated indices, on one
// thread and over many lines (threaded).
#include "cpu_checks.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bp::test {
namespace {

using ST = ScalarType;

// An i64 index of `shape` with values in [0, hi), on the reference device.
Tensor index_of(IntArrayRef shape, int64_t hi, uint64_t seed) {
  const Tensor r =
      random_tensor(shape, ST::Float64, seed, kRefDevice, 0.0, static_cast<double>(hi));
  return to(floor(r), ST::Int64);
}

TEST_CASE("cpu scatter and scatter_reduce match the reference for every dtype and reduction") {
  uint64_t seed = 1000;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor self = random_tensor({6, 9}, dt, ++seed, kRefDevice, -3.0, 3.0);
    const Tensor src = random_tensor({6, 12}, dt, ++seed, kRefDevice, -3.0, 3.0);
    const Tensor index = index_of({6, 12}, 9, ++seed);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor cpu_self = cpu_copy(self, layout), cpu_src = cpu_copy(src, layout);
      const Tensor cpu_index = cpu_copy(index, layout);
      check_cpu(scatter(cpu_self, 1, cpu_index, cpu_src), scatter(self, 1, index, src), 0, 0);
      for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
        if (dt == ST::Bool && std::string(reduce) == "mean") continue;
        for (bool include_self : {true, false}) {
          CAPTURE(reduce);
          CAPTURE(include_self);
          check_cpu(scatter_reduce(cpu_self, 1, cpu_index, cpu_src, reduce, include_self),
                    scatter_reduce(self, 1, index, src, reduce, include_self), 0, 0);
        }
      }
    }
  }
}

TEST_CASE("cpu scatter_add of many lines (threaded) equals the reference") {
  const Tensor self = random_tensor({2048, 67}, ST::Float32, 1100, kRefDevice);
  const Tensor src = random_tensor({2048, 80}, ST::Float32, 1101, kRefDevice);
  const Tensor index = index_of({2048, 80}, 67, 1102);
  check_cpu(scatter_add(on(self, cpu_device()), 1, on(index, cpu_device()), on(src, cpu_device())),
            scatter_add(self, 1, index, src), 0, 0);
}

TEST_CASE("cpu scatter reports the first bad index in row-major order, as the reference") {
  // 16384 lines of 8 (past the threading grain, so split among threads): bad values in an
  // early and a late line; both backends name the early one.
  const Tensor self = random_tensor({16384, 8}, ST::Float32, 1200, kRefDevice);
  std::vector<double> rows(16384 * 8, 1.0);
  rows[8 * 3] = 100;      // line 3
  rows[8 * 16000] = 200;  // line 16000
  const Tensor index = to(from_data(rows.data(), ST::Float64, {16384, 8}, kRefDevice), ST::Int64);
  const Tensor src = random_tensor({16384, 8}, ST::Float32, 1201, kRefDevice);
  check_cpu_error([&] { scatter(self, 1, index, src); }, ErrorCode::Index, "100");
  check_cpu_error(
      [&] { scatter(on(self, cpu_device()), 1, on(index, cpu_device()), on(src, cpu_device())); },
      ErrorCode::Index, "100");
}

}  // namespace
}  // namespace bp::test
