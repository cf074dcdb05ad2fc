// Backplane's random numbers (docs/random.md): the Philox 4x32-10 counter-based generator
// (Salmon, Moraes, Dror and Shaw, SC'11) and the transforms from its words to the values of
// uniform_, normal_ and random_. Element i (row-major) of a random op called with (seed,
// offset) is computed from the one block philox(key = seed, counter = offset + i) alone, with
// integer operations and IEEE arithmetic that rounds correctly (+, -, *, / and sqrt), each
// rounded once, in a fixed order. So every backend and every split of the work gives the
// same bits. plugins/shared/opencl-c-kernels/random.cl computes the same, step for step.
//
// The floating steps must not be contracted into fused multiply-adds (an FMA rounds once
// where this code rounds twice): the SDK's CMake target compiles with -ffp-contract=off.
// Header-only.
#pragma once

#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/dtype.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace bp::sdk::philox {

using Block = std::array<uint32_t, 4>;

inline constexpr uint32_t kMultiplier0 = 0xD2511F53u, kMultiplier1 = 0xCD9E8D57u;
inline constexpr uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;

// Philox 4x32 with 10 rounds: Random123's philox4x32_R(10, counter, key).
constexpr Block philox4x32_10(Block counter, uint32_t key0, uint32_t key1) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key0 += kWeyl0;
      key1 += kWeyl1;
    }
    const uint64_t product0 = uint64_t{kMultiplier0} * counter[0];
    const uint64_t product1 = uint64_t{kMultiplier1} * counter[2];
    counter = {
        static_cast<uint32_t>(product1 >> 32) ^ counter[1] ^ key0, static_cast<uint32_t>(product1),
        static_cast<uint32_t>(product0 >> 32) ^ counter[3] ^ key1, static_cast<uint32_t>(product0)};
  }
  return counter;
}

