// Tests for plugins/cpu/nonzero.cpp and the composites over it: nonzero_static, nonzero,
// masked_select, one_hot, index.Tensor and index_put on cpu:0 give the reference's values
// for every dtype and layout, and over many blocks (threaded: the blocks' first rows come
// from their counts, whatever thread counted them).
#include "cpu_checks.hpp"

#include <cstdint>
#include <string>

namespace bp::test {
namespace {

using ST = ScalarType;

// A tensor of `shape` with about a third of its elements zero (and the rest random).
Tensor sparse_tensor(IntArrayRef shape, ScalarType dtype, uint64_t seed) {
  const Tensor keep =
      lt(random_tensor(shape, ST::Float32, seed, kRefDevice, 0.0, 1.0), Scalar(0.67));
  const Tensor values = random_tensor(shape, dtype, seed + 1, kRefDevice, -3.0, 3.0);
  return where(keep, values, zeros({}, dtype, kRefDevice));
}

TEST_CASE("cpu nonzero, nonzero_static and masked_select match the reference for every dtype") {
  uint64_t seed = 3000;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor x = sparse_tensor(Shape{7, 9}, dt, seed += 2);
    const Tensor mask = ne(sparse_tensor(Shape{9}, ST::Float32, seed += 2), Scalar(0));
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor cpu_x = cpu_copy(x, layout);
      check_cpu(nonzero(cpu_x), nonzero(x), 0, 0);
      check_cpu(nonzero_static(cpu_x, 70, -5), nonzero_static(x, 70, -5), 0, 0);
      check_cpu(nonzero_static(cpu_x, 3), nonzero_static(x, 3), 0, 0);
      check_cpu(masked_select(cpu_x, on(mask, cpu_device())), masked_select(x, mask), 0, 0);
    }
  }
}

TEST_CASE("cpu nonzero over many blocks (threaded) equals the reference") {
  const Tensor x = sparse_tensor(Shape{37, 3001}, ST::Float32, 3100);  // 27 blocks of 4096
  check_cpu(nonzero(on(x, cpu_device())), nonzero(x), 0, 0);
  check_cpu(nonzero_static(on(x, cpu_device()), 50000), nonzero_static(x, 50000), 0, 0);
}

TEST_CASE("cpu index, index_put and one_hot match the reference") {
  const Tensor self = random_tensor({5, 6, 7}, ST::Float32, 3200, kRefDevice);
  const Tensor rows =
      to(floor(random_tensor({4, 3}, ST::Float64, 3201, kRefDevice, -5.0, 5.0)), ST::Int64);
  const Tensor cols =
      to(floor(random_tensor({3}, ST::Float64, 3202, kRefDevice, 0.0, 7.0)), ST::Int64);
  const Tensor mask = ne(sparse_tensor(Shape{6}, ST::Float32, 3203), Scalar(0));
  const Device cpu = cpu_device();
  for (const std::vector<Tensor>& indices :
       {std::vector<Tensor>{rows}, std::vector<Tensor>{Tensor(), mask},
        std::vector<Tensor>{rows, Tensor(), cols}}) {
    const Tensor picked = index(self, indices);
    std::vector<Tensor> cpu_indices;
    for (const Tensor& t : indices) cpu_indices.push_back(t.defined() ? on(t, cpu) : t);
    check_cpu(index(on(self, cpu), cpu_indices), picked, 0, 0);
    const Tensor values = random_tensor(picked.sizes(), ST::Float32, 3204, kRefDevice);
    for (bool accumulate : {false, true})
      check_cpu(index_put(on(self, cpu), cpu_indices, on(values, cpu), accumulate),
                index_put(self, indices, values, accumulate), 0, 0);
  }
  const Tensor classes =
      to(floor(random_tensor({4, 5}, ST::Float64, 3205, kRefDevice, 0.0, 6.0)), ST::Int64);
  check_cpu(one_hot(on(classes, cpu)), one_hot(classes), 0, 0);
}

}  // namespace
}  // namespace bp::test
