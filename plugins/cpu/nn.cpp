// Fused CPU kernels for four composites of core/src/ops/nn.cpp: softmax.int,
// log_softmax.int, layer_norm and rms_norm (f32/f64/f16/bf16). A plugin may register a kernel
// for a composite; the dispatcher then calls it instead of decomposing, with the arguments
// the composite's meta rule has canonicalised (dim wrapped, input converted to the result
// dtype, rms_norm's eps made explicit). Each kernel computes what the decomposition
// computes, in one pass over each row instead of five to seven kernel calls:
//   softmax      e = exp(x - max), e / sum(e)       (max NaN-propagating, as amax)
//   log_softmax  (x - max) - log(sum(e))
//   layer_norm   (x - mean) * rsqrt(mean((x - mean)^2) + eps) [* weight] [+ bias]
//   rms_norm     x * rsqrt(mean(x^2) + eps) [* weight]
// f16/bf16 compute in f32 and round once, as the composites; f32 in f32 with the row
// reductions pairwise (like the sum kernel); f64 in f64.
#include "cpu.hpp"
#include "reduce_engine.hpp"
#include "simd_reduce.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bp::cpu {
namespace {

template <typename T>
using Compute = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Rows of a tensor: the elements of the `row_dims` of `in` and of `out` (same shape) for
// each index of the other dims, visited through a ReducePlan (the row dims are its
// "reduced" dims). gather/scatter move one row between the tensors and a contiguous buffer.
struct Rows {
  ReducePlan plan;
  std::vector<int64_t> shape, in_strides, out_strides;  // the row dims, outermost first
  int64_t len = 1;
  bool contiguous = true;  // the row is one unit-stride run in both tensors

  Rows(const StridedView& in, const StridedView& out, const std::vector<bool>& row_dims)
      : plan(in, out, row_dims) {
    for (int32_t d = 0; d < in.ndim; ++d) {
      if (!row_dims[static_cast<size_t>(d)]) continue;
      shape.push_back(in.shape[d]);
      in_strides.push_back(in.strides[d]);
      out_strides.push_back(out.strides[d]);
      len *= in.shape[d];
    }
    int64_t expected = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (shape[d] == 1) continue;
      contiguous = contiguous && in_strides[d] == expected && out_strides[d] == expected;
      expected *= shape[d];
    }
  }
  // Calls f(k, in_offset, out_offset) for the k-th element of a row, k in row-major order.
  template <typename F>
  void for_each(F&& f) const {
    const size_t nd = shape.size();
    std::vector<int64_t> idx(nd, 0);
    int64_t io = 0, oo = 0;
    for (int64_t k = 0; k < len; ++k) {
      f(k, io, oo);
      for (size_t d = nd; d-- > 0;) {
        io += in_strides[d];
        oo += out_strides[d];
        if (++idx[d] < shape[d]) break;
        io -= in_strides[d] * shape[d];
        oo -= out_strides[d] * shape[d];
        idx[d] = 0;
      }
    }
  }
};

template <typename A>
A sum_of(const A* p, int64_t n) {
  if constexpr (std::is_same_v<A, float>)
    return simd_sum_f32(p, n);
  else
    return simd_sum_f64(p, n);
}

