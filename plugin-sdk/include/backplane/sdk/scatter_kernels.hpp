// The scatter primitives' kernels for a plugin to register (scatter.src, scatter_reduce.two),
// over their checks and loops. out starts as self; then for every position of index, in
// row-major order, out[..., index[p], ...] (along dim) takes src[p]: the last one wins
// (scatter.src), or is reduced with it in that order (sum, prod, mean, amax, amin), each step
// rounded once in the dtype. One call of the loop owns one line of out along dim (the index
// positions that share the other coordinates), so `Split::run(n, body, cost)` may split the lines
// among threads and any split gives the same result, with no atomics. The reference
// registers them with a serial Split, the CPU plugin with its OpenMP one; the GPUs' scatter.cl
// walks the lines the same way. Header-only.
#pragma once

#include <backplane/sdk/argument_checks.hpp>
#include <backplane/sdk/kernel.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace bp::sdk {

enum class ScatterReduce { Assign, Sum, Prod, Mean, Amax, Amin };

inline ScatterReduce scatter_reduction(const char* op, const char* reduce) {
  const std::string r = reduce ? reduce : "";
  if (r == "sum") return ScatterReduce::Sum;
  if (r == "prod") return ScatterReduce::Prod;
  if (r == "mean") return ScatterReduce::Mean;
  if (r == "amax") return ScatterReduce::Amax;
  if (r == "amin") return ScatterReduce::Amin;
  throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) +
                                           ": reduce must be sum, prod, mean, amax "
                                           "or amin, got '" +
                                           r + "'");
}

// Kernels receive self, index, src and out with the same number of dims (>= 1: core passes
// 0-d tensors as [1]), an i64 index no larger than src anywhere and than self outside dim,
// and out of self's dtype and shape.
inline void check_scatter(const char* op, const StridedView& self, int64_t dim,
                          const StridedView& index, const StridedView& src,
                          const StridedView& out) {
  check_dim(op, dim, self.ndim);
  check_same_dtype(op, "self", self, out);
  check_same_dtype(op, "src", src, out);
  if (index.dtype != BP_DTYPE_I64)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": 'index' must be i64");
  bool ok = index.ndim == self.ndim && src.ndim == self.ndim && out.ndim == self.ndim;
  for (int32_t d = 0; ok && d < self.ndim; ++d)
    ok = out.shape[d] == self.shape[d] && index.shape[d] <= src.shape[d] &&
         (d == dim || index.shape[d] <= self.shape[d]);
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": 'index' of shape " +
                                             shape_text(index) + " does not fit 'self' " +
                                             shape_text(self) + " and 'src' " + shape_text(src));
}

// One reduction step in the dtype's compute type (float for f16/bf16, wrapping integers,
// bool as logic), rounded once into T. NaN wins amax and amin (PyTorch's CPU kernels).
template <typename T>
T scatter_step(ScatterReduce r, T acc, T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduce::Prod || r == ScatterReduce::Amin ? (acc && x) : (acc || x);
  } else {
    using C = std::conditional_t<kIsHalf<T>, float, T>;
    const C a = static_cast<C>(acc), b = static_cast<C>(x);
    switch (r) {
      case ScatterReduce::Sum:
      case ScatterReduce::Mean:
        if constexpr (std::is_integral_v<C>)
          return static_cast<T>(static_cast<std::make_unsigned_t<C>>(a) +
                                static_cast<std::make_unsigned_t<C>>(b));
        else
          return T(a + b);
      case ScatterReduce::Prod:
        if constexpr (std::is_integral_v<C>)
          return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
        else
          return T(a * b);
      case ScatterReduce::Amax:
        if constexpr (std::is_floating_point_v<C>)
          if (b != b) return x;
        return a < b ? x : acc;
      case ScatterReduce::Amin:
        if constexpr (std::is_floating_point_v<C>)
          if (b != b) return x;
        return b < a ? x : acc;
      default:
        return x;
    }
  }
}

// The value a position starts from when self is left out: the reduction's identity.
template <typename T>
T scatter_identity(ScatterReduce r) {
  if constexpr (std::is_same_v<T, bool>) {
    return r == ScatterReduce::Prod || r == ScatterReduce::Amin;
  } else {
    using C = std::conditional_t<kIsHalf<T>, float, T>;
    constexpr bool kFloat = std::is_floating_point_v<C>;
    switch (r) {
      case ScatterReduce::Prod:
        return T(C{1});
      case ScatterReduce::Amax:
        return T(kFloat ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest());
      case ScatterReduce::Amin:
        return T(kFloat ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max());
      default:
        return T(C{0});
    }
  }
}

// sum / count for mean: floor division for integers (PyTorch's), else one rounding.
template <typename T>
T scatter_mean(T sum, int64_t count) {
  using C = std::conditional_t<kIsHalf<T>, float, T>;
  if constexpr (std::is_same_v<T, bool>) {
    return sum;  // the meta rule refuses a bool mean
  } else if constexpr (std::is_integral_v<C>) {
    const auto s = static_cast<int64_t>(sum);  // count > 0: floor is trunc - 1 below zero
    const int64_t q = s / count;
    return static_cast<T>(s % count != 0 && s < 0 ? q - 1 : q);
  } else {
    return T(static_cast<C>(sum) / static_cast<C>(count));
  }
}

