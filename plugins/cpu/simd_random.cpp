// SIMD kernels declared in simd_random.hpp. Highway's foreach_target re-includes this file
// once per x86 target; HWY_DYNAMIC_DISPATCH picks the best one the running CPU supports.
// Philox's 32x32 -> 64-bit products are MulEven of the low halves of 64-bit lanes, so one
// element's four words live in the low halves of four u64 vectors.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_random.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <backplane/sdk/philox.hpp>

#include <cstdint>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The SDK's steps for elements [j, n): the tails, and the whole run on Highway's scalar
// target, whose one lane cannot hold two 32-bit halves.
void UniformTailF32(float* out, int64_t j, int64_t n, uint64_t seed, uint64_t first, float lo,
                    float span) {
  for (; j < n; ++j) {
    const uint32_t word = sdk::philox::element_block(seed, first, static_cast<uint64_t>(j))[0];
    const float x = static_cast<float>(word & ((1u << 24) - 1)) * (1.0f / (1u << 24));
    out[j] = x * span + lo;
  }
}
void UniformTailF64(double* out, int64_t j, int64_t n, uint64_t seed, uint64_t first, double from,
                    double span) {
  for (; j < n; ++j) {
    const sdk::philox::Block b = sdk::philox::element_block(seed, first, static_cast<uint64_t>(j));
    const double x =
        static_cast<double>(sdk::philox::low64(b) & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
    out[j] = x * span + from;
  }
}

#if HWY_TARGET == HWY_SCALAR
void UniformF32(float* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, float lo,
                float span) {
  UniformTailF32(out, 0, n, seed, first, lo, span);
}
void UniformF64(double* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double from,
                double span) {
  UniformTailF64(out, 0, n, seed, first, from, span);
}
#else
using D64 = hn::ScalableTag<uint64_t>;

// Words 0 and 1 of the blocks of counters first, first + 1, ... (one per lane).
struct Words01 {
  hn::Vec<D64> w0, w1;
};

HWY_INLINE Words01 PhiloxWords01(D64 d, uint64_t seed, uint64_t first) {
  const hn::Repartition<uint32_t, D64> d32;
  const auto low = hn::Set(d, 0xFFFFFFFFull);
  const auto counter = hn::Add(hn::Iota(d, 0), hn::Set(d, first));  // wraps as the SDK's
  auto w0 = hn::And(counter, low), w1 = hn::ShiftRight<32>(counter);
  auto w2 = hn::Zero(d), w3 = hn::Zero(d);
  auto key0 = static_cast<uint32_t>(seed), key1 = static_cast<uint32_t>(seed >> 32);
  const auto m0 = hn::Set(d32, sdk::philox::kMultiplier0);
  const auto m1 = hn::Set(d32, sdk::philox::kMultiplier1);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += sdk::philox::kWeyl0;
      key1 += sdk::philox::kWeyl1;
    }
    const auto product0 = hn::MulEven(hn::BitCast(d32, w0), m0);  // 64-bit products
    const auto product1 = hn::MulEven(hn::BitCast(d32, w2), m1);
    const auto next0 = hn::Xor(hn::Xor(hn::ShiftRight<32>(product1), w1), hn::Set(d, key0));
    const auto next2 = hn::Xor(hn::Xor(hn::ShiftRight<32>(product0), w3), hn::Set(d, key1));
    w1 = hn::And(product1, low);
    w3 = hn::And(product0, low);
    w0 = next0;
    w2 = next2;
  }
  return {w0, w1};
}

void UniformF32(float* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, float lo,
                float span) {
  const D64 d;
  const hn::Rebind<int64_t, D64> di;
  const hn::Rebind<double, D64> dd;
  const hn::Rebind<float, D64> df;  // half-width: one float per 64-bit lane
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto mask = hn::Set(d, (uint64_t{1} << 24) - 1);
  const auto scale = hn::Set(df, 1.0f / (1u << 24));
  const auto vspan = hn::Set(df, span), vlo = hn::Set(df, lo);
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const Words01 w = PhiloxWords01(d, seed, first + static_cast<uint64_t>(j));
    // The 24-bit integer is exact in double and in float; then the SDK's float steps.
    const auto k = hn::DemoteTo(df, hn::ConvertTo(dd, hn::BitCast(di, hn::And(w.w0, mask))));
    const auto x = hn::Mul(k, scale);
    hn::StoreU(hn::Add(hn::Mul(x, vspan), vlo), df, out + j);
  }
  UniformTailF32(out, j, n, seed, first, lo, span);
}

void UniformF64(double* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double from,
                double span) {
  const D64 d;
  const hn::Rebind<int64_t, D64> di;
  const hn::Rebind<double, D64> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto mask = hn::Set(d, (uint64_t{1} << 53) - 1);
  const auto scale = hn::Set(dd, 0x1p-53);
  const auto vspan = hn::Set(dd, span), vfrom = hn::Set(dd, from);
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const Words01 w = PhiloxWords01(d, seed, first + static_cast<uint64_t>(j));
    const auto bits = hn::And(hn::Or(w.w0, hn::ShiftLeft<32>(w.w1)), mask);
    const auto x = hn::Mul(hn::ConvertTo(dd, hn::BitCast(di, bits)), scale);
    hn::StoreU(hn::Add(hn::Mul(x, vspan), vfrom), dd, out + j);
  }
  UniformTailF64(out, j, n, seed, first, from, span);
}
#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace bp::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "simd_random.hpp"

namespace bp::cpu {

HWY_EXPORT(UniformF32);
HWY_EXPORT(UniformF64);

void simd_uniform_f32(float* out, int64_t n, uint64_t seed, uint64_t first_counter, float lo,
                      float span) {
  HWY_DYNAMIC_DISPATCH(UniformF32)(out, n, seed, first_counter, lo, span);
}
void simd_uniform_f64(double* out, int64_t n, uint64_t seed, uint64_t first_counter, double from,
                      double span) {
  HWY_DYNAMIC_DISPATCH(UniformF64)(out, n, seed, first_counter, from, span);
}

}  // namespace bp::cpu
#endif  // HWY_ONCE