// Runs row(buf, n) over every row in parallel: buf holds the row in the compute type A on
// entry and the result on exit.
template <typename T, typename F>
void for_each_row(const StridedView& in, const StridedView& out, const Rows& rows, F&& row) {
  using A = Compute<T>;
  const T* ip = in.data<const T>();
  T* op = out.data<T>();
  const int threads = reduce_threads(rows.plan.nout * rows.len * 8);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t begin = rows.plan.nout * t / nt, end = rows.plan.nout * (t + 1) / nt;
    std::vector<A> buf(static_cast<size_t>(rows.len));
    A* b = buf.data();
    for_each_output(rows.plan, begin, end, [&](int64_t in_off, int64_t out_off) {
      if (rows.contiguous) {  // unit-stride copies the compiler vectorises
        const T* src = ip + in_off;
        for (int64_t k = 0; k < rows.len; ++k) b[k] = static_cast<A>(widen(src[k]));
      } else {
        rows.for_each(
            [&](int64_t k, int64_t io, int64_t) { b[k] = static_cast<A>(widen(ip[in_off + io])); });
      }
      row(b, rows.len);
      if (rows.contiguous) {
        T* dst = op + out_off;
        for (int64_t k = 0; k < rows.len; ++k) dst[k] = narrow<T>(b[k]);
      } else {
        rows.for_each([&](int64_t k, int64_t, int64_t oo) { op[out_off + oo] = narrow<T>(b[k]); });
      }
    });
  }
}

void check_same_shape(const char* op, const StridedView& in, const StridedView& out) {
  bool ok = in.ndim == out.ndim && in.dtype == out.dtype;
  for (int32_t d = 0; ok && d < in.ndim; ++d) ok = in.shape[d] == out.shape[d];
  if (ok) return;
  throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": output " + sdk::shape_text(out) + " " +
                                           dtype_name(out.dtype) + " does not match input " +
                                           sdk::shape_text(in) + " " + dtype_name(in.dtype));
}

// ---- softmax.int / log_softmax.int(Tensor self, int dim, ScalarType? dtype) ----------------
// f32 rows that are unit-stride in both tensors, which do not overlap: three passes over
// each row straight between the tensors (max; exp(x - max) written into the output and
// summed; the output scaled, or log_softmax's (x - max) - log(sum) from the input), with no
// staging buffer and no per-row allocation, all SIMD. The general path's gather, scatter and
// per-row std::vector made softmax over [1024, 4096] 1.06x libtorch's time. The arithmetic
// is the general path's, operation for operation, so both give the same bits.
template <bool kLog>
void softmax_row_f32(const float* x, float* y, int64_t n) {
  const float max = simd_max_f32(x, n);
  if (!std::isfinite(max)) {  // as in softmax_typed
    std::fill_n(y, n, std::numeric_limits<float>::quiet_NaN());
    return;
  }
  const float sum = simd_exp_shift_f32(x, max, y, n);
  if constexpr (kLog)
    simd_sub_sub_f32(x, max, std::log(sum), y, n);
  else
    simd_div_f32(y, sum, y, n);
}

// Rows are taken by threads in chunks of about 64K elements from a shared counter (dynamic
// schedule), not split in halves up front: on a shared machine the static split waits for
// whichever thread the OS deschedules, most of the profile under load.
template <bool kLog>
void softmax_contiguous_f32(const StridedView& in, const StridedView& out, const Rows& rows) {
  const float* ip = in.data<const float>();
  float* op = out.data<float>();
  const int64_t n = rows.len, nrows = rows.plan.nout;
  const int64_t per_chunk = std::max<int64_t>(1, 65536 / std::max<int64_t>(n, 1));
  const int64_t chunks = (nrows + per_chunk - 1) / per_chunk;
  const int threads = reduce_threads(nrows * n * 8);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) if (threads > 1 && chunks > 1)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const int64_t begin = chunk * per_chunk, end = std::min(nrows, begin + per_chunk);
    for_each_output(rows.plan, begin, end, [&](int64_t in_off, int64_t out_off) {
      softmax_row_f32<kLog>(ip + in_off, op + out_off, n);
    });
  }
}

// Whether the memory spans of two views are disjoint (the fast path above reads the input
// after writing the output).
bool disjoint(const StridedView& a, const StridedView& b) {
  auto span = [](const StridedView& v) {
    int64_t lo = 0, hi = 0;  // element offsets of the lowest and the highest element
    for (int32_t d = 0; d < v.ndim; ++d) {
      const int64_t reach = (v.shape[d] - 1) * v.strides[d];
      (reach < 0 ? lo : hi) += reach;
    }
    const auto base = reinterpret_cast<uintptr_t>(v.base);
    const auto size = static_cast<int64_t>(v.itemsize);
    return std::pair<uintptr_t, uintptr_t>(base + static_cast<uintptr_t>(lo * size),
                                           base + static_cast<uintptr_t>((hi + 1) * size));
  };
  const auto [a0, a1] = span(a);
  const auto [b0, b1] = span(b);
  return a1 <= b0 || b1 <= a0;
}

