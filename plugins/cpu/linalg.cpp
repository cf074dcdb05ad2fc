// CPU kernel for matmul. The meta rule has reduced every matmul to `self` [*B, n, k] times
// `other` [*B, k, m] into `out` [*B, n, m], identical batch dims (possibly stride 0 from
// broadcasting), one dtype for all three (docs/ops.md).
//   - f32 goes to oneDNN's dnnl_sgemm (the BLAS chosen in docs/cpu.md; opened on first use,
//     onednn.hpp): a transposed operand
//     is passed with a transpose flag, any other layout is first copied contiguous;
//   - f16/bf16 are widened to f32 (exact), multiplied by sgemm, and rounded back once;
//   - f64 and the integer dtypes use a blocked loop here (oneDNN has no dgemm): f64 sums in
//     f64, integers in uint64, which is PyTorch's wrap-around result modulo 2^bits;
//   - f32/f16/bf16 products with an inf or NaN, or values large enough that an f32 partial
//     sum could overflow, take that loop too, summing in double (onednn_keeps_semantics):
//     oneDNN's result for them depends on the kernel its ISA dispatch picked (docs/cpu.md,
//     "ISA levels").
// Small products of a batch are spread over OpenMP threads, each sgemm then running on one
// thread (oneDNN runs serially inside a parallel region); large ones run one after another,
// each cut into row or column panels that the threads take dynamically, one single-threaded
// sgemm per panel (see kMinPanel); a large product too narrow for two panels uses oneDNN's
// own threads. The regions never nest, so threads never oversubscribe.
#include "cpu.hpp"
#include "onednn.hpp"
#include "simd.hpp"
#include "simd_reduce.hpp"

#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace bp::cpu {
namespace {

// One matrix of a batch: rows x cols elements with strides in elements.
template <typename T>
struct Mat {
  T* p;
  int64_t rows, cols, rs, cs;
  T& at(int64_t i, int64_t j) const { return p[i * rs + j * cs]; }
};

// Products with fewer multiply-adds than this run on one thread (batches of them in
// parallel).
constexpr int64_t kSmallProduct = int64_t{96} * 96 * 96;

// A row-major GEMM operand: 'N' with leading dim `ld`, or 'T' (the transpose of a row-major
// matrix). False when the layout is neither (the caller copies the matrix first).
bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, char& trans, int64_t& ld) {
  if (cols == 1 || cs == 1) {
    const int64_t l = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    if (l >= std::max<int64_t>(cols, 1)) {
      trans = 'N';
      ld = l;
      return true;
    }
  }
  if (rows == 1 || rs == 1) {
    const int64_t l = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    if (l >= std::max<int64_t>(rows, 1)) {
      trans = 'T';
      ld = l;
      return true;
    }
  }
  return false;
}

// Copies (converting) a strided matrix into a contiguous row-major buffer of float.
template <typename T>
void pack_f32(const Mat<const T>& m, float* dst) {
  for (int64_t i = 0; i < m.rows; ++i) {
    float* row = dst + i * m.cols;
    const T* src = m.p + i * m.rs;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      if (m.cs == 1) {
        const auto* bits = reinterpret_cast<const uint16_t*>(src);
        if constexpr (std::is_same_v<T, Half>)
          simd::half_to_float(bits, row, m.cols);
        else
          simd::bfloat16_to_float(bits, row, m.cols);
        continue;
      }
    }
    for (int64_t j = 0; j < m.cols; ++j) row[j] = static_cast<float>(widen(src[j * m.cs]));
  }
}

// One row-major sgemm call: C (n x m, ldc) = op(A) (n x k) op(B) (k x m).
struct Gemm {
  char ta, tb;
  int64_t n, m, k;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float* c;
  int64_t ldc;
};

// Large products are cut into panels, each a oneDNN call on one thread. oneDNN's threaded
// sgemm synchronises its team inside the product: on a shared machine every thread then
// spins at its barriers for the one the OS descheduled (perf: half of the samples in
// libgomp's spin, a quarter in the GEMM kernel), and 1024^3 ran at 60 GFLOP/s with 2
// threads where independent single-threaded panels, taken from a shared counter, run at
// 130 (the FMA peak measured in the same run: ~190). On an idle machine the panels cost
// little: oneDNN repacks the shared operand per call, +1% single-threaded time for 4 panels
// of 1024^3, +6% for 8 (2048^3: +2% for 4, +6% for 8), hence panels of at least kMinPanel
// rows (or columns) and at most 2 per thread, which still lets a thread that was held back
// hand half of its share to the others.
constexpr int64_t kMinPanel = 256;

