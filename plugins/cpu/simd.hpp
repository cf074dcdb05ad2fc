// Internal header of the CPU backend: the SIMD inner loops of the elementwise kernels, over
// contiguous f32/f64 rows. They are written with Highway and compiled for several x86
// targets (SSE4, AVX2, AVX-512 and a baseline); the first call picks the best one the
// running CPU supports (simd_binary.cpp, simd_unary.cpp), so the plugin is built without
// -march flags and still uses AVX-512 where it exists. f16/bf16 and strided operands reach
// these loops through blocks converted to f32 by the kernels (binary.cpp, unary.cpp).
#pragma once

#include <cmath>
#include <cstdint>

namespace bp::cpu::simd {

enum class Binary : int {
  kAdd,        // a + b
  kSub,        // a - b
  kAddScaled,  // a + alpha * b (one fused multiply-add)
  kSubScaled,  // a - alpha * b
  kMul,
  kDiv,
  kMaximum,  // NaN-propagating; maximum(-0, +0) = +0, minimum(-0, +0) = -0
  kMinimum,
};

// out[i] = op(a[i * a_step], b[i * b_step]) for i < n, where a step is 1 (contiguous) or 0
// (one broadcast value). `out` may be `a` or `b` (in place).
void binary(Binary op, const float* a, int64_t a_step, const float* b, int64_t b_step, float* out,
            int64_t n, float alpha);
void binary(Binary op, const double* a, int64_t a_step, const double* b, int64_t b_step,
            double* out, int64_t n, double alpha);

// Rows of at most this many elements skip the dynamic dispatch (it costs more than a few
// elements, which the vector loops would do one lane at a time anyway): short_binary.
constexpr int64_t kShortRow = 4;

// out[i] = op(a[i * as], b[i * bs]) for a short row, in plain C++, for the ops whose one-lane
// result is the same as the vector loops': +, -, *, / are exact IEEE operations, and the
// scaled forms are one fused multiply-add, as hn::MulAdd / hn::NegMulAdd compute them, so no
// bit depends on the row's length or the ISA level. Returns false, having written nothing,
// for the other ops (maximum, minimum). binary() tries it first; kernels call it inline
// before binary() (binary.cpp), since the call alone costs more than one element's work.
// The switch sits inside the loop: six loops would give it a prologue as large.
template <typename C>
[[gnu::always_inline]] inline bool short_binary(Binary op, const C* a, int64_t as, const C* b,
                                                int64_t bs, C* out, int64_t n, C alpha) {
  for (int64_t i = 0; i < n; ++i) {
    const C x = a[i * as], y = b[i * bs];
    switch (op) {
      case Binary::kAdd:
        out[i] = x + y;
        break;
      case Binary::kSub:
        out[i] = x - y;
        break;
      case Binary::kMul:
        out[i] = x * y;
        break;
      case Binary::kDiv:
        out[i] = x / y;
        break;
      case Binary::kAddScaled:
        out[i] = std::fma(alpha, y, x);
        break;
      case Binary::kSubScaled:
        out[i] = std::fma(-alpha, y, x);
        break;
      default:
        return false;  // maximum, minimum: their NaN and signed-zero rules stay in one place
    }
  }
  return true;
}

enum class Unary : int {
  kNeg,
  kAbs,
  kSign,  // sign(NaN) = 0, sign(-0) = +0
  kRelu,  // keeps NaN and -0
  kFloor,
  kCeil,
  kSqrt,
  kRsqrt,  // 1 / sqrt(x), divided exactly
  kReciprocal,
  kExp,
  kLog,
  kSin,
  kCos,
  kTanh,
  kSigmoid,   // 1 / (1 + exp(-x))
  kGeluTanh,  // x / (1 + exp(-2u)), u = sqrt(2/pi) (x + 0.044715 x^3)
};

// out[i] = op(a[i]) for i < n; `out` may be `a`.
void unary(Unary op, const float* a, float* out, int64_t n);
void unary(Unary op, const double* a, double* out, int64_t n);

// f16/bf16 (as their bits) <-> f32, n contiguous values; exact widening and correctly
// rounded narrowing, identical to backplane/sdk/half.hpp (simd_convert.cpp).
void half_to_float(const uint16_t* in, float* out, int64_t n);
void float_to_half(const float* in, uint16_t* out, int64_t n);
void bfloat16_to_float(const uint16_t* in, float* out, int64_t n);
void float_to_bfloat16(const float* in, uint16_t* out, int64_t n);

// The Highway target the dispatcher picked for this CPU ("AVX3", "AVX2", ...).
const char* target_name();

}  // namespace bp::cpu::simd