template <bool kLog, typename T>
void softmax_typed(const StridedView& in, const StridedView& out, int64_t dim) {
  using A = Compute<T>;
  std::vector<bool> row_dims(static_cast<size_t>(in.ndim), false);
  if (in.ndim > 0) row_dims[static_cast<size_t>(dim)] = true;
  const Rows rows(in, out, row_dims);
  if constexpr (std::is_same_v<T, float>) {
    if (rows.contiguous && disjoint(in, out)) return softmax_contiguous_f32<kLog>(in, out, rows);
  }
  for_each_row<T>(in, out, rows, [](A* x, int64_t n) {
    A max;  // NaN if any element is NaN
    if constexpr (std::is_same_v<A, float>)
      max = simd_max_f32(x, n);
    else
      max = simd_max_f64(x, n);
    // A NaN, +inf or an all -inf row: x - max has a NaN in every output of the composite
    // (inf - inf), and so does its sum.
    if (!std::isfinite(max)) {
      for (int64_t i = 0; i < n; ++i) x[i] = std::numeric_limits<A>::quiet_NaN();
      return;
    }
    std::vector<A> e(static_cast<size_t>(n));
    A sum;
    if constexpr (std::is_same_v<A, float>)
      sum = simd_exp_shift_f32(x, max, e.data(), n);
    else
      sum = simd_exp_shift_f64(x, max, e.data(), n);
    if constexpr (kLog) {
      const A log_sum = std::log(sum);
      for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - max) - log_sum;
    } else {
      for (int64_t i = 0; i < n; ++i) x[i] = e[static_cast<size_t>(i)] / sum;
    }
  });
}

template <bool kLog>
void softmax_kernel(StridedView in, int64_t dim, std::optional<bp_dtype>, StridedView out) {
  const char* op = kLog ? "log_softmax.int" : "softmax.int";
  check_same_shape(op, in, out);
  if (dim < 0 || dim >= std::max<int32_t>(in.ndim, 1))
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": dim " + std::to_string(dim) +
                                             " is out of range for " + sdk::shape_text(in));
  if (in.numel() == 0) return;
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) softmax_typed<kLog, T>(in, out, dim);
  });
}

// ---- layer_norm / rms_norm ---------------------------------------------------------------
// The row dims are the last `k` dims (normalized_shape); weight and bias, of exactly that
// shape, are gathered once into contiguous rows of the compute type.
template <typename T>
std::vector<Compute<T>> param_row(const bp_value& v, int64_t len) {
  std::vector<Compute<T>> row;
  if (v.tag != BP_VALUE_TENSOR) return row;
  const StridedView p(v.u.tensor);
  row.resize(static_cast<size_t>(len));
  std::vector<bool> all(static_cast<size_t>(p.ndim), true);
  const Rows r(p, p, all);
  const T* pp = p.data<const T>();
  r.for_each([&](int64_t k, int64_t io, int64_t) {
    row[static_cast<size_t>(k)] = static_cast<Compute<T>>(widen(pp[io]));
  });
  return row;
}

