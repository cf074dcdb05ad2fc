// Internal header of the CPU backend: the SIMD inner loops of the elementwise kernels, over
// contiguous f32/f64 rows. They are written with Highway and compiled for several x86
// targets (SSE4, AVX2, AVX-512 and a baseline); the first call picks the best one the
// running CPU supports (simd_binary.cpp, simd_unary.cpp), so the plugin is built without
// -march flags and still uses AVX-512 where it exists. f16/bf16 and strided operands reach
// these loops through blocks converted to f32 by the kernels (binary.cpp, unary.cpp).
#pragma once

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
