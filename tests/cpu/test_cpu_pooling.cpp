// Tests for plugins/cpu/pooling.cpp: the pooling ops and their gradients on cpu:0 equal the
// reference bit for bit (the same SDK loops, each result element on one thread), for every
// floating dtype and layout, past the threading grain.
#include "cpu_checks.hpp"

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

constexpr ST kFloating[] = {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64};

TEST_CASE("cpu pooling and its gradients equal the reference for every dtype and layout") {
  uint64_t seed = 1000;
  for (ST dt : kFloating) {
    CAPTURE(dtype_name(dt));
    const Tensor x = random_tensor({2, 3, 9, 8}, dt, ++seed, kRefDevice);
    const std::vector<Tensor> ref = max_pool2d_with_indices(x, {3, 2}, {2, 1}, {1}, {1, 2}, true);
    const Tensor g = random_tensor(as_ref(ref[0].sizes()), dt, ++seed, kRefDevice);
    const Tensor avg_ref = avg_pool2d(x, {3}, {2}, {1}, true, false);
    const Tensor ga = random_tensor(as_ref(avg_ref.sizes()), dt, ++seed, kRefDevice);
    const Tensor ad_ref = _adaptive_avg_pool2d(x, {4, 5});
    const Tensor gd = random_tensor(as_ref(ad_ref.sizes()), dt, ++seed, kRefDevice);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor xc = cpu_copy(x, layout);
      const std::vector<Tensor> cpu =
          max_pool2d_with_indices(xc, {3, 2}, {2, 1}, {1}, {1, 2}, true);
      check_cpu(cpu[0], ref[0], 0, 0);
      check_cpu(cpu[1], ref[1], 0, 0);
      check_cpu(max_pool2d_with_indices_backward(cpu_copy(g, layout), xc, {3, 2}, {2, 1}, {1},
                                                 {1, 2}, true, cpu[1]),
                max_pool2d_with_indices_backward(g, x, {3, 2}, {2, 1}, {1}, {1, 2}, true, ref[1]),
                0, 0);
      check_cpu(avg_pool2d(xc, {3}, {2}, {1}, true, false), avg_ref, 0, 0);
      check_cpu(
          avg_pool2d_backward(cpu_copy(ga, layout), xc, {3}, {2}, {1}, true, false, std::nullopt),
          avg_pool2d_backward(ga, x, {3}, {2}, {1}, true, false, std::nullopt), 0, 0);
      check_cpu(_adaptive_avg_pool2d(xc, {4, 5}), ad_ref, 0, 0);
      check_cpu(_adaptive_avg_pool2d_backward(cpu_copy(gd, layout), xc),
                _adaptive_avg_pool2d_backward(gd, x), 0, 0);
    }
  }
}

TEST_CASE("cpu max pooling of resnet18's stem (threaded) equals the reference") {
  const Tensor x = random_tensor({2, 64, 56, 56}, ST::Float32, 1100, kRefDevice);
  const std::vector<Tensor> ref = max_pool2d_with_indices(x, {3}, {2}, {1});
  const std::vector<Tensor> cpu = max_pool2d_with_indices(on(x, cpu_device()), {3}, {2}, {1});
  check_cpu(cpu[0], ref[0], 0, 0);
  check_cpu(cpu[1], ref[1], 0, 0);
  const Tensor g = random_tensor(as_ref(ref[0].sizes()), ST::Float32, 1101, kRefDevice);
  check_cpu(max_pool2d_with_indices_backward(on(g, cpu_device()), on(x, cpu_device()), {3}, {2},
                                             {1}, {1}, false, cpu[1]),
            max_pool2d_with_indices_backward(g, x, {3}, {2}, {1}, {1}, false, ref[1]), 0, 0);
}

}  // namespace
}  // namespace bp::test
