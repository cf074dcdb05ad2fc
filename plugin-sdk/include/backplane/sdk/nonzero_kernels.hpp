// nonzero_static's kernel for a plugin to register: row r of out ([size, self.ndim], i64)
// holds the coordinates of self's r-th nonzero element in row-major order (NaN is nonzero,
// -0.0 is zero); rows past the last nonzero hold fill_value, and nonzeros past `size` are
// left out. self is cut into fixed blocks of kBlock elements: a first pass counts each
// block's nonzeros, a prefix sum gives each block its first row, and a second pass writes
// them. `Split::run(n, body, cost)` may split the blocks among threads; the blocks and their
// rows do not depend on the split, so every split gives the reference's result. The GPUs'
// nonzero.cl runs the same three steps. Core's nonzero and masked_select call it with the
// count they read first (core/src/ops/nonzero.cpp). Header-only.
#pragma once

#include <backplane/sdk/argument_checks.hpp>
#include <backplane/sdk/kernel.hpp>

#include <algorithm>
#include <vector>

namespace bp::sdk {

template <typename Split>
struct NonzeroKernels {
  static constexpr int64_t kBlock = 4096;

  template <typename T>
  static bool is_nonzero(const T& x) {
    if constexpr (std::is_same_v<T, bool>)
      return x;
    else if constexpr (kIsHalf<T>)
      return static_cast<float>(x) != 0.0f;
    else
      return x != T(0);
  }

  // The coordinates of element `i` (row-major) of self.
  static void unravel(const StridedView& self, int64_t i, int64_t* at) {
    for (int32_t d = self.ndim - 1; d >= 0; --d) {
      at[d] = i % self.shape[d];
      i /= self.shape[d];
    }
  }

  // Calls f(i, coordinates) for each element i of [begin, end), in order.
  template <typename F>
  static void walk(const StridedView& self, int64_t begin, int64_t end, F&& f) {
    std::vector<int64_t> at(static_cast<size_t>(self.ndim));
    unravel(self, begin, at.data());
    for (int64_t i = begin; i < end; ++i) {
      f(i, at.data());
      for (int32_t d = self.ndim - 1; d >= 0 && ++at[static_cast<size_t>(d)] == self.shape[d]; --d)
        at[static_cast<size_t>(d)] = 0;
    }
  }

  template <typename T>
  static void run(const StridedView& self, int64_t size, int64_t fill_value,
                  const StridedView& out) {
    const int64_t n = self.numel(), blocks = (n + kBlock - 1) / kBlock;
    std::vector<int64_t> first_row(static_cast<size_t>(blocks) + 1, 0);
    auto block_end = [&](int64_t b) { return std::min(n, (b + 1) * kBlock); };
    Split::run(
        blocks,
        [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b)
            walk(self, b * kBlock, block_end(b), [&](int64_t, const int64_t* at) {
              first_row[static_cast<size_t>(b) + 1] += is_nonzero(self.at<T>(at)) ? 1 : 0;
            });
        },
        kBlock);
    for (size_t b = 1; b < first_row.size(); ++b) first_row[b] += first_row[b - 1];
    const int64_t ndim = self.ndim;
    auto write_row = [&](int64_t row, auto&& column) {
      for (int64_t d = 0; d < ndim; ++d)
        out.at_offset<int64_t>(row * out.strides[0] + d * out.strides[1]) = column(d);
    };
    Split::run(
        blocks,
        [&](int64_t begin, int64_t end) {
          for (int64_t b = begin; b < end; ++b) {
            int64_t row = first_row[static_cast<size_t>(b)];
            if (row >= size) return;  // later blocks start later still
            walk(self, b * kBlock, block_end(b), [&](int64_t, const int64_t* at) {
              if (row >= size || !is_nonzero(self.at<T>(at))) return;
              write_row(row++, [&](int64_t d) { return at[d]; });
            });
          }
        },
        kBlock);
    for (int64_t row = std::min(first_row.back(), size); row < size; ++row)
      write_row(row, [&](int64_t) { return fill_value; });
  }

  // nonzero_static(Tensor self, *, int size, int fill_value=-1) -> out [size, self.ndim]
  static void nonzero_static_kernel(StridedView self, int64_t size, int64_t fill_value,
                                    StridedView out) {
    const char* op = "nonzero_static";
    if (out.dtype != BP_DTYPE_I64 || out.ndim != 2 || out.shape[0] != size ||
        out.shape[1] != self.ndim)
      throw Error(BP_ERR_INVALID_ARGUMENT,
                  std::string(op) + ": out must be i64 of shape [" + std::to_string(size) + ", " +
                      std::to_string(self.ndim) + "], got " + shape_text(out));
    if (out.numel() == 0) return;
    visit_dtype(self.dtype,
                [&](auto tag) { run<typename decltype(tag)::type>(self, size, fill_value, out); });
  }

  static void register_all(Registrar& r) {
    r.kernel<nonzero_static_kernel>("nonzero_static", BP_DTYPES_ALL);
  }
};

}  // namespace bp::sdk
