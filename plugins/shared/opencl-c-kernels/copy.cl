// Data movement and factories: copy_ (raw for equal dtypes, converting from every source
// dtype into the variant otherwise), fill_ (raw bits of the value, converted by the host)
// and arange. Conversions follow docs/ops.md (reference/elementwise.hpp): float -> int
// truncates like PyTorch's x86-64 build, anything -> bool is != 0, integers wrap, and every
// conversion into a floating dtype rounds once (through round-to-odd for f16/bf16).

// ---- conversions into the variant's compute value, ready for STORE --------------------------
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

#define COPY_FROM(stag, FROM)                                                                   \
  __kernel void copy_from_##stag(__global T* out, __global const st_##stag* a, const bp_geom g, \
                                 const long n) {                                                \
    const long i = get_global_id(0);                                                            \
    if (i >= n) return;                                                                         \
    long off[2];                                                                                \
    BP_OFFSETS(g, i, 2, off);                                                                   \
    STORE(out, off[0], FROM(LD_##stag(a, off[1])));                                             \
  }                                                                                             \
  __kernel void copy_from_##stag##_contig(__global T* out, __global const st_##stag* a,         \
                                          const long o0, const long o1) {                       \
    const long i = get_global_id(0);                                                            \
    STORE(out, o0 + i, FROM(LD_##stag(a, o1 + i)));                                             \
  }

COPY_FROM(bool, bp_from_long)
COPY_FROM(i8, bp_from_long)
COPY_FROM(u8, bp_from_long)
COPY_FROM(i16, bp_from_long)
COPY_FROM(i32, bp_from_long)
COPY_FROM(i64, bp_from_long)
COPY_FROM(f16, bp_from_float)
COPY_FROM(bf16, bp_from_float)
COPY_FROM(f32, bp_from_float)
#ifdef BP_HAS_FP64
COPY_FROM(f64, bp_from_double)
#endif

// Equal dtypes: the bits move unchanged (also cat's kernel).
__kernel void copy_raw(__global R* out, __global const R* a, const bp_geom g, const long n) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[2];
  BP_OFFSETS(g, i, 2, off);
  out[off[0]] = a[off[1]];
}
__kernel void copy_raw_contig(__global R* out, __global const R* a, const long o0, const long o1) {
  const long i = get_global_id(0);
  out[o0 + i] = a[o1 + i];
}

// ---- fill_: the value's bits in the dtype, from the host -------------------------------------
__kernel void fill_raw(__global R* out, const bp_geom g, const long n, const R value) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[1];
  BP_OFFSETS(g, i, 1, off);
  out[off[0]] = value;
}
__kernel void fill_raw_contig(__global R* out, const long o0, const R value) {
  const long i = get_global_id(0);
  out[o0 + i] = value;
}

// ---- arange: start + i * step, in double for floating dtypes where the device has it -------
// (one kernel: the value depends on i, so the dense launch's shifted remainder cannot serve)
#if defined(BP_FLOATING)
#ifdef BP_HAS_FP64
#define BP_ARANGE_T double
#define BP_ARANGE_TO(v) bp_from_double(v)
#else
#define BP_ARANGE_T float
#define BP_ARANGE_TO(v) bp_from_float(v)
#endif
#define BP_ARANGE_VALUE(i) BP_ARANGE_TO(start + (BP_ARANGE_T)(i)*step)
#elif !defined(BP_IS_BOOL)
#define BP_ARANGE_T long
#define BP_ARANGE_VALUE(i) ((C)(U)((ulong)start + (ulong)(i) * (ulong)step))
#endif
#ifdef BP_ARANGE_T
__kernel void arange_(__global T* out, const bp_geom g, const long n, const BP_ARANGE_T start,
                      const BP_ARANGE_T step) {
  const long i = get_global_id(0);
  if (i >= n) return;
  long off[1];
  BP_OFFSETS(g, i, 1, off);
  STORE(out, off[0], BP_ARANGE_VALUE(i));
}
#endif
