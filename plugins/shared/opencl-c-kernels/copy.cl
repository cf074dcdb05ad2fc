// Data movement and factories: copy_ (raw for equal dtypes, converting from every source
// dtype into the variant otherwise), fill_ (raw bits of the value, converted by the host)
// and arange. Conversions follow docs/ops.md (reference/elementwise.hpp): float -> int
// truncates like PyTorch's x86-64 build, anything -> bool is != 0, integers wrap, and every
// conversion into a floating dtype rounds once (through round-to-odd for f16/bf16).

// The conversions into the variant (bp_from_long, bp_from_float, bp_from_double) are
// prelude.h's.

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
