// Tests for plugins/cpu/data_movement_index.cpp: cat, index_select and gather on cpu:0 against the
// reference backend, for every dtype and layout, along every dim (negative dims included),
// with empty inputs and indices, i32 and strided indices, sizes above the threading grain,
// and out-of-range indices (BP_ERR_INDEX naming the op, value, dim and size).
#include "cpu_checks.hpp"

#include <cstdint>
#include <vector>

namespace bp::test {
namespace {

using ST = ScalarType;

// An index tensor of `dtype` on the reference device.
Tensor index_tensor(const std::vector<double>& values, IntArrayRef shape, ST dtype = ST::Int64) {
  return to(from_vector(values, shape, kRefDevice), dtype);
}

TEST_CASE("cpu cat matches the reference for every dtype, layout and dim") {
  uint64_t seed = 200;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor a = random_tensor({3, 4, 5}, dt, ++seed, kRefDevice);
    const Tensor b = random_tensor({3, 4, 5}, dt, ++seed, kRefDevice);
    for (CpuLayout la : kCpuLayouts) {
      for (CpuLayout lb : kCpuLayouts) {
        CAPTURE(std::string(layout_name(la)));
        CAPTURE(std::string(layout_name(lb)));
        const Tensor ca = cpu_copy(a, la), cb = cpu_copy(b, lb);
        for (int64_t dim : {0, 1, 2, -1}) {
          CAPTURE(dim);
          check_cpu(cat({ca, cb, ca}, dim), cat({a, b, a}, dim), 0, 0);
        }
      }
    }
    // Different sizes along the dim, an empty part, and a 1-D list.
    const Tensor c = random_tensor({3, 2, 5}, dt, ++seed, kRefDevice);
    const Tensor e = zeros({3, 0, 5}, dt, kRefDevice);
    check_cpu(cat({cpu_copy(a, CpuLayout::Offset), cpu_copy(e, CpuLayout::Contiguous),
                   cpu_copy(c, CpuLayout::Transposed)},
                  1),
              cat({a, e, c}, 1), 0, 0);
    const Tensor v = random_tensor({7}, dt, ++seed, kRefDevice);
    check_cpu(cat({cpu_copy(v, CpuLayout::Offset), cpu_copy(v, CpuLayout::Contiguous)}),
              cat({v, v}), 0, 0);
  }
}

TEST_CASE("cpu cat of large blocks (threaded copies)") {
  const Tensor a = random_tensor({300, 700}, ST::Float32, 210, kRefDevice);
  const Tensor b = random_tensor({300, 500}, ST::Float32, 211, kRefDevice);
  check_cpu(cat({cpu_copy(a, CpuLayout::Transposed), cpu_copy(b, CpuLayout::Contiguous)}, 1),
            cat({a, b}, 1), 0, 0);
  check_cpu(cat({cpu_copy(a.t(), CpuLayout::Contiguous), cpu_copy(b.t(), CpuLayout::Offset)}, 0),
            cat({a.t(), b.t()}, 0), 0, 0);
}

TEST_CASE("cpu index_select matches the reference for every dtype, layout, dim and index") {
  uint64_t seed = 300;
  const Tensor idx64 = index_tensor({3, 0, 3, 1, 2}, {5});
  const Tensor idx32 = index_tensor({1, 1, 0}, {3}, ST::Int32);
  const Tensor idx0d = index_tensor({2}, {});
  const Tensor idx_empty = zeros({0}, ST::Int64, kRefDevice);
  // Stride 2: [3, 1, 0] from [3, 9, 1, 9, 0].
  const Tensor idx_step_ref = index_tensor({3, 9, 1, 9, 0}, {5}).slice(0, 0, std::nullopt, 2);
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor self = random_tensor({4, 5, 6}, dt, ++seed, kRefDevice);
    for (CpuLayout layout : kCpuLayouts) {
      CAPTURE(std::string(layout_name(layout)));
      const Tensor x = cpu_copy(self, layout);
      for (int64_t dim : {0, 1, 2, -1, -3}) {
        CAPTURE(dim);
        for (const Tensor& idx : {idx64, idx32, idx0d, idx_empty}) {
          check_cpu(index_select(x, dim, on(idx, cpu_device())), index_select(self, dim, idx), 0,
                    0);
        }
        const Tensor step = on(contiguous(index_tensor({3, 9, 1, 9, 0}, {5})), cpu_device())
                                .slice(0, 0, std::nullopt, 2);
        check_cpu(index_select(x, dim, step), index_select(self, dim, idx_step_ref), 0, 0);
      }
    }
    // 1-D and 0-d self.
    const Tensor v = random_tensor({9}, dt, ++seed, kRefDevice);
    check_cpu(index_select(on(v, cpu_device()), 0, on(idx64, cpu_device())),
              index_select(v, 0, idx64), 0, 0);
    const Tensor s = random_tensor({}, dt, ++seed, kRefDevice);
    const Tensor zero = index_tensor({0}, {1});
    check_cpu(index_select(on(s, cpu_device()), 0, on(zero, cpu_device())),
              index_select(s, 0, zero), 0, 0);
  }
}

