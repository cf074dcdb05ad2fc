// Elementwise ops: the unary ops, the binary ops with their scalar variants (alpha, rounding
// mode), the comparisons and logical ops (bool results), where.self and clamp. Every op is a
// pair of kernels (EW_UNARY/EW_BINARY): `name` walks the strided geometry, `name_contig`
// serves operands that are one dense run each. The strided kernels take the element count
// `n` and skip work-items past it (the host rounds their launch up to whole work-groups);
// the dense ones check nothing (a bounds check halves PoCL's throughput there), so the host
// launches them over whole groups and then the remainder in groups of one, at shifted
// offsets (host/launch.cpp). The host expanded the inputs to the output's
// shape and converted them to the variant's dtype (docs/ops.md). Values are computed in C
// (float for f16/bf16/f32) and rounded once on store.

#define EW_UNARY(name, OT, SO, EXPR, ...)                                           \
  __kernel void name(__global OT* out, __global const T* a, const bp_geom g,        \
                     const long n __VA_ARGS__) {                                    \
    const long i = get_global_id(0);                                                \
    if (i >= n) return;                                                             \
    long off[2];                                                                    \
    BP_OFFSETS(g, i, 2, off);                                                       \
    const C x = LOAD(a, off[1]);                                                    \
    SO(out, off[0], (EXPR));                                                        \
  }                                                                                 \
  __kernel void name##_contig(__global OT* out, __global const T* a, const long o0, \
                              const long o1 __VA_ARGS__) {                          \
    const long i = get_global_id(0);                                                \
    const C x = LOAD(a, o1 + i);                                                    \
    SO(out, o0 + i, (EXPR));                                                        \
  }

#define EW_BINARY(name, OT, SO, EXPR, ...)                                                        \
  __kernel void name(__global OT* out, __global const T* a, __global const T* b, const bp_geom g, \
                     const long n __VA_ARGS__) {                                                  \
    const long i = get_global_id(0);                                                              \
    if (i >= n) return;                                                                           \
    long off[3];                                                                                  \
    BP_OFFSETS(g, i, 3, off);                                                                     \
    const C x = LOAD(a, off[1]);                                                                  \
    const C y = LOAD(b, off[2]);                                                                  \
    SO(out, off[0], (EXPR));                                                                      \
  }                                                                                               \
  __kernel void name##_contig(__global OT* out, __global const T* a, __global const T* b,         \
                              const long o0, const long o1, const long o2 __VA_ARGS__) {          \
    const long i = get_global_id(0);                                                              \
    const C x = LOAD(a, o1 + i);                                                                  \
    const C y = LOAD(b, o2 + i);                                                                  \
    SO(out, o0 + i, (EXPR));                                                                      \
  }

// ---- helpers ------------------------------------------------------------------------------
#ifdef BP_FLOATING
// sigmoid without overflow to 0 for large negative x (exp(-x) would be inf).
inline C bp_sigmoid(C x) {
  if (x >= 0) return K(1.0) / (K(1.0) + exp(-x));
  const C e = exp(x);
  return e / (K(1.0) + e);
}
inline C bp_gelu(C x) {
  return K(0.5) * x * (K(1.0) + erf(x * K(0.70710678118654752440)));
}
// tanh that is exactly +-1 beyond |x| = 40, where the true value rounds to +-1 in f32 and
// f64 (some devices' tanh returns 1 - ulp there, or NaN at infinity).
inline C bp_tanh(C x) {
  return fabs(x) > K(40.0) ? copysign(K(1.0), x) : tanh(x);
}
inline C bp_gelu_tanh(C x) {
  const C inner = K(0.79788456080286535588) * (x + K(0.044715) * x * x * x);
  return K(0.5) * x * (K(1.0) + bp_tanh(inner));
}
// Python's floor division of floats (reference/binary.cpp): the quotient from fmod, exact
// where a / b would round up to the next integer.
inline C bp_floor_divide(C a, C b) {
  if (b == 0) return a / b;
  const C mod = fmod(a, b);
  C div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= K(1.0);
  if (div == 0) return copysign(K(0.0), a / b);
  C floored = floor(div);
  if (div - floored > K(0.5)) floored += K(1.0);
  return floored;
}
// trunc of the quotient rounded to C (float for f16/bf16/f32, double for f64), as PyTorch
// computes it: a / b may round up to the next integer (1791.9999 -> 1792), and so does the
// result. The build asks for correctly rounded division (BP_CL_BUILD_OPTIONS).
inline C bp_trunc_divide(C a, C b) {
  return trunc(a / b);
}
// NaN propagates; of +0 and -0 maximum gives +0, minimum -0.
inline C bp_maximum(C x, C y) {
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return signbit(x) ? y : x;
  return x > y ? x : y;
}
inline C bp_minimum(C x, C y) {
  if (isnan(x)) return x;
  if (isnan(y)) return y;
  if (x == y) return signbit(x) ? x : y;
  return x < y ? x : y;
}
inline C bp_clamp(C x, C lo, C hi, int has_lo, int has_hi) {
  if (isnan(x)) return x;
  if (has_lo && (isnan(lo) || x < lo)) x = lo;
  if (has_hi && (isnan(hi) || x > hi)) x = hi;
  return x;
}
// The activation gradients, in PyTorch's order of operations (plugins/cpu has the same):
// g * d/dx of sigmoid and tanh (given their output y), of silu, gelu and its tanh form at x.
inline C bp_sigmoid_backward(C g, C y) {
  return g * (K(1.0) - y) * y;
}
inline C bp_tanh_backward(C g, C y) {
  return g * (K(1.0) - y * y);
}
inline C bp_silu_backward(C g, C x) {
  const C s = K(1.0) / (K(1.0) + exp(-x));
  return g * s * (K(1.0) + x * (K(1.0) - s));
}
inline C bp_gelu_backward(C g, C x) {
  const C cdf = K(0.5) * (K(1.0) + erf(x * K(0.70710678118654752440)));
  const C pdf = K(0.39894228040143267794) * exp(x * x * K(-0.5));
  return g * (cdf + x * pdf);
}
inline C bp_gelu_tanh_backward(C g, C x) {
  const C beta = K(0.79788456080286535588), kappa = K(0.044715);
  const C x_sq = x * x;
  const C t = bp_tanh(beta * (x + kappa * x_sq * x));
  const C sech_sq = K(1.0) - t * t;  // 0 where tanh saturated: no inf * 0 for huge x
  const C right =
      sech_sq == 0 ? K(0.0) : K(0.5) * x * sech_sq * (beta * (K(1.0) + K(3.0) * kappa * x_sq));
  return g * (K(0.5) * (K(1.0) + t) + right);
}
#else
inline C bp_maximum(C x, C y) {
  return x > y ? x : y;
}
inline C bp_minimum(C x, C y) {
  return x < y ? x : y;
}
inline C bp_clamp(C x, C lo, C hi, int has_lo, int has_hi) {
  if (has_lo && x < lo) x = lo;
  if (has_hi && x > hi) x = hi;
  return x;
}
#endif