// Rows of A and C when n >= m, else columns of B and C, per panel.
int64_t panel_size(const Gemm& g, int threads) {
  const int64_t len = std::max(g.n, g.m);
  const int64_t wanted = (len + 2 * threads - 1) / (2 * threads);
  return (std::max(kMinPanel, wanted) + 15) / 16 * 16;  // whole cache lines of C's rows
}

int64_t panels_for(const Gemm& g, int threads) {
  const int64_t len = std::max(g.n, g.m);
  return (len + panel_size(g, threads) - 1) / panel_size(g, threads);
}

// The product as panels, each one oneDNN call on one thread (oneDNN runs serially inside a
// parallel region), taken from a shared counter (dynamic schedule).
dnnl_status_t sgemm_panels(const Gemm& g, int threads) {
  const int64_t size = panel_size(g, threads), panels = panels_for(g, threads);
  const bool by_rows = g.n >= g.m;
  int failure = dnnl_success;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1) reduction(max : failure)
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t lo = p * size, len = std::min(size, (by_rows ? g.n : g.m) - lo);
    const float* a = g.a;
    const float* b = g.b;
    float* c = g.c;
    if (by_rows) {  // rows lo.. of op(A) and of C
      a += g.ta == 'N' ? lo * g.lda : lo;
      c += lo * g.ldc;
    } else {  // columns lo.. of op(B) and of C
      b += g.tb == 'N' ? lo : lo * g.ldb;
      c += lo;
    }
    const dnnl_status_t s = onednn().sgemm(g.ta, g.tb, by_rows ? len : g.n, by_rows ? g.m : len,
                                           g.k, 1.0f, a, g.lda, b, g.ldb, 0.0f, c, g.ldc);
    failure = std::max<int>(failure, s);
  }
  return static_cast<dnnl_status_t>(failure);
}

// C = A B for f32 matrices of any strides. Returns oneDNN's status. Unless `threaded`,
// oneDNN runs on the calling thread only: it sizes its team by omp_get_max_threads(), a
// per-thread setting, lowered for the call (small products lose more to a team's start and
// barrier than they gain, about 2x at 64x64x64 with 2 threads).
dnnl_status_t sgemm(const Mat<const float>& a, const Mat<const float>& b, const Mat<float>& c,
                    bool threaded) {
  const int64_t n = a.rows, k = a.cols, m = b.cols;
  if (n == 0 || m == 0) return dnnl_success;
  if (k == 0) {
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) c.at(i, j) = 0.0f;
    return dnnl_success;
  }
  char ta, tb, tc;
  int64_t lda, ldb, ldc;
  std::vector<float> abuf, bbuf, cbuf;
  const float* ap = a.p;
  const float* bp = b.p;
  if (!gemm_layout(n, k, a.rs, a.cs, ta, lda)) {
    abuf.resize(static_cast<size_t>(n * k));
    pack_f32(a, abuf.data());
    ap = abuf.data(), ta = 'N', lda = k;
  }
  if (!gemm_layout(k, m, b.rs, b.cs, tb, ldb)) {
    bbuf.resize(static_cast<size_t>(k * m));
    pack_f32(b, bbuf.data());
    bp = bbuf.data(), tb = 'N', ldb = m;
  }
  float* cp = c.p;
  const bool direct = gemm_layout(n, m, c.rs, c.cs, tc, ldc) && tc == 'N';
  if (!direct) {
    cbuf.resize(static_cast<size_t>(n * m));
    cp = cbuf.data(), ldc = m;
  }
  const Gemm g{ta, tb, n, m, k, ap, lda, bp, ldb, cp, ldc};
  const int max_threads = omp_get_max_threads();
  dnnl_status_t s;
  if (threaded && max_threads > 1 && panels_for(g, max_threads) > 1) {
    s = sgemm_panels(g, max_threads);
  } else {
    if (!threaded && max_threads > 1) omp_set_num_threads(1);
    s = onednn().sgemm(ta, tb, n, m, k, 1.0f, ap, lda, bp, ldb, 0.0f, cp, ldc);
    if (!threaded && max_threads > 1) omp_set_num_threads(max_threads);
  }
  if (!direct && s == dnnl_success)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) c.at(i, j) = cbuf[static_cast<size_t>(i * m + j)];
  return s;
}

