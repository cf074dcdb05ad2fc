// SIMD inner loops of the binary arithmetic kernels (simd.hpp): contiguous or broadcast
// f32/f64 rows, compiled once per Highway target and dispatched at run time. Large
// contiguous outputs are written with streaming (non-temporal) stores, which skip the
// read-for-ownership of the destination: a memory-bound add then moves 3 bytes per output
// byte instead of 4.
#include "simd.hpp"

#include <cmath>
#include <cstdint>

// This file is compiled once per target: foreach_target.h re-includes it.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_binary.cpp"
// SSSE3 adds nothing over the baseline for these loops; dropping it saves compile time.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#include <hwy/cache_control.h>
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Rows at least this long (bytes of output per call) are streamed past the caches: far
// larger than the last-level cache share of one thread, so the result would be evicted
// before anyone reads it anyway.
constexpr int64_t kStreamBytes = int64_t{8} << 20;

struct AddOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V) const {
    return hn::Add(x, y);
  }
};
struct SubOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V) const {
    return hn::Sub(x, y);
  }
};
// Whether this target has fused multiply-add instructions. Highway 1.0 emulates MulAdd as
// a multiply and an add on the others (SSE4, the scalar baseline), which rounds twice and
// overflows where the fused form does not: inf - alpha * big is inf fused, but
// inf - inf = NaN when alpha * big overflows first (tests/cpu/test_cpu_binary.cpp caught it
// under BACKPLANE_CPU_ISA=sse4). Those targets use std::fma, one rounding, so every ISA level
// gives the same bits (docs/cpu.md, "ISA levels").
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
constexpr bool kNativeFma = true;
#else
constexpr bool kNativeFma = false;
#endif

struct AddScaledOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V alpha) const {
    return hn::MulAdd(alpha, y, x);
  }
};
struct SubScaledOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V alpha) const {
    return hn::NegMulAdd(alpha, y, x);
  }
};

// a + alpha * b (kSign = 1) or a - alpha * b (kSign = -1) with one rounding, element by
// element, for the targets without FMA.
template <int kSign, typename T>
HWY_NOINLINE void ScaledByFma(const T* a, int64_t a_step, const T* b, int64_t b_step, T* out,
                              int64_t n, T alpha) {
  const T signed_alpha = kSign > 0 ? alpha : -alpha;
  for (int64_t i = 0; i < n; ++i) out[i] = std::fma(signed_alpha, b[i * b_step], a[i * a_step]);
}
struct MulOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V) const {
    return hn::Mul(x, y);
  }
};
struct DivOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V) const {
    return hn::Div(x, y);
  }
};
// IEEE 754-2019 maximum/minimum: NaN wins (the first NaN operand), and of two equal values
// the bitwise and (maximum: +0 over -0) or or (minimum: -0 over +0) of the two.
template <bool kMax>
struct MaxMinOp {
  template <class D, class V>
  HWY_INLINE V operator()(D, V x, V y, V) const {
    V r = kMax ? hn::Max(x, y) : hn::Min(x, y);
    r = hn::IfThenElse(hn::Eq(x, y), kMax ? hn::And(x, y) : hn::Or(x, y), r);
    r = hn::IfThenElse(hn::IsNaN(y), y, r);
    return hn::IfThenElse(hn::IsNaN(x), x, r);
  }
};

template <bool kAVec, bool kBVec, class Op, typename T>
HWY_INLINE void BinaryRow(Op op, const T* a, const T* b, T* out, int64_t n, T alpha) {
  if (n <= 0) return;
  const hn::ScalableTag<T> d;
  const hn::CappedTag<T, 1> d1;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto va0 = hn::Set(d, a[0]), vb0 = hn::Set(d, b[0]), valpha = hn::Set(d, alpha);
  auto load_a = [&](int64_t i) { return kAVec ? hn::LoadU(d, a + i) : va0; };
  auto load_b = [&](int64_t i) { return kBVec ? hn::LoadU(d, b + i) : vb0; };
  auto one = [&](int64_t i) {
    const auto x = hn::Set(d1, kAVec ? a[i] : a[0]);
    const auto y = hn::Set(d1, kBVec ? b[i] : b[0]);
    hn::StoreU(op(d1, x, y, hn::Set(d1, alpha)), d1, out + i);
  };
  int64_t i = 0;
  if (n * static_cast<int64_t>(sizeof(T)) >= kStreamBytes) {
    // Streaming stores need aligned addresses: single elements up to the first boundary.
    const uintptr_t align = static_cast<uintptr_t>(lanes) * sizeof(T);
    for (; i < n && reinterpret_cast<uintptr_t>(out + i) % align != 0; ++i) one(i);
    for (; i + lanes <= n; i += lanes) hn::Stream(op(d, load_a(i), load_b(i), valpha), d, out + i);
    hwy::FlushStream();
  } else {
    for (; i + 2 * lanes <= n; i += 2 * lanes) {
      const auto r0 = op(d, load_a(i), load_b(i), valpha);
      const auto r1 = op(d, load_a(i + lanes), load_b(i + lanes), valpha);
      hn::StoreU(r0, d, out + i);
      hn::StoreU(r1, d, out + i + lanes);
    }
    for (; i + lanes <= n; i += lanes) hn::StoreU(op(d, load_a(i), load_b(i), valpha), d, out + i);
  }
  for (; i < n; ++i) one(i);
}