#if !defined(BP_FLOATING) && !defined(BP_IS_BOOL)
// Integer quotients (the host rejected zero divisors first). MIN / -1 wraps to MIN.
inline C bp_div_trunc(C a, C b) {
#ifdef BP_SIGNED
  if (b == (C)-1) return WRAP_SUB(0, a);
#endif
  return a / b;
}
inline C bp_div_floor(C a, C b) {
#ifdef BP_SIGNED
  if (b == (C)-1) return WRAP_SUB(0, a);
  C q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
  return q;
#else
  return a / b;
#endif
}
// Exact powers by squaring, wrapping; negative exponents as PyTorch's tensor pow.
inline C bp_ipow(C x, C y) {
#ifdef BP_SIGNED
  if (y < 0) {
    if (x == 1) return 1;
    if (x == -1) return (y & 1) ? -1 : 1;
    return 0;
  }
#endif
  U base = (U)x, result = 1;
  for (ulong e = (ulong)y; e != 0; e >>= 1, base *= base)
    if (e & 1) result *= base;
  return (C)result;
}
#endif

// ---- unary ---------------------------------------------------------------------------------
#ifdef BP_FLOATING
EW_UNARY(neg, T, STORE, -x)
EW_UNARY(abs_, T, STORE, fabs(x))
EW_UNARY(relu, T, STORE, x < 0 ? K(0.0) : x)
EW_UNARY(floor_, T, STORE, floor(x))
EW_UNARY(ceil_, T, STORE, ceil(x))
EW_UNARY(sign_, T, STORE, (C)((x > 0) - (x < 0)))
EW_UNARY(exp_, T, STORE, exp(x))
EW_UNARY(log_, T, STORE, log(x))
EW_UNARY(sqrt_, T, STORE, sqrt(x))
EW_UNARY(rsqrt_, T, STORE, K(1.0) / sqrt(x))
EW_UNARY(reciprocal, T, STORE, K(1.0) / x)
EW_UNARY(sin_, T, STORE, sin(x))
EW_UNARY(cos_, T, STORE, cos(x))
EW_UNARY(tanh_, T, STORE, bp_tanh(x))
EW_UNARY(sigmoid, T, STORE, bp_sigmoid(x))
EW_UNARY(erf_, T, STORE, erf(x))
EW_UNARY(gelu, T, STORE, bp_gelu(x))
EW_UNARY(gelu_tanh, T, STORE, bp_gelu_tanh(x))
#elif defined(BP_IS_BOOL)
EW_UNARY(sign_, T, STORE, x)
#else
EW_UNARY(neg, T, STORE, WRAP_SUB(0, x))
#ifdef BP_SIGNED
EW_UNARY(abs_, T, STORE, x < 0 ? WRAP_SUB(0, x) : x)
EW_UNARY(relu, T, STORE, x < 0 ? (C)0 : x)
EW_UNARY(sign_, T, STORE, (C)((x > 0) - (x < 0)))
#else
EW_UNARY(abs_, T, STORE, x)
EW_UNARY(relu, T, STORE, x)
EW_UNARY(sign_, T, STORE, (C)(x != 0))
#endif
EW_UNARY(floor_, T, STORE, x)
EW_UNARY(ceil_, T, STORE, x)
#endif
EW_UNARY(logical_not, uchar, SV_bool, x == 0)
EW_UNARY(clamp_, T, STORE, bp_clamp(x, lo, hi, has_lo, has_hi), , const C lo, const C hi,
         const int has_lo, const int has_hi)