// f16/bf16: widen both operands, sgemm in f32, round each result once.
template <typename T>
dnnl_status_t half_gemm(const Mat<const T>& a, const Mat<const T>& b, const Mat<T>& c,
                        bool threaded) {
  const int64_t n = a.rows, k = a.cols, m = b.cols;
  std::vector<float> af(static_cast<size_t>(n * k)), bf(static_cast<size_t>(k * m)),
      cf(static_cast<size_t>(n * m));
  pack_f32(a, af.data());
  pack_f32(b, bf.data());
  const dnnl_status_t s =
      sgemm({af.data(), n, k, k, 1}, {bf.data(), k, m, m, 1}, {cf.data(), n, m, m, 1}, threaded);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) c.at(i, j) = T(cf[static_cast<size_t>(i * m + j)]);
  return s;
}

// f64, integers and the f32/f16/bf16 products that must sum in double: B packed contiguous
// in the accumulator type, then for each row of A a row of accumulators updated by axpy
// over k (unit stride, so it vectorises). Floating types accumulate in double, in the
// reference's order (products of f32 values are exact in double), and round once; integers
// in uint64 (exact modulo 2^64, hence modulo 2^bits of T).
template <typename T>
void loop_gemm(const Mat<const T>& a, const Mat<const T>& b, const Mat<T>& c, bool threaded) {
  using Acc = std::conditional_t<kIsFloating<T>, double, uint64_t>;
  const int64_t n = a.rows, k = a.cols, m = b.cols;
  if (n == 0 || m == 0) return;
  auto to_acc = [](T v) {
    if constexpr (kIsFloating<T>)
      return static_cast<double>(widen(v));
    else
      return static_cast<uint64_t>(static_cast<int64_t>(v));
  };
  std::vector<Acc> bp(static_cast<size_t>(k * m));
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < m; ++j) bp[static_cast<size_t>(p * m + j)] = to_acc(b.at(p, j));
  constexpr int64_t kCols = 512;  // accumulators kept in L1
  const int threads = threaded ? omp_get_max_threads() : 1;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1 && n > 1)
  for (int64_t i = 0; i < n; ++i) {
    Acc acc[kCols];
    for (int64_t j0 = 0; j0 < m; j0 += kCols) {
      const int64_t w = std::min(kCols, m - j0);
      std::fill(acc, acc + w, Acc(0));
      for (int64_t p = 0; p < k; ++p) {
        const Acc x = to_acc(a.at(i, p));
        const Acc* brow = bp.data() + p * m + j0;
        for (int64_t j = 0; j < w; ++j) acc[j] += x * brow[j];
      }
      for (int64_t j = 0; j < w; ++j) c.at(i, j0 + j) = static_cast<T>(acc[j]);
    }
  }
}

// The largest |x| over the elements of `m`; +inf when one is inf or NaN. Unit-stride f32
// rows (the common case: a matmul's operands) take the SIMD loop, which is about as fast
// as reading them; a scalar loop here doubled the time of a 64^3 product.
template <typename T>
double abs_max(const Mat<const T>& m) {
  if (std::is_same_v<T, float> && m.cs == 1 && m.rs == m.cols) {  // contiguous: one run
    const float max = simd_abs_max_f32(reinterpret_cast<const float*>(m.p), m.rows * m.cols);
    return max <= std::numeric_limits<float>::max() ? max : std::numeric_limits<double>::infinity();
  }
  float max = 0.0f;
  for (int64_t i = 0; i < m.rows; ++i) {
    float row_max = 0.0f;
    if (std::is_same_v<T, float> && (m.cs == 1 || m.cols == 1)) {
      row_max = simd_abs_max_f32(reinterpret_cast<const float*>(m.p + i * m.rs), m.cols);
    } else {
      for (int64_t j = 0; j < m.cols; ++j) {
        const float x = std::fabs(static_cast<float>(widen(m.at(i, j))));
        row_max = x > row_max || std::isnan(x) ? x : row_max;
        if (std::isnan(x)) break;
      }
    }
    if (!(row_max <= std::numeric_limits<float>::max()))  // inf or NaN
      return std::numeric_limits<double>::infinity();
    max = std::max(max, row_max);
  }
  return max;
}

