// SIMD kernels declared in simd_reduce.hpp. Highway's foreach_target re-includes this file
// once per x86 target (SSE4, AVX2, AVX-512, ...); HWY_DYNAMIC_DISPATCH picks the best one
// the running CPU supports, so the plugin needs no -march flag and still uses AVX-512.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_reduce.cpp"
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>
// Per-target header: included after highway.h on every pass of foreach_target.
#include <hwy/contrib/math/math-inl.h>

#include <cmath>
#include <cstdint>
#include <limits>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Elements per block whose vector partial sums are folded into one scalar. With 4 vector
// accumulators each lane adds at most kBlock / (4 * lanes) elements before the fold.
constexpr int64_t kBlock = 2048;

// Sums over more than kStreamBytes cannot all sit in a core's L2 and stream from L3 or
// memory; there the loop prefetches kAhead bytes ahead (one per kLine-byte cache line), which
// measured ~5-9% faster on the [1024, 4096] f32 bench (Zen 5, 16 MiB), while on L2-resident
// data the extra prefetches only cost issue slots (~5-10% slower at [64, 4096]).
constexpr int64_t kStreamBytes = int64_t{1} << 20, kAhead = 4096, kLine = 64;

template <bool kPrefetch, typename T>
T SumBlock(const T* HWY_RESTRICT p, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    if constexpr (kPrefetch)
      for (int64_t j = 0; j < 4 * lanes; j += kLine / static_cast<int64_t>(sizeof(T)))
        hwy::Prefetch(p + i + j + kAhead / static_cast<int64_t>(sizeof(T)));
    a0 = hn::Add(a0, hn::LoadU(d, p + i));
    a1 = hn::Add(a1, hn::LoadU(d, p + i + lanes));
    a2 = hn::Add(a2, hn::LoadU(d, p + i + 2 * lanes));
    a3 = hn::Add(a3, hn::LoadU(d, p + i + 3 * lanes));
  }
  for (; i + lanes <= n; i += lanes) a0 = hn::Add(a0, hn::LoadU(d, p + i));
  T tail = 0;
  for (; i < n; ++i) tail += p[i];
  const auto all = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
  return hn::GetLane(hn::SumOfLanes(d, all)) + tail;
}

// The same for the squares (layer_norm's variance, rms_norm's mean square).
template <typename T>
T SumSqBlock(const T* HWY_RESTRICT p, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  auto a0 = hn::Zero(d), a1 = hn::Zero(d), a2 = hn::Zero(d), a3 = hn::Zero(d);
  int64_t i = 0;
  for (; i + 4 * lanes <= n; i += 4 * lanes) {
    const auto v0 = hn::LoadU(d, p + i), v1 = hn::LoadU(d, p + i + lanes);
    const auto v2 = hn::LoadU(d, p + i + 2 * lanes), v3 = hn::LoadU(d, p + i + 3 * lanes);
    a0 = hn::MulAdd(v0, v0, a0);
    a1 = hn::MulAdd(v1, v1, a1);
    a2 = hn::MulAdd(v2, v2, a2);
    a3 = hn::MulAdd(v3, v3, a3);
  }
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(d, p + i);
    a0 = hn::MulAdd(v, v, a0);
  }
  T tail = 0;
  for (; i < n; ++i) tail += p[i] * p[i];
  const auto all = hn::Add(hn::Add(a0, a1), hn::Add(a2, a3));
  return hn::GetLane(hn::SumOfLanes(d, all)) + tail;
}

// Pairwise over blocks: halves split at a block boundary.
template <bool kSquares, bool kPrefetch = false, typename T>
T SumPairwiseOf(const T* HWY_RESTRICT p, int64_t n) {
  if (n <= kBlock) return kSquares ? SumSqBlock(p, n) : SumBlock<kPrefetch>(p, n);
  const int64_t half = (n / kBlock + 1) / 2 * kBlock;
  return SumPairwiseOf<kSquares, kPrefetch>(p, half) +
         SumPairwiseOf<kSquares, kPrefetch>(p + half, n - half);
}
template <typename T>
T SumPairwise(const T* HWY_RESTRICT p, int64_t n) {
  return SumPairwiseOf<false>(p, n);
}
// The same sum, prefetching when it streams (`bytes` in all, of this row and the ones after).
template <typename T>
T SumPairwiseSized(const T* HWY_RESTRICT p, int64_t n, int64_t bytes) {
  return bytes > kStreamBytes ? SumPairwiseOf<false, true>(p, n) : SumPairwiseOf<false>(p, n);
}

