// IEEE binary16 (f16) and bfloat16 (bf16) storage types with correctly rounded conversions
// (round to nearest, ties to even; NaN stays NaN; overflow goes to infinity). Header-only,
// no dependency; used by plugins and by the runtime alike. Arithmetic is done in float:
// convert, compute, convert back once.
#pragma once

#include <cstdint>
#include <cstring>

namespace bp::sdk {

namespace detail {
inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline uint64_t double_bits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
}  // namespace detail

// float -> f16 bits, round to nearest even.
inline uint16_t float_to_half_bits(float f) {
  const uint32_t x = detail::float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);   // NaN (quiet)
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs < 0x38800000u) {  // result is subnormal or zero: 2^-14 > |f|
    // Add a magic value so the FPU does the rounding into the subnormal position.
    const float magic = detail::bits_float(0x3f000000u);  // 0.5 = 2^-1; shifts mantissa
    float a = detail::bits_float(abs) + magic;
    uint32_t r = detail::float_bits(a) - 0x3f000000u;
    return static_cast<uint16_t>(sign | r);
  }
  // Normal: rebias exponent (127 -> 15), round mantissa from 23 to 10 bits, ties to even.
  uint32_t mant_odd = (abs >> 13) & 1u;
  uint32_t r = abs + 0xc8000fffu + mant_odd;  // -(112 << 23) + rounding bias
  return static_cast<uint16_t>(sign | (r >> 13));
}

inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  if (exp == 0x1fu) return detail::bits_float(sign | 0x7f800000u | (mant << 13));  // inf/NaN
  if (exp == 0) {
    if (mant == 0) return detail::bits_float(sign);
    // Subnormal: value = mant * 2^-24.
    float v = static_cast<float>(mant) * detail::bits_float(0x33800000u);  // 2^-24
    return sign ? -v : v;
  }
  return detail::bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
}

// float -> bf16 bits, round to nearest even.
inline uint16_t float_to_bfloat16_bits(float f) {
  uint32_t x = detail::float_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>(x >> 16);
}

inline float bfloat16_bits_to_float(uint16_t b) {
  return detail::bits_float(static_cast<uint32_t>(b) << 16);
}

// Storage types. Conversions to/from double round once (double -> f16 directly, not via a
// float, to avoid double rounding).
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) : bits(float_to_half_bits(f)) {}
  explicit Half(double d);
  explicit operator float() const { return half_bits_to_float(bits); }
  explicit operator double() const { return half_bits_to_float(bits); }
  static Half from_bits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) : bits(float_to_bfloat16_bits(f)) {}
  explicit BFloat16(double d);
  explicit operator float() const { return bfloat16_bits_to_float(bits); }
  explicit operator double() const { return bfloat16_bits_to_float(bits); }
  static BFloat16 from_bits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

namespace detail {
// Rounds a double to float with round-to-odd, so a second rounding to a narrower format
// gives the correctly rounded result of the original double.
inline float double_to_float_round_odd(double d) {
  float f = static_cast<float>(d);  // round to nearest
  if (static_cast<double>(f) == d || d != d) return f;
  uint32_t u = float_bits(f);
  // If rounding went away from zero, step back toward zero; then force the low bit to 1.
  if ((static_cast<double>(f) > d) == (d > 0)) u -= 1;
  u |= 1u;
  return bits_float(u);
}
}  // namespace detail

inline Half::Half(double d) : bits(float_to_half_bits(detail::double_to_float_round_odd(d))) {}
inline BFloat16::BFloat16(double d)
    : bits(float_to_bfloat16_bits(detail::double_to_float_round_odd(d))) {}

}  // namespace bp::sdk