template <bool kRms, typename T>
void norm_typed(const StridedView& in, const bp_value& weight_arg, const bp_value* bias_arg,
                const StridedView& out, size_t k, double eps_arg) {
  using A = Compute<T>;
  std::vector<bool> row_dims(static_cast<size_t>(in.ndim), false);
  for (size_t i = 0; i < k; ++i) row_dims[static_cast<size_t>(in.ndim) - 1 - i] = true;
  const Rows rows(in, out, row_dims);
  const std::vector<A> weight = param_row<T>(weight_arg, rows.len);
  const std::vector<A> bias = kRms ? std::vector<A>{} : param_row<T>(*bias_arg, rows.len);
  // eps is a Python float, converted to the compute dtype as the composite's scalar tensor.
  const A eps = static_cast<A>(eps_arg);
  for_each_row<T>(in, out, rows, [&](A* x, int64_t n) {
    if constexpr (!kRms) {
      const A mean = sum_of(x, n) / static_cast<A>(n);
      for (int64_t i = 0; i < n; ++i) x[i] -= mean;
    }
    A sum_sq;
    if constexpr (std::is_same_v<A, float>)
      sum_sq = simd_sum_sq_f32(x, n);
    else
      sum_sq = simd_sum_sq_f64(x, n);
    const A var = sum_sq / static_cast<A>(n);
    const A r = A(1) / std::sqrt(var + eps);
    for (int64_t i = 0; i < n; ++i) {
      A y = x[i] * r;
      if (!weight.empty()) y *= weight[static_cast<size_t>(i)];
      if (!bias.empty()) y += bias[static_cast<size_t>(i)];
      x[i] = y;
    }
  });
}

// The checks and dispatch of layer_norm (bias given) and rms_norm (bias null).
template <bool kRms>
void norm(const StridedView& in, const bp_value& shape, const bp_value& weight,
          const bp_value* bias, const bp_value& eps, const StridedView& out) {
  const char* op = kRms ? "rms_norm" : "layer_norm";
  check_same_shape(op, in, out);
  const size_t k = shape.tag == BP_VALUE_INT_LIST ? shape.u.list.count : 0;
  if (k == 0 || k > static_cast<size_t>(in.ndim) || eps.tag != BP_VALUE_FLOAT)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(op) + ": expected a non-empty normalized_shape of at most " +
                    std::to_string(in.ndim) + " dims and a float eps (the meta rule's form)");
  for (const bp_value* p : {&weight, bias}) {
    if (!p || p->tag != BP_VALUE_TENSOR) continue;
    const StridedView w(p->u.tensor);
    bool ok = w.dtype == in.dtype && static_cast<size_t>(w.ndim) == k;
    for (size_t i = 0; ok && i < k; ++i)
      ok = w.shape[i] == in.shape[static_cast<size_t>(in.ndim) - k + i];
    if (!ok)
      throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": weight/bias " + sdk::shape_text(w) +
                                               " does not match the input's last dims");
  }
  if (in.numel() == 0) return;
  visit_dtype(in.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloating<T>) norm_typed<kRms, T>(in, weight, bias, out, k, eps.u.f);
  });
}

// layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, Tensor? bias, float eps)
// and rms_norm(Tensor input, int[] normalized_shape, Tensor? weight, float? eps): the
// arguments as boxed, whose kinds norm() checks in the meta rule's words.
void layer_norm_kernel(StridedView in, const bp_value* shape, const bp_value* weight,
                       const bp_value* bias, const bp_value* eps, StridedView out) {
  norm<false>(in, *shape, *weight, bias, *eps, out);
}
void rms_norm_kernel(StridedView in, const bp_value* shape, const bp_value* weight,
                     const bp_value* eps, StridedView out) {
  norm<true>(in, *shape, *weight, nullptr, *eps, out);
}

}  // namespace

void register_nn_kernels(sdk::Registrar& r) {
  r.kernel<softmax_kernel<false>>("softmax.int", BP_DTYPES_FLOATING);
  r.kernel<softmax_kernel<true>>("log_softmax.int", BP_DTYPES_FLOATING);
  r.kernel<layer_norm_kernel>("layer_norm", BP_DTYPES_FLOATING);
  r.kernel<rms_norm_kernel>("rms_norm", BP_DTYPES_FLOATING);
}

}  // namespace bp::cpu
