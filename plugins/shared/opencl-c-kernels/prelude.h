// The prelude of every program of plugins/shared/opencl-c-kernels: element types, loads and stores
// of each dtype, conversions with PyTorch's rules, and the geometry of strided tensors. Prepended
// to each program's source (OpenCL) or passed with -include (SPIR-V build).
//
// A program is built once per *variant*, the dtype its kernels compute in, selected by
// -DBP_VARIANT_<DTYPE> (BP_VARIANT_F32, BP_VARIANT_BOOL, ...); -DBP_HAS_FP64 when the device
// has cl_khr_fp64. For the variant, `T` is the storage type, `C` the compute type, LOAD(p, i)
// reads element i as a C, STORE(p, i, v) writes a C with one rounding. docs/opencl.md.

#ifdef BP_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#define BP_MAX_DIMS 8

// ---- per-dtype storage, loads and stores -------------------------------------------------
// bool is stored as uchar 0/1; f16 as half (vload_half/vstore_half are core OpenCL: no
// cl_khr_fp16 needed, arithmetic is in float); bf16 as ushort, computed in float.
typedef uchar st_bool;
typedef char st_i8;
typedef uchar st_u8;
typedef short st_i16;
typedef int st_i32;
typedef long st_i64;
typedef half st_f16;
typedef ushort st_bf16;
typedef float st_f32;
#ifdef BP_HAS_FP64
typedef double st_f64;
#endif

