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
#include <type_traits>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The SDK's steps for elements [j, n): the tails, and the whole run on Highway's scalar
// target, whose one lane cannot hold two 32-bit halves.
template <typename T>
void UniformTail(T* out, int64_t j, int64_t n, uint64_t seed, uint64_t first, double from,
                 double to) {
  for (; j < n; ++j)
    out[j] = sdk::philox::uniform_value<T>(
        sdk::philox::element_block(seed, first, static_cast<uint64_t>(j)), from, to);
}

template <typename T>
void NormalTail(T* out, int64_t j, int64_t n, uint64_t seed, uint64_t first, double mean,
                double std) {
  for (; j < n; ++j)
    out[j] = sdk::philox::normal_value<T>(
        sdk::philox::element_block(seed, first, static_cast<uint64_t>(j)), mean, std);
}

#if HWY_TARGET == HWY_SCALAR
template <typename T>
void Normal(T* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double mean,
            double std) {
  NormalTail(out, 0, n, seed, first, mean, std);
}
void UniformF32(float* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double from,
                double to) {
  UniformTail(out, 0, n, seed, first, from, to);
}
void UniformF64(double* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double from,
                double to) {
  UniformTail(out, 0, n, seed, first, from, to);
}
#else
using D64 = hn::ScalableTag<uint64_t>;

// The four words of the blocks of counters first, first + 1, ... (one per lane, each word in
// the low half of its 64-bit lane).
struct Words {
  hn::Vec<D64> w0, w1, w2, w3;
};

HWY_INLINE Words PhiloxBlock(D64 d, uint64_t seed, uint64_t first) {
  const hn::Repartition<uint32_t, D64> d32;
  const auto low = hn::Set(d, 0xFFFFFFFFull);
  const auto counter = hn::Add(hn::Iota(d, 0), hn::Set(d, first));  // wraps as the SDK's
  Words w{hn::And(counter, low), hn::ShiftRight<32>(counter), hn::Zero(d), hn::Zero(d)};
  auto key0 = static_cast<uint32_t>(seed), key1 = static_cast<uint32_t>(seed >> 32);
  const auto m0 = hn::Set(d32, sdk::philox::kMultiplier0);
  const auto m1 = hn::Set(d32, sdk::philox::kMultiplier1);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += sdk::philox::kWeyl0;
      key1 += sdk::philox::kWeyl1;
    }
    const auto product0 = hn::MulEven(hn::BitCast(d32, w.w0), m0);  // 64-bit products
    const auto product1 = hn::MulEven(hn::BitCast(d32, w.w2), m1);
    w = {hn::Xor(hn::Xor(hn::ShiftRight<32>(product1), w.w1), hn::Set(d, key0)),
         hn::And(product1, low),
         hn::Xor(hn::Xor(hn::ShiftRight<32>(product0), w.w3), hn::Set(d, key1)),
         hn::And(product0, low)};
  }
  return w;
}

void UniformF32(float* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double from,
                double to) {
  // uniform_value<float>'s bounds: from and to rounded to float, their difference once.
  const float lo = static_cast<float>(from), span = static_cast<float>(to) - lo;
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
    const Words w = PhiloxBlock(d, seed, first + static_cast<uint64_t>(j));
    // The 24-bit integer is exact in double and in float; then the SDK's float steps.
    const auto k = hn::DemoteTo(df, hn::ConvertTo(dd, hn::BitCast(di, hn::And(w.w0, mask))));
    const auto x = hn::Mul(k, scale);
    hn::StoreU(hn::Add(hn::Mul(x, vspan), vlo), df, out + j);
  }
  UniformTail(out, j, n, seed, first, from, to);
}

void UniformF64(double* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double from,
                double to) {
  const double span = to - from;
  const D64 d;
  const hn::Rebind<int64_t, D64> di;
  const hn::Rebind<double, D64> dd;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  const auto mask = hn::Set(d, (uint64_t{1} << 53) - 1);
  const auto scale = hn::Set(dd, 0x1p-53);
  const auto vspan = hn::Set(dd, span), vfrom = hn::Set(dd, from);
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const Words w = PhiloxBlock(d, seed, first + static_cast<uint64_t>(j));
    const auto bits = hn::And(hn::Or(w.w0, hn::ShiftLeft<32>(w.w1)), mask);
    const auto x = hn::Mul(hn::ConvertTo(dd, hn::BitCast(di, bits)), scale);
    hn::StoreU(hn::Add(hn::Mul(x, vspan), vfrom), dd, out + j);
  }
  UniformTail(out, j, n, seed, first, from, to);
}
using DD = hn::Rebind<double, D64>;
using DI = hn::Rebind<int64_t, D64>;

// ln(k / 2^53) per lane for k in [1, 2^53]: sdk::philox::log_of_fraction's steps. k is exact
// in double; m is k with its exponent set to 0 (k scaled by 2^-e, exactly).
HWY_INLINE hn::Vec<DD> LogOfFraction(hn::Vec<D64> k) {
  namespace px = sdk::philox;
  const D64 du;
  const DD dd;
  const DI di;
  const auto bits = hn::BitCast(du, hn::ConvertTo(dd, hn::BitCast(di, k)));
  auto e = hn::Sub(hn::BitCast(di, hn::ShiftRight<52>(bits)), hn::Set(di, 1023));
  auto m = hn::BitCast(
      dd, hn::Or(hn::And(bits, hn::Set(du, (uint64_t{1} << 52) - 1)), hn::Set(du, 1023ull << 52)));
  const auto above = hn::Gt(m, hn::Set(dd, px::kSqrt2));
  m = hn::IfThenElse(above, hn::Mul(m, hn::Set(dd, 0.5)), m);
  e = hn::IfThenElse(hn::RebindMask(di, above), hn::Add(e, hn::Set(di, 1)), e);
  const auto one = hn::Set(dd, 1.0);
  const auto s = hn::Div(hn::Sub(m, one), hn::Add(m, one));
  const auto s2 = hn::Mul(s, s);
  auto series = hn::Set(dd, px::kInverseOdd[10]);
  for (int j = 9; j >= 0; --j)
    series = hn::Add(hn::Mul(series, s2), hn::Set(dd, px::kInverseOdd[j]));
  const auto ln_m = hn::Mul(hn::Mul(hn::Set(dd, 2.0), s), series);
  return hn::Add(hn::Mul(hn::ConvertTo(dd, hn::Sub(e, hn::Set(di, 53))), hn::Set(dd, px::kLn2)),
                 ln_m);
}