// The block of element `index` of a call with `seed` and `offset`: the counter is
// offset + index (64 bits, wrapping) in its low two words, the key the seed's two halves.
constexpr Block element_block(uint64_t seed, uint64_t offset, uint64_t index) {
  const uint64_t counter = offset + index;
  return philox4x32_10({static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0},
                       static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
}

// The two 64-bit draws of a block: words 0-1 and 2-3.
constexpr uint64_t low64(const Block& b) {
  return uint64_t{b[0]} | (uint64_t{b[1]} << 32);
}
constexpr uint64_t high64(const Block& b) {
  return uint64_t{b[2]} | (uint64_t{b[3]} << 32);
}

// ---- uniform_(from, to) ------------------------------------------------------------------
// PyTorch's CPU transform: x = (draw & (2^digits - 1)) / 2^digits, value = x * (to - from) +
// from, with `digits` the dtype's significand bits. f16, bf16 and f32 compute in float from
// word 0 (from and to first rounded to the dtype); f64 in double from words 0-1.
template <typename T>
T uniform_value(const Block& b, double from, double to) {
  if constexpr (std::is_same_v<T, double>) {
    const double x = static_cast<double>(low64(b) & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
    return x * (to - from) + from;
  } else {
    constexpr int kDigits = std::is_same_v<T, float> ? 24 : std::is_same_v<T, Half> ? 11 : 8;
    const float x = static_cast<float>(b[0] & ((1u << kDigits) - 1)) * (1.0f / (1u << kDigits));
    const float lo = static_cast<float>(convert<T>(from)), hi = static_cast<float>(convert<T>(to));
    return convert<T>(x * (hi - lo) + lo);
  }
}

// ---- normal_(mean, std): Box-Muller in double ---------------------------------------------
// u1 = (k1 + 1) / 2^53 in (0, 1] from words 0-1, u2 = k2 / 2^53 in [0, 1) from words 2-3;
// z = sqrt(-2 ln u1) cos(2 pi u2); value = mean + std * z, rounded once to the dtype. ln and
// cos are the polynomials below (libm's differ between devices); their error is below 1e-15,
// far under any dtype's rounding of a sample.

// The doubles nearest sqrt(2), ln 2 and pi / 2.
inline constexpr double kSqrt2 = 1.4142135623730951, kLn2 = 0.6931471805599453;
inline constexpr double kHalfPi = 1.5707963267948966;
// 1 / (2j + 1): the series of atanh in log_of_fraction.
inline constexpr double kInverseOdd[] = {1.0,
                                         0.3333333333333333,
                                         0.2,
                                         0.14285714285714285,
                                         0.1111111111111111,
                                         0.09090909090909091,
                                         0.07692307692307693,
                                         0.06666666666666667,
                                         0.058823529411764705,
                                         0.05263157894736842,
                                         0.047619047619047616};
// Taylor coefficients of cos and sin (cos_of_turn_fraction), constant term first.
inline constexpr double kCos[] = {1.0,
                                  -0.5,
                                  0.041666666666666664,
                                  -0.001388888888888889,
                                  2.48015873015873e-05,
                                  -2.755731922398589e-07,
                                  2.08767569878681e-09,
                                  -1.1470745597729725e-11,
                                  4.779477332387385e-14,
                                  -1.5619206968586225e-16,
                                  4.110317623312165e-19,
                                  -8.896791392450574e-22,
                                  1.6117375710961184e-24};
inline constexpr double kSin[] = {1.0,
                                  -0.16666666666666666,
                                  0.008333333333333333,
                                  -0.0001984126984126984,
                                  2.7557319223985893e-06,
                                  -2.505210838544172e-08,
                                  1.6059043836821613e-10,
                                  -7.647163731819816e-13,
                                  2.8114572543455206e-15,
                                  -8.22063524662433e-18,
                                  1.9572941063391263e-20,
                                  -3.868170170630684e-23,
                                  6.446950284384474e-26};

// ln(k / 2^53) for an integer k in [1, 2^53]: k = m 2^e with m in [sqrt(1/2), sqrt(2)),
// ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by its series to s^21.
inline double log_of_fraction(uint64_t k) {
  int e = std::bit_width(k) - 1;  // k in [2^e, 2^(e+1))
  double m = static_cast<double>(k) * std::bit_cast<double>(uint64_t(1023 - e) << 52);
  if (m > kSqrt2) {
    m = m * 0.5;
    e = e + 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double series = kInverseOdd[10];
  for (int j = 9; j >= 0; --j) series = series * s2 + kInverseOdd[j];
  const double ln_m = 2.0 * s * series;
  return static_cast<double>(e - 53) * kLn2 + ln_m;
}

// cos(2 pi k / 2^53) for an integer k in [0, 2^53): the quadrant from k's top two bits, the
// angle x in [0, pi/2) from the rest, and cos x or sin x by Taylor series to x^24 and x^25.
inline double cos_of_turn_fraction(uint64_t k) {
  const uint64_t quadrant = k >> 51;
  const double x = static_cast<double>(k & ((uint64_t{1} << 51) - 1)) * 0x1p-51 * kHalfPi;
  const double y = x * x;
  const bool use_sin = (quadrant & 1) != 0;
  const double* c = use_sin ? kSin : kCos;
  double p = c[12];
  for (int j = 11; j >= 0; --j) p = p * y + c[j];
  if (use_sin) p = p * x;
  // cos(q pi/2 + x): q = 0: cos x, 1: -sin x, 2: -cos x, 3: sin x.
  return quadrant == 1 || quadrant == 2 ? -p : p;
}

inline double standard_normal(const Block& b) {
  const double radius = std::sqrt(-2.0 * log_of_fraction((low64(b) >> 11) + 1));
  return radius * cos_of_turn_fraction(high64(b) >> 11);
}

template <typename T>
T normal_value(const Block& b, double mean, double std) {
  return convert<T>(mean + std * standard_normal(b));
}

// ---- random_(from, to) -------------------------------------------------------------------
// PyTorch's integer transform: value = (draw % range) + from, through int64 into the dtype,
// with the draw word 0 when range < 2^32 and words 0-1 otherwise; `full` (from = int64's
// lowest and no `to`) takes all 64 bits of words 0-1 as an int64.
struct IntegerRange {
  uint64_t range = 0;  // the number of values; unused when full
  int64_t from = 0;
  bool full = false;
};

// The range of random_.from(from, to) for `dtype`, as PyTorch derives it: to - from, or up to
// the dtype's largest value when `to` is None (2^digits for floating dtypes, 1 for bool). The
// meta rule has checked from < to and both bounds.
inline IntegerRange integer_range(bp_dtype dtype, int64_t from, std::optional<int64_t> to) {
  if (to) return {static_cast<uint64_t>(*to) - static_cast<uint64_t>(from), from, false};
  if (from == INT64_MIN) return {0, from, true};
  int64_t last = 0;  // the largest value, included
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      last = 1;
    else if constexpr (std::is_same_v<T, double>)
      last = int64_t{1} << 53;
    else if constexpr (std::is_same_v<T, float>)
      last = int64_t{1} << 24;
    else if constexpr (std::is_same_v<T, Half>)
      last = int64_t{1} << 11;
    else if constexpr (std::is_same_v<T, BFloat16>)
      last = int64_t{1} << 8;
    else
      last = static_cast<int64_t>(std::numeric_limits<T>::max());
  });
  return {static_cast<uint64_t>(last) - static_cast<uint64_t>(from) + 1, from, false};
}

template <typename T>
T integer_value(const Block& b, const IntegerRange& r) {
  if (r.full) return convert<T>(static_cast<int64_t>(low64(b)));
  const uint64_t draw = r.range >= (uint64_t{1} << 32) ? low64(b) : uint64_t{b[0]};
  return convert<T>(static_cast<int64_t>(draw % r.range + static_cast<uint64_t>(r.from)));
}

}  // namespace bp::sdk::philox