inline float bp_bf16_to_float(ushort b) {
  return as_float((uint)b << 16);
}
// Round to nearest even; NaN stays a (quiet) NaN.
inline ushort bp_float_to_bf16(float f) {
  const uint u = as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
  return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Float with its last bit set when `exact` is false ("round to odd"): a later
// round-to-nearest into a format of at most 22 significant bits (f16, bf16) then rounds
// once, as if from the exact value.
inline float bp_round_odd(float truncated, bool exact) {
  return exact ? truncated : as_float(as_uint(truncated) | 1u);
}
inline float bp_long_to_float_odd(long v) {
  const float t = convert_float_rtz(v);
  return bp_round_odd(t, (long)t == v);
}
#ifdef BP_HAS_FP64
inline float bp_double_to_float_odd(double d) {
  const float t = convert_float_rtz(d);
  return bp_round_odd(t, isnan(d) || (double)t == d);
}
#endif

#define LD_bool(p, i) ((p)[i] != 0)
#define LD_i8(p, i) ((p)[i])
#define LD_u8(p, i) ((p)[i])
#define LD_i16(p, i) ((p)[i])
#define LD_i32(p, i) ((p)[i])
#define LD_i64(p, i) ((p)[i])
#define LD_f16(p, i) vload_half((i), (p))
#define LD_bf16(p, i) bp_bf16_to_float((p)[i])
#define LD_f32(p, i) ((p)[i])
#define LD_f64(p, i) ((p)[i])

#define SV_bool(p, i, v) ((p)[i] = (uchar)((v) != 0))
#define SV_i8(p, i, v) ((p)[i] = (char)(v))
#define SV_u8(p, i, v) ((p)[i] = (uchar)(v))
#define SV_i16(p, i, v) ((p)[i] = (short)(v))
#define SV_i32(p, i, v) ((p)[i] = (int)(v))
#define SV_i64(p, i, v) ((p)[i] = (long)(v))
#define SV_f16(p, i, v) vstore_half_rte((v), (i), (p))
#define SV_bf16(p, i, v) ((p)[i] = bp_float_to_bf16(v))
#define SV_f32(p, i, v) ((p)[i] = (v))
#define SV_f64(p, i, v) ((p)[i] = (v))

// ---- the variant ----------------------------------------------------------------------
// T: storage type; C: compute type; U: the unsigned type integer arithmetic wraps in (as
// PyTorch's: modulo 2^bits); BP_FLOATING / BP_SIGNED / BP_IS_BOOL classify it.
#if defined(BP_VARIANT_BOOL)
#define BP_TAG bool
#define C uchar
#define U uint
#define BP_IS_BOOL 1
#elif defined(BP_VARIANT_I8)
#define BP_TAG i8
#define C char
#define U uint
#define BP_SIGNED 1
#elif defined(BP_VARIANT_U8)
#define BP_TAG u8
#define C uchar
#define U uint
#elif defined(BP_VARIANT_I16)
#define BP_TAG i16
#define C short
#define U uint
#define BP_SIGNED 1
#elif defined(BP_VARIANT_I32)
#define BP_TAG i32
#define C int
#define U uint
#define BP_SIGNED 1
#elif defined(BP_VARIANT_I64)
#define BP_TAG i64
#define C long
#define U ulong
#define BP_SIGNED 1
#elif defined(BP_VARIANT_F16)
#define BP_TAG f16
#define C float
#define BP_FLOATING 1
#define BP_HALF 1
#elif defined(BP_VARIANT_BF16)
#define BP_TAG bf16
#define C float
#define BP_FLOATING 1
#define BP_HALF 1
#elif defined(BP_VARIANT_F32)
#define BP_TAG f32
#define C float
#define BP_FLOATING 1
#elif defined(BP_VARIANT_F64)
#ifndef BP_HAS_FP64
#error "the f64 variant needs cl_khr_fp64 (BP_HAS_FP64)"
#endif
#define BP_TAG f64
#define C double
#define BP_FLOATING 1
#else
#error "no variant: build with -DBP_VARIANT_<DTYPE>"
#endif

#define BP_CAT2(a, b) a##b
#define BP_CAT(a, b) BP_CAT2(a, b)
#define T BP_CAT(st_, BP_TAG)
#define LOAD(p, i) BP_CAT(LD_, BP_TAG)(p, i)
#define STORE(p, i, v) BP_CAT(SV_, BP_TAG)(p, i, v)
// Kernel names carry no variant suffix: each variant is its own program.
// K(1.5): a literal in the compute type (a double literal needs cl_khr_fp64).
#ifdef BP_VARIANT_F64
#define K(x) x
#else
#define K(x) x##f
#endif

// Raw storage of each dtype for kernels that move elements without looking at them (where,
// index_select, gather, cat): bits are copied exactly, NaN payloads included.
typedef uchar rw_bool;
typedef uchar rw_i8;
typedef uchar rw_u8;
typedef ushort rw_i16;
typedef uint rw_i32;
typedef ulong rw_i64;
typedef ushort rw_f16;
typedef ushort rw_bf16;
typedef uint rw_f32;
typedef ulong rw_f64;
#define R BP_CAT(rw_, BP_TAG)

// Integer arithmetic that wraps like PyTorch's, through the unsigned type.
#ifndef BP_FLOATING
#define WRAP_ADD(a, b) ((C)((U)(a) + (U)(b)))
#define WRAP_SUB(a, b) ((C)((U)(a) - (U)(b)))
#define WRAP_MUL(a, b) ((C)((U)(a) * (U)(b)))
#endif

// ---- floating -> integral as PyTorch's x86-64 build (reference/elementwise.hpp) ---------
// NaN and out-of-range values give the "integer indefinite" of the 64- or 32-bit
// conversion; i64 and u8 convert through 64 bits, i8/i16/i32 through 32, then wrap.
inline long bp_float_to_i64(float d) {
  return (d >= -0x1p63f && d < 0x1p63f) ? (long)d : (long)0x8000000000000000ul;
}
inline int bp_float_to_i32(float d) {
  return (d >= -0x1p31f && d < 0x1p31f) ? (int)d : (int)0x80000000u;
}
#ifdef BP_HAS_FP64
inline long bp_double_to_i64(double d) {
  return (d >= -0x1p63 && d < 0x1p63) ? (long)d : (long)0x8000000000000000ul;
}
inline int bp_double_to_i32(double d) {
  return (d > -2147483649.0 && d < 2147483648.0) ? (int)d : (int)0x80000000u;
}
#endif

// ---- conversions into the variant's compute value, ready for STORE (copy_'s rules) -----
inline C bp_from_long(long v) {
#if defined(BP_HALF)
  return bp_long_to_float_odd(v);
#elif defined(BP_VARIANT_F32)
  return convert_float(v);
#elif defined(BP_VARIANT_F64)
  return convert_double(v);
#elif defined(BP_IS_BOOL)
  return v != 0;
#else
  return (C)(U)(ulong)v;
#endif
}

inline C bp_from_float(float f) {
#if defined(BP_FLOATING)
  return f;
#elif defined(BP_IS_BOOL)
  return f != 0;
#elif defined(BP_VARIANT_I64) || defined(BP_VARIANT_U8)
  return (C)(U)(ulong)bp_float_to_i64(f);
#else
  return (C)(U)bp_float_to_i32(f);
#endif
}

#ifdef BP_HAS_FP64
inline C bp_from_double(double d) {
#if defined(BP_HALF)
  return bp_double_to_float_odd(d);
#elif defined(BP_VARIANT_F32)
  return convert_float(d);
#elif defined(BP_VARIANT_F64)
  return d;
#elif defined(BP_IS_BOOL)
  return d != 0;
#elif defined(BP_VARIANT_I64) || defined(BP_VARIANT_U8)
  return (C)(U)(ulong)bp_double_to_i64(d);
#else
  return (C)(U)bp_double_to_i32(d);
#endif
}
#endif

// ---- strided geometry -------------------------------------------------------------------
// Up to BP_MAX_DIMS dims (after the host merged contiguous ones) shared by up to 4 operands
// of equal shape (elementwise ops: inputs were expanded to the output's shape). Offsets and
// strides are in elements. The host struct (host/geometry.hpp) has the same layout.
typedef struct {
  long size[BP_MAX_DIMS];
  long stride[4][BP_MAX_DIMS];
  long offset[4];
  int ndim;
  int pad_;
} bp_geom;

// Element offsets of operands 0..n-1 for the linear (row-major) index i.
#define BP_OFFSETS(g, i, n, off)                                            \
  do {                                                                      \
    long rem_ = (i);                                                        \
    for (int k_ = 0; k_ < (n); ++k_) off[k_] = (g).offset[k_];              \
    for (int d_ = (g).ndim - 1; d_ >= 0; --d_) {                            \
      const long sz_ = (g).size[d_];                                        \
      const long id_ = rem_ % sz_;                                          \
      rem_ /= sz_;                                                          \
      for (int k_ = 0; k_ < (n); ++k_) off[k_] += id_ * (g).stride[k_][d_]; \
    }                                                                       \
  } while (0)

// A reduction (host/geometry.hpp ReduceGeom): the kept dims with the input's and output's
// strides, and the reduced dims with the input's.
typedef struct {
  long kept_size[BP_MAX_DIMS];
  long kept_in_stride[BP_MAX_DIMS];
  long kept_out_stride[BP_MAX_DIMS];
  long red_size[BP_MAX_DIMS];
  long red_stride[BP_MAX_DIMS];
  long in_offset;
  long out_offset;
  int nkept;
  int nred;
} bp_rgeom;