template <class Op, typename T>
HWY_INLINE void BinaryBySteps(Op op, const T* a, int64_t a_step, const T* b, int64_t b_step, T* out,
                              int64_t n, T alpha) {
  if (a_step && b_step)
    BinaryRow<true, true>(op, a, b, out, n, alpha);
  else if (a_step)
    BinaryRow<true, false>(op, a, b, out, n, alpha);
  else if (b_step)
    BinaryRow<false, true>(op, a, b, out, n, alpha);
  else
    BinaryRow<false, false>(op, a, b, out, n, alpha);
}

template <typename T>
HWY_INLINE void BinaryAny(int op, const T* a, int64_t a_step, const T* b, int64_t b_step, T* out,
                          int64_t n, T alpha) {
  switch (static_cast<Binary>(op)) {
    case Binary::kAdd:
      return BinaryBySteps(AddOp{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kSub:
      return BinaryBySteps(SubOp{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kAddScaled:
      if constexpr (!kNativeFma) return ScaledByFma<1>(a, a_step, b, b_step, out, n, alpha);
      return BinaryBySteps(AddScaledOp{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kSubScaled:
      if constexpr (!kNativeFma) return ScaledByFma<-1>(a, a_step, b, b_step, out, n, alpha);
      return BinaryBySteps(SubScaledOp{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kMul:
      return BinaryBySteps(MulOp{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kDiv:
      return BinaryBySteps(DivOp{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kMaximum:
      return BinaryBySteps(MaxMinOp<true>{}, a, a_step, b, b_step, out, n, alpha);
    case Binary::kMinimum:
      return BinaryBySteps(MaxMinOp<false>{}, a, a_step, b, b_step, out, n, alpha);
  }
}

void BinaryF32(int op, const float* a, int64_t a_step, const float* b, int64_t b_step, float* out,
               int64_t n, float alpha) {
  BinaryAny(op, a, a_step, b, b_step, out, n, alpha);
}
void BinaryF64(int op, const double* a, int64_t a_step, const double* b, int64_t b_step,
               double* out, int64_t n, double alpha) {
  BinaryAny(op, a, a_step, b, b_step, out, n, alpha);
}
int64_t CurrentTarget() {
  return HWY_TARGET;
}

}  // namespace HWY_NAMESPACE
}  // namespace bp::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bp::cpu::simd {

HWY_EXPORT(BinaryF32);
HWY_EXPORT(BinaryF64);
HWY_EXPORT(CurrentTarget);

void binary(Binary op, const float* a, int64_t a_step, const float* b, int64_t b_step, float* out,
            int64_t n, float alpha) {
  if (n <= kShortRow && short_binary(op, a, a_step, b, b_step, out, n, alpha)) return;
  HWY_DYNAMIC_DISPATCH(BinaryF32)(static_cast<int>(op), a, a_step, b, b_step, out, n, alpha);
}
void binary(Binary op, const double* a, int64_t a_step, const double* b, int64_t b_step,
            double* out, int64_t n, double alpha) {
  if (n <= kShortRow && short_binary(op, a, a_step, b, b_step, out, n, alpha)) return;
  HWY_DYNAMIC_DISPATCH(BinaryF64)(static_cast<int>(op), a, a_step, b, b_step, out, n, alpha);
}
const char* target_name() {
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CurrentTarget)());
}

}  // namespace bp::cpu::simd
#endif