template <typename Split>
struct ScatterKernels {
  // One line's writes in index order, the reduction a constant of the loop (mean sums).
  // kChecked: each index value is checked against `size` before its write; the first bad one
  // stops the line and is returned (the line then partly written), else nullopt.
  template <typename T, ScatterReduce R, bool kChecked>
  static std::optional<int64_t> apply_line_as(const int64_t* index, int64_t index_stride,
                                              const T* src, int64_t src_stride, T* out,
                                              int64_t out_stride, int64_t len, int64_t size) {
    for (int64_t i = 0; i < len; ++i) {
      const int64_t k = index[i * index_stride];
      if constexpr (kChecked)
        if (k < 0 || k >= size) return k;
      T& acc = out[k * out_stride];
      const T x = src[i * src_stride];
      if constexpr (R == ScatterReduce::Assign)
        acc = x;
      else
        acc = scatter_step<T>(R, acc, x);
    }
    return std::nullopt;
  }

  template <typename T, bool kChecked>
  static std::optional<int64_t> apply_line(ScatterReduce r, const int64_t* index,
                                           int64_t index_stride, const T* src, int64_t src_stride,
                                           T* out, int64_t out_stride, int64_t len, int64_t size) {
    using R = ScatterReduce;
    auto as = [&](auto reduction) {
      return apply_line_as<T, decltype(reduction)::value, kChecked>(
          index, index_stride, src, src_stride, out, out_stride, len, size);
    };
    switch (r) {
      case R::Assign:
        return as(std::integral_constant<R, R::Assign>{});
      case R::Sum:
      case R::Mean:
        return as(std::integral_constant<R, R::Sum>{});
      case R::Prod:
        return as(std::integral_constant<R, R::Prod>{});
      case R::Amax:
        return as(std::integral_constant<R, R::Amax>{});
      case R::Amin:
        return as(std::integral_constant<R, R::Amin>{});
    }
    return std::nullopt;
  }

  // The loop over the lines [begin, end) of index (its positions with dim at 0). Nothing may
  // throw inside a split: either the indices were checked before, or (kChecked) each is
  // checked before its write and the first bad (line, value) is returned, the lines after it
  // left alone; kChecked needs a reduction that writes nothing through an index before its
  // line's values (checks_while_writing).
  template <typename T, bool kChecked>
  static std::optional<std::pair<int64_t, int64_t>> run_lines(StridedView index, StridedView src,
                                                              StridedView out, int64_t dim,
                                                              ScatterReduce r, bool include_self,
                                                              int64_t begin, int64_t end) {
    const int64_t len = index.shape[dim];
    std::vector<int64_t> count(r == ScatterReduce::Mean ? static_cast<size_t>(out.shape[dim]) : 0);
    for (int64_t l = begin; l < end; ++l) {
      // Line l counted over index's shape (src and out may be larger): its coordinates, then
      // each view's offset of them.
      int64_t i0 = 0, s0 = 0, o0 = 0;
      for (int64_t d = index.ndim - 1, rest = l; d >= 0; --d) {
        if (d == dim) continue;
        const int64_t at = rest % index.shape[d];
        rest /= index.shape[d];
        i0 += at * index.strides[d];
        s0 += at * src.strides[d];
        o0 += at * out.strides[d];
      }
      auto target = [&](int64_t i) -> T& {
        const int64_t k = index.at_offset<int64_t>(i0 + i * index.strides[dim]);
        return out.at_offset<T>(o0 + k * out.strides[dim]);
      };
      auto slot = [&](int64_t i) -> int64_t& {
        return count[static_cast<size_t>(index.at_offset<int64_t>(i0 + i * index.strides[dim]))];
      };
      if (r != ScatterReduce::Assign)
        for (int64_t i = 0; i < len; ++i) {
          if (!include_self) target(i) = scatter_identity<T>(r);
          if (r == ScatterReduce::Mean) slot(i) = include_self ? 1 : 0;
        }
      if (const std::optional<int64_t> bad = apply_line<T, kChecked>(
              r, &index.at_offset<int64_t>(i0), index.strides[dim], &src.at_offset<T>(s0),
              src.strides[dim], &out.at_offset<T>(o0), out.strides[dim], len, out.shape[dim]))
        return std::pair{l, *bad};
      if (r == ScatterReduce::Mean) {
        for (int64_t i = 0; i < len; ++i) ++slot(i);
        for (int64_t i = 0; i < len; ++i)
          if (slot(i) > 0) {  // each element divided once: its slot is then cleared
            target(i) = scatter_mean<T>(target(i), slot(i));
            slot(i) = 0;
          }
      }
    }
    return std::nullopt;
  }

