// The random ops (compute-ops/random.cpp): uniform_, normal_ and random_.from. One work item
// per element of self, in row-major order (the host's geometry keeps it): element i is
// computed from the Philox 4x32-10 block at key `seed`, counter `offset + i` alone, by the
// steps of the SDK's sdk/philox.hpp, each rounded once and never fused (FP_CONTRACT OFF here,
// explicit round-to-nearest operations under CUDA/HIP). So every device gives the
// reference's bits. normal_ computes in double and needs fp64.

#if !defined(__CUDACC__) && !defined(__HIPCC__)
#pragma OPENCL FP_CONTRACT OFF
#define RN_FMUL(a, b) ((a) * (b))
#define RN_FADD(a, b) ((a) + (b))
#define RN_DMUL(a, b) ((a) * (b))
#define RN_DADD(a, b) ((a) + (b))
#else
#define RN_FMUL(a, b) __fmul_rn((a), (b))
#define RN_FADD(a, b) __fadd_rn((a), (b))
#define RN_DMUL(a, b) __dmul_rn((a), (b))
#define RN_DADD(a, b) __dadd_rn((a), (b))
#endif

typedef struct {
  uint w[4];
} bp_block;

inline bp_block bp_philox(ulong seed, ulong offset, ulong index) {
  const ulong counter = offset + index;
  uint c0 = (uint)counter, c1 = (uint)(counter >> 32), c2 = 0u, c3 = 0u;
  uint k0 = (uint)seed, k1 = (uint)(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const ulong p0 = (ulong)0xD2511F53u * c0;
    const ulong p1 = (ulong)0xCD9E8D57u * c2;
    const uint n0 = (uint)(p1 >> 32) ^ c1 ^ k0;
    const uint n2 = (uint)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint)p1;
    c3 = (uint)p0;
    c0 = n0;
    c2 = n2;
  }
  bp_block b;
  b.w[0] = c0;
  b.w[1] = c1;
  b.w[2] = c2;
  b.w[3] = c3;
  return b;
}

inline ulong bp_low64(bp_block b) {
  return (ulong)b.w[0] | ((ulong)b.w[1] << 32);
}
inline ulong bp_high64(bp_block b) {
  return (ulong)b.w[2] | ((ulong)b.w[3] << 32);
}

#define BP_RANDOM_ELEMENT(name, ...)                                                   \
  __kernel void name(__global T* out, const bp_geom g, const long n, const ulong seed, \
                     const ulong offset, __VA_ARGS__)

// ---- uniform_: x = (draw & (2^digits - 1)) / 2^digits; x * (hi - lo) + lo -----------------
#if defined(BP_VARIANT_F64)
BP_RANDOM_ELEMENT(uniform_, const double lo, const double hi) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[1];
  BP_OFFSETS(g, i, 1, off);
  const bp_block b = bp_philox(seed, offset, (ulong)i);
  const double x = RN_DMUL((double)(bp_low64(b) & 0x1FFFFFFFFFFFFFul), 0x1p-53);
  STORE(out, off[0], RN_DADD(RN_DMUL(x, hi - lo), lo));
}
#elif defined(BP_FLOATING)
#if defined(BP_VARIANT_F32)
#define UNIFORM_DIGITS 24
#elif defined(BP_VARIANT_F16)
#define UNIFORM_DIGITS 11
#else
#define UNIFORM_DIGITS 8
#endif
// lo and hi: from and to rounded to the dtype, as floats (the host rounds them).
BP_RANDOM_ELEMENT(uniform_, const float lo, const float hi) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[1];
  BP_OFFSETS(g, i, 1, off);
  const bp_block b = bp_philox(seed, offset, (ulong)i);
  const uint mask = (1u << UNIFORM_DIGITS) - 1u;
  const float x = RN_FMUL((float)(b.w[0] & mask), 1.0f / (float)(1u << UNIFORM_DIGITS));
  STORE(out, off[0], RN_FADD(RN_FMUL(x, hi - lo), lo));
}
#endif

// ---- normal_: Box-Muller in double with sdk/philox.hpp's ln and cos polynomials ----------
#if defined(BP_FLOATING) && defined(BP_HAS_FP64)
// ln(k / 2^53), k in [1, 2^53].
inline double bp_log_of_fraction(ulong k) {
  const double kd = (double)k;  // exact
  int e = (int)((as_ulong(kd) >> 52) & 0x7FF) - 1023;
  double m = RN_DMUL(kd, as_double((ulong)(1023 - e) << 52));
  if (m > 1.4142135623730951) {
    m = RN_DMUL(m, 0.5);
    e = e + 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = RN_DMUL(s, s);
  const double c[11] = {1.0,
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
  double series = c[10];
  for (int j = 9; j >= 0; --j) series = RN_DADD(RN_DMUL(series, s2), c[j]);
  const double ln_m = RN_DMUL(RN_DMUL(2.0, s), series);
  return RN_DADD(RN_DMUL((double)(e - 53), 0.6931471805599453), ln_m);
}

// cos(2 pi k / 2^53), k in [0, 2^53).
inline double bp_cos_of_turn_fraction(ulong k) {
  const ulong quadrant = k >> 51;
  const double x = RN_DMUL(RN_DMUL((double)(k & 0x7FFFFFFFFFFFFul), 0x1p-51), 1.5707963267948966);
  const double y = RN_DMUL(x, x);
  const double kcos[13] = {1.0,
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
  const double ksin[13] = {1.0,
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
  const bool use_sin = (quadrant & 1ul) != 0;
  double p = use_sin ? ksin[12] : kcos[12];
  for (int j = 11; j >= 0; --j) p = RN_DADD(RN_DMUL(p, y), use_sin ? ksin[j] : kcos[j]);
  if (use_sin) p = RN_DMUL(p, x);
  return quadrant == 1ul || quadrant == 2ul ? -p : p;
}

BP_RANDOM_ELEMENT(normal_, const double mean, const double std) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[1];
  BP_OFFSETS(g, i, 1, off);
  const bp_block b = bp_philox(seed, offset, (ulong)i);
  const double radius = sqrt(RN_DMUL(-2.0, bp_log_of_fraction((bp_low64(b) >> 11) + 1ul)));
  const double z = RN_DMUL(radius, bp_cos_of_turn_fraction(bp_high64(b) >> 11));
  STORE(out, off[0], bp_from_double(RN_DADD(mean, RN_DMUL(std, z))));
}
#endif

// ---- random_.from: (draw % range) + from through int64; `full`: all 64 bits ---------------
BP_RANDOM_ELEMENT(random_from, const ulong range, const long from, const int full) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[1];
  BP_OFFSETS(g, i, 1, off);
  const bp_block b = bp_philox(seed, offset, (ulong)i);
  long v;
  if (full) {
    v = (long)bp_low64(b);
  } else {
    const ulong draw = range >= 0x100000000ul ? bp_low64(b) : (ulong)b.w[0];
    v = (long)(draw % range + (ulong)from);
  }
  STORE(out, off[0], bp_from_long(v));
}
