// Tests for plugins/cpu/sort.cpp: sort.stable on cpu:0 gives the reference's values and
// indices for every dtype, layout, dim and direction, with ties and special values, on one
// thread and over many lines (threaded).
#include "cpu_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

TEST_CASE("cpu sort matches the reference for every dtype, layout, dim and direction") {
  uint64_t seed = 900;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    // [-2, 2]: integer dtypes get many ties, floating ones a few.
    const Tensor x = random_tensor({4, 5, 6}, dt, ++seed, kRefDevice, -2.0, 2.0);
    for (int64_t dim : {0, 1, 2}) {
      CAPTURE(dim);
      for (bool descending : {false, true}) {
        const std::vector<Tensor> want = sort(x, dim, descending);
        for (CpuLayout layout : kCpuLayouts) {
          CAPTURE(std::string(layout_name(layout)));
          const std::vector<Tensor> got = sort(cpu_copy(x, layout), dim, descending);
          check_cpu(got[0], want[0], 0, 0);
          check_cpu(got[1], want[1], 0, 0);
        }
      }
    }
  }
}

TEST_CASE("cpu sort and topk of many lines (threaded) equal the reference's") {
  const Tensor x = random_tensor({2048, 67}, ST::Float32, 920, kRefDevice);
  const std::vector<Tensor> want = sort(x, 1, true);
  const std::vector<Tensor> got = sort(on(x, cpu_device()), 1, true);
  check_cpu(got[0], want[0], 0, 0);
  check_cpu(got[1], want[1], 0, 0);
  const std::vector<Tensor> top = topk(on(x, cpu_device()), 5, 0);
  const std::vector<Tensor> top_want = topk(x, 5, 0);
  check_cpu(top[0], top_want[0], 0, 0);
  check_cpu(top[1], top_want[1], 0, 0);
}

}  // namespace
}  // namespace bp::test
