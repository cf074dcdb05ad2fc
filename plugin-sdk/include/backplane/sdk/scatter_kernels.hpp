// The scatter primitives' kernels for a plugin to register (scatter.src, scatter_reduce.two),
// over their checks and loops. out starts as self; then for every position of index, in
// row-major order, out[..., index[p], ...] (along dim) takes src[p]: the last one wins
// (scatter.src), or is reduced with it in that order (sum, prod, mean, amax, amin), each step
// rounded once in the dtype. One call of the loop owns one line of out along dim (the index
// positions that share the other coordinates), so `Split::run(n, body)` may split the lines
// among threads and any split gives the same result, with no atomics. The reference
// registers them with a serial Split, the CPU plugin with its OpenMP one; the GPUs' scatter.cl
// walks the lines the same way. Header-only.
#pragma once

#include <backplane/sdk/argument_checks.hpp>
#include <backplane/sdk/kernel.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <string>
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
  // The loop over the lines [begin, end) of index (its positions with dim at 0).
  template <typename T>
  static void run_lines(const char* op, StridedView index, StridedView src, StridedView out,
                        int64_t dim, ScatterReduce r, bool include_self, int64_t begin,
                        int64_t end) {
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
        check_index_value(op, k, dim, out.shape[dim]);
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
      for (int64_t i = 0; i < len; ++i) {
        const T x = src.at_offset<T>(s0 + i * src.strides[dim]);
        T& acc = target(i);
        acc = r == ScatterReduce::Assign ? x : scatter_step<T>(r, acc, x);
        if (r == ScatterReduce::Mean) ++slot(i);
      }
      if (r == ScatterReduce::Mean)
        for (int64_t i = 0; i < len; ++i)
          if (slot(i) > 0) {
            target(i) = scatter_mean<T>(target(i), slot(i));
            slot(i) = 0;
          }
    }
  }

  static void run(const char* op, StridedView self, int64_t dim, StridedView index, StridedView src,
                  StridedView out, ScatterReduce r, bool include_self) {
    check_scatter(op, self, dim, index, src, out);
    const int64_t len = index.shape[dim];
    visit_dtype(out.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if (out.base != self.base) for_each_element_copy<T>(self, out);
      if (index.numel() == 0) return;
      // Every index value first, so that a bad one leaves out as self.
      for_each_index(std::span<const int64_t>(index.shape, static_cast<size_t>(index.ndim)),
                     [&](const int64_t* at) {
                       check_index_value(op, index.at<int64_t>(at), dim, out.shape[dim]);
                     });
      Split::run(index.numel() / len, [&](int64_t begin, int64_t end) {
        run_lines<T>(op, index, src, out, dim, r, include_self, begin, end);
      });
    });
  }

  // out = self, element by element (out is a new tensor of self's shape).
  template <typename T>
  static void for_each_element_copy(const StridedView& self, const StridedView& out) {
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