TEST_CASE("cpu index_select of many rows and columns (threaded)") {
  const Tensor table = random_tensor({1000, 256}, ST::Float32, 310, kRefDevice);
  std::vector<double> picks(4096);
  for (size_t i = 0; i < picks.size(); ++i) picks[i] = static_cast<double>((i * 7919) % 1000);
  const Tensor rows = index_tensor(picks, {4096});
  check_cpu(index_select(on(table, cpu_device()), 0, on(rows, cpu_device())),
            index_select(table, 0, rows), 0, 0);
  std::vector<double> cols(300);
  for (size_t i = 0; i < cols.size(); ++i) cols[i] = static_cast<double>((i * 31) % 256);
  const Tensor col_idx = index_tensor(cols, {300}, ST::Int32);
  check_cpu(index_select(cpu_copy(table, CpuLayout::Transposed), 1, on(col_idx, cpu_device())),
            index_select(table, 1, col_idx), 0, 0);
}

TEST_CASE("cpu gather matches the reference for every dtype, layout and dim") {
  uint64_t seed = 400;
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    const Tensor self = random_tensor({4, 5, 6}, dt, ++seed, kRefDevice);
    for (int64_t dim : {0, 1, 2, -1}) {
      CAPTURE(dim);
      const int64_t d = dim < 0 ? dim + 3 : dim;
      // Index smaller than self outside `dim` (allowed), values in [0, size(dim)).
      const Tensor idx = random_tensor({3, 4, 5}, ST::Int64, ++seed, kRefDevice, 0.0,
                                       static_cast<double>(self.size(d) - 1));
      for (CpuLayout ls : kCpuLayouts) {
        for (CpuLayout li : kCpuLayouts) {
          CAPTURE(std::string(layout_name(ls)));
          CAPTURE(std::string(layout_name(li)));
          check_cpu(gather(cpu_copy(self, ls), dim, cpu_copy(idx, li)), gather(self, dim, idx), 0,
                    0);
        }
      }
    }
    // 0-d self and index, and an empty index.
    const Tensor s = random_tensor({}, dt, ++seed, kRefDevice);
    const Tensor zero = index_tensor({0}, {});
    check_cpu(gather(on(s, cpu_device()), 0, on(zero, cpu_device())), gather(s, 0, zero), 0, 0);
    const Tensor empty_idx = zeros({4, 0, 6}, ST::Int64, kRefDevice);
    check_cpu(gather(on(self, cpu_device()), 1, on(empty_idx, cpu_device())),
              gather(self, 1, empty_idx), 0, 0);
  }
}

TEST_CASE("cpu gather of a large tensor (threaded)") {
  const Tensor self = random_tensor({512, 1024}, ST::Float32, 410, kRefDevice);
  const Tensor idx = random_tensor({512, 700}, ST::Int64, 411, kRefDevice, 0.0, 1023.0);
  check_cpu(gather(on(self, cpu_device()), 1, on(idx, cpu_device())), gather(self, 1, idx), 0, 0);
  const Tensor idx0 = random_tensor({300, 1024}, ST::Int64, 412, kRefDevice, 0.0, 511.0);
  check_cpu(gather(cpu_copy(self, CpuLayout::Transposed), 0, on(idx0, cpu_device())),
            gather(self, 0, idx0), 0, 0);
}

TEST_CASE("cpu index_select and gather report out-of-range indices as index errors") {
  const Tensor x = on(random_tensor({3, 4}, ST::Float32, 500, kRefDevice), cpu_device());
  check_cpu_error(
      [&] {
        index_select(x, 0, on(index_tensor({0, 7}, {2}), cpu_device()));
      },
      ErrorCode::Index, "index_select: index 7 is out of range for dimension 0 with size 3");
  check_cpu_error([&] { index_select(x, 1, on(index_tensor({-1}, {1}, ST::Int32), cpu_device())); },
                  ErrorCode::Index,
                  "index_select: index -1 is out of range for dimension 1 with size 4");
  check_cpu_error(
      [&] {
        gather(x, 1, on(index_tensor({0, 1, 4, 2}, {2, 2}), cpu_device()));
      },
      ErrorCode::Index, "gather: index 4 is out of range for dimension 1 with size 4");
  check_cpu_error(
      [&] {
        gather(x, 0, on(index_tensor({0, -2}, {1, 2}), cpu_device()));
      },
      ErrorCode::Index, "gather: index -2 is out of range for dimension 0 with size 3");
  // The output of a failed call is left untouched (nothing is written before the check).
  Tensor out = on(zeros({2, 4}, ST::Float32, kRefDevice), cpu_device());
  CHECK_THROWS_AS(index_select_out(out, x, 0, on(index_tensor({1, 3}, {2}), cpu_device())), Error);
  check_cpu(out, zeros({2, 4}, ST::Float32, kRefDevice), 0, 0);
}

}  // namespace
}  // namespace bp::test