// Rows summed one after another, each exactly as SumPairwise (the same blocks, so the same
// result as simd_sum_f32 per row); the point is the single dispatch for all of them.
template <typename T>
void SumRows(const T* HWY_RESTRICT p, int64_t n, int64_t stride, int64_t rows, T* out,
             int64_t out_stride) {
  const int64_t bytes = rows * n * static_cast<int64_t>(sizeof(T));
  for (int64_t r = 0; r < rows; ++r)
    out[r * out_stride] = SumPairwiseSized(p + r * stride, n, bytes);
}
void SumRowsF32(const float* p, int64_t n, int64_t stride, int64_t rows, float* out,
                int64_t out_stride) {
  SumRows(p, n, stride, rows, out, out_stride);
}
void SumRowsF64(const double* p, int64_t n, int64_t stride, int64_t rows, double* out,
                int64_t out_stride) {
  SumRows(p, n, stride, rows, out, out_stride);
}

float SumSqF32(const float* p, int64_t n) {
  return SumPairwiseOf<true>(p, n);
}
double SumSqF64(const double* p, int64_t n) {
  return SumPairwiseOf<true>(p, n);
}

float SumF32(const float* p, int64_t n) {
  return SumPairwiseSized(p, n, n * static_cast<int64_t>(sizeof(float)));
}
double SumF64(const double* p, int64_t n) {
  return SumPairwiseSized(p, n, n * static_cast<int64_t>(sizeof(double)));
}

// Max/Min over the lanes, with a separate "saw a NaN" mask because the vector min/max
// instructions do not propagate NaN in the way PyTorch does. IsNaN, not Ne(v, v): Highway
// 1.0's AVX-512 Ne is an ordered compare, false for NaN.
// kAbs (with kMax): the largest |x|.
template <bool kMax, typename T, bool kAbs = false>
T Extreme(const T* HWY_RESTRICT p, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const T init = kMax ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  auto m0 = hn::Set(d, init), m1 = m0;
  auto nan = hn::Zero(d);  // NaN lanes become all-ones bits
  int64_t i = 0;
  auto load = [&](int64_t at) {
    const auto v = hn::LoadU(d, p + at);
    return kAbs ? hn::Abs(v) : v;
  };
  for (; i + 2 * lanes <= n; i += 2 * lanes) {
    const auto v0 = load(i), v1 = load(i + lanes);
    nan = hn::Or(nan, hn::Or(hn::VecFromMask(d, hn::IsNaN(v0)), hn::VecFromMask(d, hn::IsNaN(v1))));
    m0 = kMax ? hn::Max(m0, v0) : hn::Min(m0, v0);
    m1 = kMax ? hn::Max(m1, v1) : hn::Min(m1, v1);
  }
  for (; i + lanes <= n; i += lanes) {
    const auto v = load(i);
    nan = hn::Or(nan, hn::VecFromMask(d, hn::IsNaN(v)));
    m0 = kMax ? hn::Max(m0, v) : hn::Min(m0, v);
  }
  const auto m = kMax ? hn::Max(m0, m1) : hn::Min(m0, m1);
  T best = hn::GetLane(kMax ? hn::MaxOfLanes(d, m) : hn::MinOfLanes(d, m));
  if (!hn::AllFalse(d, hn::MaskFromVec(nan))) return std::numeric_limits<T>::quiet_NaN();
  for (; i < n; ++i) {
    const T x = kAbs ? std::fabs(p[i]) : p[i];
    if (std::isnan(x)) return x;
    if (kMax ? x > best : x < best) best = x;
  }
  return best;
}

float MaxF32(const float* p, int64_t n) {
  return Extreme<true>(p, n);
}
float MinF32(const float* p, int64_t n) {
  return Extreme<false>(p, n);
}
float AbsMaxF32(const float* p, int64_t n) {
  return Extreme<true, float, true>(p, n);
}
double MaxF64(const double* p, int64_t n) {
  return Extreme<true>(p, n);
}
double MinF64(const double* p, int64_t n) {
  return Extreme<false>(p, n);
}