// Whether oneDNN's f32 GEMM gives the reference's result (a double sum, rounded once) for
// this product, whatever kernel its ISA dispatch picked. Two kinds of input do not keep it:
//  - an inf or NaN element: oneDNN's SSE4.1 kernels lose NaNs (matmul/f16/
//    special_values_4x8_8x4 gave -inf where 0 * inf or a NaN makes NaN);
//  - finite values large enough that an f32 partial sum can overflow: -inf + (a + b) is
//    -inf in double but NaN in f32 when a + b overflows to +inf first, and whether it does
//    depends on the kernel's order of additions (matmul/bf16/special_values_4x8_8x4 gave
//    NaN under the AVX2 and SSE4.1 kernels, -inf under AVX-512). Every partial sum is
//    bounded by k * max|a| * max|b| (times (1 + u)^k for its roundings, < 1.3 for any k
//    below 2^22: the factor 2 covers it).
// Such products sum in double instead (loop_gemm), exactly as the reference does.
// docs/cpu.md, "ISA levels", states the rule.
template <typename T>
bool onednn_keeps_semantics(const Mat<const T>& a, const Mat<const T>& b) {
  const double bound = static_cast<double>(a.cols) * abs_max(a) * abs_max(b);
  return bound <= 0.5 * static_cast<double>(std::numeric_limits<float>::max());
}

template <typename T>
dnnl_status_t gemm(const Mat<const T>& a, const Mat<const T>& b, const Mat<T>& c, bool threaded) {
  if constexpr (std::is_same_v<T, float> || kIsHalf<T>) {
    if (!onednn_keeps_semantics(a, b)) {
      loop_gemm(a, b, c, threaded);
      return dnnl_success;
    }
  }
  if constexpr (std::is_same_v<T, float>) {
    return sgemm(a, b, c, threaded);
  } else if constexpr (kIsHalf<T>) {
    return half_gemm(a, b, c, threaded);
  } else {
    loop_gemm(a, b, c, threaded);
    return dnnl_success;
  }
}

// Returns oneDNN's first failure status (dnnl_success when none).
template <typename T>
dnnl_status_t matmul_typed(const StridedView& a, const StridedView& b, const StridedView& out) {
  const int32_t nd = out.ndim, nb = nd - 2;
  const int64_t n = a.shape[nd - 2], k = a.shape[nd - 1], m = b.shape[nd - 1];
  int64_t batches = 1;
  for (int32_t d = 0; d < nb; ++d) batches *= out.shape[d];
  // Element offsets of batch `t` in the three tensors.
  auto offsets = [&](int64_t t, int64_t& ao, int64_t& bo, int64_t& oo) {
    ao = bo = oo = 0;
    for (int32_t d = nb; d-- > 0;) {
      const int64_t i = t % out.shape[d];
      t /= out.shape[d];
      ao += i * a.strides[d];
      bo += i * b.strides[d];
      oo += i * out.strides[d];
    }
  };
  auto one = [&](int64_t t, bool threaded) {
    int64_t ao, bo, oo;
    offsets(t, ao, bo, oo);
    return gemm<T>({a.data<const T>() + ao, n, k, a.strides[nd - 2], a.strides[nd - 1]},
                   {b.data<const T>() + bo, k, m, b.strides[nd - 2], b.strides[nd - 1]},
                   {out.data<T>() + oo, n, m, out.strides[nd - 2], out.strides[nd - 1]}, threaded);
  };
  int failure = dnnl_success;
  const bool small = n * m * k < kSmallProduct;
  if (batches > 1 && small) {
#pragma omp parallel for schedule(static) reduction(max : failure)
    for (int64_t t = 0; t < batches; ++t) failure = std::max<int>(failure, one(t, false));
  } else {
    for (int64_t t = 0; t < batches && failure == dnnl_success; ++t) failure = one(t, !small);
  }
  return static_cast<dnnl_status_t>(failure);
}

void matmul_kernel(StridedView a, StridedView b, StridedView out) {
  sdk::check_matmul(a, b, out);
  const bool uses_sgemm =
      a.dtype == BP_DTYPE_F32 || a.dtype == BP_DTYPE_F16 || a.dtype == BP_DTYPE_BF16;
  if (uses_sgemm && !onednn().sgemm)
    throw Error(BP_ERR_UNSUPPORTED, std::string("matmul: ") + dtype_name(a.dtype) +
                                        " needs oneDNN's dnnl_sgemm: " + onednn().problem);
  dnnl_status_t s = dnnl_success;
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) s = matmul_typed<T>(a, b, out);
  });
  if (s == dnnl_out_of_memory) throw Error(BP_ERR_OUT_OF_MEMORY, "matmul: oneDNN is out of memory");
  if (s != dnnl_success)
    throw Error(BP_ERR_INTERNAL, "matmul: dnnl_sgemm failed with status " + std::to_string(s));
}

}  // namespace

void register_linalg_kernels(sdk::Registrar& r) {
  r.kernel<matmul_kernel>("matmul", sdk::kAllButBool);
}

}  // namespace bp::cpu