// ---- binary --------------------------------------------------------------------------------
#if defined(BP_FLOATING)
EW_BINARY(add, T, STORE, x + alpha * y, , const C alpha)
EW_BINARY(sub, T, STORE, x - alpha * y, , const C alpha)
EW_BINARY(mul, T, STORE, x* y)
EW_BINARY(div_, T, STORE, x / y)
EW_BINARY(div_trunc, T, STORE, bp_trunc_divide(x, y))
EW_BINARY(div_floor, T, STORE, bp_floor_divide(x, y))
EW_BINARY(pow_, T, STORE, pow(x, y))
#elif defined(BP_IS_BOOL)
EW_BINARY(add, T, STORE, x || (alpha && y), , const C alpha)
EW_BINARY(mul, T, STORE, x&& y)
#else
EW_BINARY(add, T, STORE, WRAP_ADD(x, WRAP_MUL(alpha, y)), , const C alpha)
EW_BINARY(sub, T, STORE, WRAP_SUB(x, WRAP_MUL(alpha, y)), , const C alpha)
EW_BINARY(mul, T, STORE, WRAP_MUL(x, y))
EW_BINARY(div_trunc, T, STORE, bp_div_trunc(x, y))
EW_BINARY(div_floor, T, STORE, bp_div_floor(x, y))
EW_BINARY(pow_, T, STORE, bp_ipow(x, y))
#endif
EW_BINARY(maximum, T, STORE, bp_maximum(x, y))
EW_BINARY(minimum, T, STORE, bp_minimum(x, y))
EW_BINARY(eq, uchar, SV_bool, x == y)
EW_BINARY(ne, uchar, SV_bool, x != y)
EW_BINARY(lt, uchar, SV_bool, x < y)
EW_BINARY(le, uchar, SV_bool, x <= y)
EW_BINARY(gt, uchar, SV_bool, x > y)
EW_BINARY(ge, uchar, SV_bool, x >= y)
EW_BINARY(logical_and, uchar, SV_bool, x != 0 && y != 0)
EW_BINARY(logical_or, uchar, SV_bool, x != 0 || y != 0)

// ---- activation gradients: a = grad_output, b = the forward call's input or output --------
#if defined(BP_FLOATING)
EW_BINARY(threshold_backward, T, STORE, y <= thr ? K(0.0) : x, , const C thr)
EW_BINARY(sigmoid_backward, T, STORE, bp_sigmoid_backward(x, y))
EW_BINARY(tanh_backward, T, STORE, bp_tanh_backward(x, y))
EW_BINARY(silu_backward, T, STORE, bp_silu_backward(x, y))
EW_BINARY(gelu_backward, T, STORE, bp_gelu_backward(x, y))
EW_BINARY(gelu_tanh_backward, T, STORE, bp_gelu_tanh_backward(x, y))
#elif !defined(BP_IS_BOOL)
EW_BINARY(threshold_backward, T, STORE, y <= thr ? (C)0 : x, , const C thr)
#endif

// Any zero in b (integer division with a rounding mode checks its divisor first, so that
// an in-place call leaves self unchanged on error): status[0] becomes 1.
__kernel void any_zero(__global volatile int* status, __global const T* b, const bp_geom g,
                       const long n) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[2];
  BP_OFFSETS(g, i, 2, off);
  if (LOAD(b, off[1]) == 0) status[0] = 1;
}
__kernel void any_zero_contig(__global volatile int* status, __global const T* b, const long o0,
                              const long o1) {
  const long i = get_global_id(0);
  if (LOAD(b, o1 + i) == 0) status[0] = 1;
}

// ---- where.self: out = cond ? a : b, moving raw bits ----------------------------------------
__kernel void where_(__global R* out, __global const uchar* cond, __global const R* a,
                     __global const R* b, const bp_geom g, const long n) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[4];
  BP_OFFSETS(g, i, 4, off);
  out[off[0]] = cond[off[1]] ? a[off[2]] : b[off[3]];
}
__kernel void where__contig(__global R* out, __global const uchar* cond, __global const R* a,
                            __global const R* b, const long o0, const long o1, const long o2,
                            const long o3) {
  const long i = get_global_id(0);
  out[o0 + i] = cond[o1 + i] ? a[o2 + i] : b[o3 + i];
}