  // Whether the indices may be checked as the lines are written: out is not self (a bad index
  // fails the call, and out is dropped), and nothing is written through an index before its
  // line's values (no identity for a left-out self, no mean's counts). One pass over index
  // instead of two: scatter_add of a 1024x4096 index spent a quarter of its time checking.
  static bool checks_while_writing(const StridedView& self, const StridedView& out, ScatterReduce r,
                                   bool include_self) {
    return out.base != self.base && r != ScatterReduce::Mean &&
           (include_self || r == ScatterReduce::Assign);
  }

  // The first (line, value) of lines [begin, end) whose index value is outside [0, size).
  static std::optional<std::pair<int64_t, int64_t>> bad_index(const StridedView& index, int64_t dim,
                                                              int64_t size, int64_t begin,
                                                              int64_t end) {
    const int64_t len = index.shape[dim];
    for (int64_t l = begin; l < end; ++l) {
      const int64_t i0 = line_offset(index, dim, l);
      for (int64_t i = 0; i < len; ++i) {
        const int64_t k = index.at_offset<int64_t>(i0 + i * index.strides[dim]);
        if (k < 0 || k >= size) return std::pair{l, k};
      }
    }
    return std::nullopt;
  }

  static void run(const char* op, StridedView self, int64_t dim, StridedView index, StridedView src,
                  StridedView out, ScatterReduce r, bool include_self) {
    check_scatter(op, self, dim, index, src, out);
    const int64_t len = index.shape[dim];
    if (index.numel() == 0) {
      copy_self(self, out);
      return;
    }
    const int64_t lines = index.numel() / len, size = out.shape[dim];
    // The first bad (line, value), in line order whatever the split: each part keeps its
    // first, the earliest part's wins.
    std::mutex first_bad_mutex;
    std::optional<std::pair<int64_t, int64_t>> first_bad;
    auto keep_first = [&](const std::optional<std::pair<int64_t, int64_t>>& bad) {
      if (!bad) return;
      const std::lock_guard lock(first_bad_mutex);
      if (!first_bad || bad->first < first_bad->first) first_bad = bad;
    };
    // Either every index value first (split like the writes), so that a bad one leaves out
    // (self, in place) untouched, or each one as its line writes it (checks_while_writing).
    const bool checked = checks_while_writing(self, out, r, include_self);
    if (!checked) {
      Split::run(
          lines,
          [&](int64_t begin, int64_t end) { keep_first(bad_index(index, dim, size, begin, end)); },
          len);
      if (first_bad) check_index_value(op, first_bad->second, dim, size);
    }
    copy_self(self, out);
    auto write = [&](auto checking) {
      visit_dtype(out.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        Split::run(
            lines,
            [&](int64_t begin, int64_t end) {
              keep_first(run_lines<T, decltype(checking)::value>(index, src, out, dim, r,
                                                                 include_self, begin, end));
            },
            len);
      });
    };
    if (checked)
      write(std::true_type{});
    else
      write(std::false_type{});
    if (first_bad) check_index_value(op, first_bad->second, dim, size);
  }

  static void copy_self(const StridedView& self, const StridedView& out) {
    if (out.base == self.base) return;  // in place
    if (self.is_contiguous() && out.is_contiguous()) {
      // The common case: one run each, copied in parts split like the lines.
      const int64_t n = out.numel();
      const auto bytes = static_cast<int64_t>(out.itemsize);
      Split::run((n + kCopyPart - 1) / kCopyPart,
                 [&](int64_t begin, int64_t end) {
                   const int64_t first = begin * kCopyPart, last = std::min(n, end * kCopyPart);
                   std::memcpy(out.base + first * bytes, self.base + first * bytes,
                               static_cast<size_t>((last - first) * bytes));
                 },
                 kCopyPart);
      return;
    }
    visit_dtype(out.dtype, [&](auto tag) { for_each_element_copy<decltype(tag)>(self, out); });
  }
  static constexpr int64_t kCopyPart = 1 << 16;  // elements per part of copy_self's split

  // out = self, element by element (out is a new tensor of self's shape).
  template <typename Tag>
  static void for_each_element_copy(const StridedView& self, const StridedView& out) {
    using T = typename Tag::type;
    for_each_index(std::span<const int64_t>(out.shape, static_cast<size_t>(out.ndim)),
                   [&](const int64_t* at) { out.at<T>(at) = self.at<T>(at); });
  }

  // scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> out
  static void scatter_kernel(StridedView self, int64_t dim, StridedView index, StridedView src,
                             StridedView out) {
    run("scatter.src", self, dim, index, src, out, ScatterReduce::Assign, true);
  }

  // scatter_reduce.two(self, dim, index, src, str reduce, *, bool include_self) -> out
  static void scatter_reduce_kernel(StridedView self, int64_t dim, StridedView index,
                                    StridedView src, const char* reduce, bool include_self,
                                    StridedView out) {
    const char* op = "scatter_reduce.two";
    run(op, self, dim, index, src, out, scatter_reduction(op, reduce), include_self);
  }

  static void register_all(Registrar& r) {
    r.kernel<scatter_kernel>("scatter.src", BP_DTYPES_ALL);
    r.kernel<scatter_reduce_kernel>("scatter_reduce.two", BP_DTYPES_ALL);
  }
};

}  // namespace bp::sdk
