// sort.stable's kernel for a plugin to register, over its checks and line loop: each line of
// self along `dim` is sorted stably (equal elements keep their order, -0.0 equals 0.0) with
// NaN above every number, as PyTorch's CPU orders it: last in ascending order, first in
// descending. `Split::run(n, body, cost)` calls body(begin, end) over the lines (of `cost`
// elements each), on one thread or split among several; each line is one call, so any split gives
// the same result. The reference registers it with a serial Split, the CPU plugin with its OpenMP
// one; the GPUs' sort.cl gives the same permutation by ranking each element. Header-only.
#pragma once

#include <backplane/sdk/argument_checks.hpp>
#include <backplane/sdk/kernel.hpp>

#include <algorithm>
#include <numeric>
#include <optional>
#include <vector>

namespace bp::sdk {

// The kernels receive self with at least one dim (core passes a 0-d self as [1]), values
// of self's dtype and shape, and i64 indices of self's shape.
inline void check_sort(const StridedView& self, int64_t dim, const StridedView& values,
                       const StridedView& indices) {
  const char* op = "sort.stable";
  if (self.ndim == 0)
    throw Error(
        BP_ERR_INVALID_ARGUMENT,
        std::string(op) + ": 'self' reached the kernel 0-d (the meta rule passes it as [1])");
  check_dim(op, dim, self.ndim);
  check_same_dtype(op, "self", self, values);
  if (indices.dtype != BP_DTYPE_I64)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": 'indices' must be i64");
  bool ok = values.ndim == self.ndim && indices.ndim == self.ndim;
  for (int32_t d = 0; ok && d < self.ndim; ++d)
    ok = values.shape[d] == self.shape[d] && indices.shape[d] == self.shape[d];
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": outputs of shapes " +
                                             shape_text(values) + " and " + shape_text(indices) +
                                             " do not match 'self' of shape " + shape_text(self));
}

// Whether `a` sorts before `b` (strictly) in PyTorch's order: NaN above every number.
template <typename C>
bool sorts_before(C a, C b, bool descending) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return descending && b == b;  // NaN: first when descending, never before NaN
    if (b != b) return !descending;
  }
  return descending ? b < a : a < b;
}

template <typename Split>
struct SortKernels {
  // sort.stable(Tensor self, *, bool? stable, int dim, bool descending) -> (values, indices)
  static void sort_kernel(StridedView self, std::optional<bool>, int64_t dim, bool descending,
                          StridedView values, StridedView indices) {
    check_sort(self, dim, values, indices);
    const int64_t len = self.shape[dim];
    if (self.numel() == 0) return;
    const int64_t lines = self.numel() / len;
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      // Compared as float for f16/bf16 (exact), as the value itself otherwise.
      using C = std::conditional_t<kIsHalf<T>, float, T>;
      Split::run(
          lines,
          [&](int64_t begin, int64_t end) {
            std::vector<int64_t> order(static_cast<size_t>(len));
            std::vector<C> line(static_cast<size_t>(len));
            for (int64_t l = begin; l < end; ++l) {
              const int64_t in = line_offset(self, dim, l);
              for (int64_t i = 0; i < len; ++i)
                line[static_cast<size_t>(i)] =
                    static_cast<C>(self.at_offset<T>(in + i * self.strides[dim]));
              std::iota(order.begin(), order.end(), int64_t{0});
              std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
                return sorts_before(line[static_cast<size_t>(a)], line[static_cast<size_t>(b)],
                                    descending);
              });
              const int64_t v0 = line_offset(values, dim, l), i0 = line_offset(indices, dim, l);
              for (int64_t r = 0; r < len; ++r) {
                const int64_t from = order[static_cast<size_t>(r)];
                values.at_offset<T>(v0 + r * values.strides[dim]) =
                    self.at_offset<T>(in + from * self.strides[dim]);
                indices.at_offset<int64_t>(i0 + r * indices.strides[dim]) = from;
              }
            }
          },
          len);
    });
  }

  static void register_all(Registrar& r) { r.kernel<sort_kernel>("sort.stable", BP_DTYPES_ALL); }
};

}  // namespace bp::sdk
