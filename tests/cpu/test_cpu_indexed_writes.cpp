// Tests for plugins/cpu/indexed_writes.cpp: index_add on cpu:0 against the reference backend,
// bit for bit (both add in the index's order with one rounding per add), for every dtype,
// layout and dim, with alpha, repeated and empty indices, sizes past the threading grain,
// and the rounding order PyTorch's CPU kernel defines (f16).
#include "cpu_checks.hpp"

#include <cstdint>
#include <vector>

namespace bp::test {
namespace {

using ST = ScalarType;

// `count` indices in [0, size), repeating.
Tensor repeated_rows(int64_t count, int64_t size, uint64_t seed, ST dtype = ST::Int64) {
  return random_tensor({count}, dtype, seed, kRefDevice, 0.0, static_cast<double>(size - 1));
}

Scalar alpha_for(ST dt) {
  if (dt == ST::Bool) return true;
  return is_floating(dt) ? Scalar(-1.5) : Scalar(3);
}

TEST_CASE("cpu index_add matches the reference for every dtype, layout and dim") {
  uint64_t seed = 700;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor self = random_tensor({4, 5, 6}, dt, ++seed, kRefDevice);
    for (int64_t dim : {0, 1, 2, -1}) {
      CAPTURE(dim);
      const int64_t d = dim < 0 ? dim + 3 : dim;
      const Tensor idx = repeated_rows(9, self.size(d), ++seed, dim == 1 ? ST::Int32 : ST::Int64);
      Shape source_shape = self.sizes();
      source_shape[static_cast<size_t>(d)] = 9;
      const Tensor source = random_tensor(as_ref(source_shape), dt, ++seed, kRefDevice);
      const Tensor want = index_add(self, dim, idx, source, alpha_for(dt));
      for (CpuLayout layout : kCpuLayouts) {
        CAPTURE(std::string(layout_name(layout)));
        check_cpu(index_add(cpu_copy(self, layout), dim, on(idx, cpu_device()),
                            cpu_copy(source, layout), alpha_for(dt)),
                  want, 0, 0);
      }
    }
    const Tensor empty_idx = zeros({0}, ST::Int64, kRefDevice);
    const Tensor empty_source = zeros({4, 0, 6}, dt, kRefDevice);
    check_cpu(index_add(on(self, cpu_device()), 1, on(empty_idx, cpu_device()),
                        on(empty_source, cpu_device())),
              self, 0, 0);
  }
}

TEST_CASE("cpu index_add of an embedding-sized gradient (threaded) equals the reference") {
  for (ST dt : {ST::Float32, ST::BFloat16}) {
    const Tensor grad = random_tensor({4096, 300}, dt, 720, kRefDevice);
    const Tensor idx = repeated_rows(4096, 1031, 721);
    const Tensor zero = zeros({1031, 300}, dt, kRefDevice);
    check_cpu(index_add(on(zero, cpu_device()), 0, on(idx, cpu_device()), on(grad, cpu_device())),
              index_add(zero, 0, idx, grad), 0, 0);
  }
}

TEST_CASE("cpu index_add rounds once per add, in the order of the index (f16)") {
  // 2048 + 1 rounds back to 2048 at each step, as PyTorch; the exact sum 2052 is an f16.
  const Tensor self = to(zeros({1, 2}, ST::Float32, cpu_device()), ST::Float16);
  const std::vector<double> rows{2048, 2048, 1, 1, 1, 1, 1, 1, 1, 1};
  const Tensor source = to(to(from_vector(rows, {5, 2}, kRefDevice), cpu_device()), ST::Float16);
  const Tensor idx = to(zeros({5}, ST::Int64, kRefDevice), cpu_device());
  const std::vector<double> got =
      to_vector<double>(on(index_add(self, 0, idx, source), kRefDevice));
  CHECK(got == std::vector<double>{2048, 2048});
}

TEST_CASE("cpu index_add reports an out-of-range index") {
  const Tensor self = zeros({3, 4}, ST::Float32, cpu_device());
  const Tensor idx = to(from_vector(std::vector<double>{0, 3}, {2}, kRefDevice), ST::Int64);
  Tensor out = zeros({3, 4}, ST::Float32, cpu_device());
  check_cpu_error(
      [&] {
        index_add_out(out, self, 0, on(idx, cpu_device()),
                      zeros({2, 4}, ST::Float32, cpu_device()));
      },
      ErrorCode::Index, "index_add: index 3 is out of range for dimension 0 with size 3");
}

}  // namespace
}  // namespace bp::test