// e[i] = exp(x[i] - m) and their sum (pairwise over blocks, as SumPairwise). x - m is
// clamped to -max so that Highway's Exp, valid on [-max, 104] (f32), sees no -inf and
// returns 0 there, as exp(-inf).
template <typename T>
T ExpShift(const T* HWY_RESTRICT x, T m, T* HWY_RESTRICT e, int64_t n) {
  const hn::ScalableTag<T> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vm = hn::Set(d, m);
  const auto lo = hn::Set(d, -std::numeric_limits<T>::max());
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Exp(d, hn::Max(hn::Sub(hn::LoadU(d, x + i), vm), lo)), d, e + i);
  for (; i < n; ++i) e[i] = std::exp(x[i] - m);
  return SumPairwise(e, n);
}

float ExpShiftF32(const float* x, float m, float* e, int64_t n) {
  return ExpShift(x, m, e, n);
}
double ExpShiftF64(const double* x, double m, double* e, int64_t n) {
  return ExpShift(x, m, e, n);
}

// No HWY_RESTRICT: x and y may be the same row.
void DivF32(const float* x, float s, float* y, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto vs = hn::Set(d, s);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) hn::StoreU(hn::Div(hn::LoadU(d, x + i), vs), d, y + i);
  for (; i < n; ++i) y[i] = x[i] / s;
}

void SubSubF32(const float* x, float a, float b, float* y, int64_t n) {
  const hn::ScalableTag<float> d;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto va = hn::Set(d, a), vb = hn::Set(d, b);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes)
    hn::StoreU(hn::Sub(hn::Sub(hn::LoadU(d, x + i), va), vb), d, y + i);
  for (; i < n; ++i) y[i] = (x[i] - a) - b;
}

}  // namespace bp::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "simd_reduce.hpp"

namespace bp::cpu {

HWY_EXPORT(SumF32);
HWY_EXPORT(SumF64);
HWY_EXPORT(SumRowsF32);
HWY_EXPORT(SumRowsF64);
HWY_EXPORT(SumSqF32);
HWY_EXPORT(SumSqF64);
HWY_EXPORT(MaxF32);
HWY_EXPORT(AbsMaxF32);
HWY_EXPORT(MinF32);
HWY_EXPORT(MaxF64);
HWY_EXPORT(MinF64);
HWY_EXPORT(ExpShiftF32);
HWY_EXPORT(ExpShiftF64);
HWY_EXPORT(DivF32);
HWY_EXPORT(SubSubF32);

float simd_sum_f32(const float* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF32)(p, n);
}
double simd_sum_f64(const double* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumF64)(p, n);
}
void simd_sum_rows_f32(const float* p, int64_t n, int64_t stride, int64_t rows, float* out,
                       int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(SumRowsF32)(p, n, stride, rows, out, out_stride);
}
void simd_sum_rows_f64(const double* p, int64_t n, int64_t stride, int64_t rows, double* out,
                       int64_t out_stride) {
  HWY_DYNAMIC_DISPATCH(SumRowsF64)(p, n, stride, rows, out, out_stride);
}
float simd_sum_sq_f32(const float* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumSqF32)(p, n);
}
double simd_sum_sq_f64(const double* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(SumSqF64)(p, n);
}
float simd_max_f32(const float* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxF32)(p, n);
}
float simd_abs_max_f32(const float* p, int64_t n) {
  return n == 0 ? 0.0f : HWY_DYNAMIC_DISPATCH(AbsMaxF32)(p, n);
}
float simd_min_f32(const float* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MinF32)(p, n);
}
double simd_max_f64(const double* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MaxF64)(p, n);
}
double simd_min_f64(const double* p, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(MinF64)(p, n);
}
float simd_exp_shift_f32(const float* x, float m, float* e, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftF32)(x, m, e, n);
}
double simd_exp_shift_f64(const double* x, double m, double* e, int64_t n) {
  return HWY_DYNAMIC_DISPATCH(ExpShiftF64)(x, m, e, n);
}
void simd_div_f32(const float* x, float s, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(DivF32)(x, s, y, n);
}
void simd_sub_sub_f32(const float* x, float a, float b, float* y, int64_t n) {
  HWY_DYNAMIC_DISPATCH(SubSubF32)(x, a, b, y, n);
}

}  // namespace bp::cpu
#endif  // HWY_ONCE