// cos(2 pi k / 2^53) per lane for k in [0, 2^53): sdk::philox::cos_of_turn_fraction's steps,
// each lane's polynomial (cos or sin) chosen by its quadrant.
HWY_INLINE hn::Vec<DD> CosOfTurnFraction(hn::Vec<D64> k) {
  namespace px = sdk::philox;
  const D64 du;
  const DD dd;
  const DI di;
  const auto quadrant = hn::ShiftRight<51>(k);
  const auto angle = hn::BitCast(di, hn::And(k, hn::Set(du, (uint64_t{1} << 51) - 1)));
  const auto x =
      hn::Mul(hn::Mul(hn::ConvertTo(dd, angle), hn::Set(dd, 0x1p-51)), hn::Set(dd, px::kHalfPi));
  const auto y = hn::Mul(x, x);
  const auto use_sin =
      hn::RebindMask(dd, hn::Eq(hn::And(quadrant, hn::Set(du, 1)), hn::Set(du, 1)));
  auto coefficient = [&](int j) {
    return hn::IfThenElse(use_sin, hn::Set(dd, px::kSin[j]), hn::Set(dd, px::kCos[j]));
  };
  auto p = coefficient(12);
  for (int j = 11; j >= 0; --j) p = hn::Add(hn::Mul(p, y), coefficient(j));
  p = hn::IfThenElse(use_sin, hn::Mul(p, x), p);
  const auto negate = hn::RebindMask(
      dd, hn::Or(hn::Eq(quadrant, hn::Set(du, 1)), hn::Eq(quadrant, hn::Set(du, 2))));
  return hn::IfThenElse(negate, hn::Neg(p), p);
}

// normal_value's mean + std * z per lane, z = sqrt(-2 ln u1) cos(2 pi u2), in double.
HWY_INLINE hn::Vec<DD> NormalValues(const Words& w, double mean, double std) {
  const DD dd;
  const auto u1 =
      hn::Add(hn::ShiftRight<11>(hn::Or(w.w0, hn::ShiftLeft<32>(w.w1))), hn::Set(D64(), 1));
  const auto u2 = hn::ShiftRight<11>(hn::Or(w.w2, hn::ShiftLeft<32>(w.w3)));
  const auto radius = hn::Sqrt(hn::Mul(hn::Set(dd, -2.0), LogOfFraction(u1)));
  const auto z = hn::Mul(radius, CosOfTurnFraction(u2));
  return hn::Add(hn::Set(dd, mean), hn::Mul(hn::Set(dd, std), z));
}

template <typename T>
void Normal(T* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double mean,
            double std) {
  const D64 d;
  const auto lanes = static_cast<int64_t>(hn::Lanes(d));
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes) {
    const auto v = NormalValues(PhiloxBlock(d, seed, first + static_cast<uint64_t>(j)), mean, std);
    if constexpr (std::is_same_v<T, float>)
      hn::StoreU(hn::DemoteTo(hn::Rebind<float, D64>(), v), hn::Rebind<float, D64>(), out + j);
    else
      hn::StoreU(v, DD(), out + j);
  }
  NormalTail(out, j, n, seed, first, mean, std);
}
#endif  // HWY_TARGET == HWY_SCALAR

void NormalF32(float* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double mean,
               double std) {
  Normal(out, n, seed, first, mean, std);
}
void NormalF64(double* HWY_RESTRICT out, int64_t n, uint64_t seed, uint64_t first, double mean,
               double std) {
  Normal(out, n, seed, first, mean, std);
}

}  // namespace bp::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "simd_random.hpp"

namespace bp::cpu {

HWY_EXPORT(UniformF32);
HWY_EXPORT(UniformF64);
HWY_EXPORT(NormalF32);
HWY_EXPORT(NormalF64);

void simd_uniform_f32(float* out, int64_t n, uint64_t seed, uint64_t first_counter, double from,
                      double to) {
  HWY_DYNAMIC_DISPATCH(UniformF32)(out, n, seed, first_counter, from, to);
}
void simd_uniform_f64(double* out, int64_t n, uint64_t seed, uint64_t first_counter, double from,
                      double to) {
  HWY_DYNAMIC_DISPATCH(UniformF64)(out, n, seed, first_counter, from, to);
}
void simd_normal_f32(float* out, int64_t n, uint64_t seed, uint64_t first_counter, double mean,
                     double std) {
  HWY_DYNAMIC_DISPATCH(NormalF32)(out, n, seed, first_counter, mean, std);
}
void simd_normal_f64(double* out, int64_t n, uint64_t seed, uint64_t first_counter, double mean,
                     double std) {
  HWY_DYNAMIC_DISPATCH(NormalF64)(out, n, seed, first_counter, mean, std);
}

}  // namespace bp::cpu
#endif  // HWY_ONCE
