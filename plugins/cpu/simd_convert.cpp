// SIMD conversions between f16/bf16 and f32 (simd.hpp), which the f16/bf16 elementwise
// kernels run on every block. Both directions are exact or correctly rounded (nearest,
// ties to even; NaN stays NaN; overflow gives inf), bit for bit what backplane/sdk/half.hpp
// computes. f16 uses the F16C instructions (vcvtph2ps / vcvtps2ph with round-to-nearest),
// present on every AVX2 and AVX-512 target; Highway's emulation for older targets rounds
// toward zero, so those targets use the scalar sdk conversions instead. bf16 is integer
// arithmetic on every target.
#include "simd.hpp"

#include <backplane/sdk/half.hpp>

#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_convert.cpp"
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS HWY_SSSE3
#endif
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Whether this target converts f16 in hardware (F16C).
#if (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && \
    !defined(HWY_DISABLE_F16C)
constexpr bool kHardwareF16 = true;
#else
constexpr bool kHardwareF16 = false;
#endif

void HalfToFloatImpl(const uint16_t* in, float* out, int64_t n) {
  int64_t i = 0;
  if constexpr (kHardwareF16) {
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(hn::PromoteTo(df, hn::LoadU(dh, reinterpret_cast<const hwy::float16_t*>(in + i))),
                 df, out + i);
  }
  for (; i < n; ++i) out[i] = sdk::half_bits_to_float(in[i]);
}

void FloatToHalfImpl(const float* in, uint16_t* out, int64_t n) {
  int64_t i = 0;
  if constexpr (kHardwareF16) {
    const hn::ScalableTag<float> df;
    const hn::Rebind<hwy::float16_t, decltype(df)> dh;
    const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
    for (; i + lanes <= n; i += lanes)
      hn::StoreU(hn::DemoteTo(dh, hn::LoadU(df, in + i)), dh,
                 reinterpret_cast<hwy::float16_t*>(out + i));
  }
  for (; i < n; ++i) out[i] = sdk::float_to_half_bits(in[i]);
}

// bf16 is the top half of an f32: widening is a shift.
void BFloat16ToFloatImpl(const uint16_t* in, float* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto wide = hn::PromoteTo(du32, hn::LoadU(du16, in + i));
    hn::StoreU(hn::BitCast(df, hn::ShiftLeft<16>(wide)), df, out + i);
  }
  for (; i < n; ++i) out[i] = sdk::bfloat16_bits_to_float(in[i]);
}

// Round to nearest even on the bits (sdk::float_to_bfloat16_bits, lane by lane): add
// 0x7fff plus the lowest kept bit, keep the top half; NaN keeps its top half, made quiet.
void FloatToBFloat16Impl(const float* in, uint16_t* out, int64_t n) {
  const hn::ScalableTag<float> df;
  const hn::RebindToUnsigned<decltype(df)> du32;
  const hn::RebindToSigned<decltype(df)> di32;
  const hn::Rebind<uint16_t, decltype(df)> du16;
  const int64_t lanes = static_cast<int64_t>(hn::Lanes(df));
  const auto bias = hn::Set(du32, 0x7fffu), one = hn::Set(du32, 1u), quiet = hn::Set(du32, 0x40u);
  int64_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    const auto v = hn::LoadU(df, in + i);
    const auto bits = hn::BitCast(du32, v);
    const auto top = hn::ShiftRight<16>(bits);
    const auto rounded = hn::ShiftRight<16>(hn::Add(bits, hn::Add(bias, hn::And(top, one))));
    const auto r = hn::IfThenElse(hn::RebindMask(du32, hn::IsNaN(v)), hn::Or(top, quiet), rounded);
    // Every lane is below 2^16, so the saturating demotion is exact.
    hn::StoreU(hn::DemoteTo(du16, hn::BitCast(di32, r)), du16, out + i);
  }
  for (; i < n; ++i) out[i] = sdk::float_to_bfloat16_bits(in[i]);
}

}  // namespace HWY_NAMESPACE
}  // namespace bp::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bp::cpu::simd {

HWY_EXPORT(HalfToFloatImpl);
HWY_EXPORT(FloatToHalfImpl);
HWY_EXPORT(BFloat16ToFloatImpl);
HWY_EXPORT(FloatToBFloat16Impl);

void half_to_float(const uint16_t* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(HalfToFloatImpl)(in, out, n);
}
void float_to_half(const float* in, uint16_t* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(FloatToHalfImpl)(in, out, n);
}
void bfloat16_to_float(const uint16_t* in, float* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(BFloat16ToFloatImpl)(in, out, n);
}
void float_to_bfloat16(const float* in, uint16_t* out, int64_t n) {
  HWY_DYNAMIC_DISPATCH(FloatToBFloat16Impl)(in, out, n);
}

}  // namespace bp::cpu::simd
#endif
