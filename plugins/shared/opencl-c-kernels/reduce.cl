// Reductions: sum, prod, amax, amin, argmax, argmin, all, any. One work-group per output
// element: each work-item folds the reduced elements r = lid, lid + wg, ... (strided through
// the reduced dims), then the group combines its partial results in a tree in local memory.
// The host picks the group size (a power of two up to BP_WG_MAX, not above the number of
// reduced elements). f16/bf16/f32 accumulate in float, f64 in double; integers and bool in
// 64 bits, wrapping like PyTorch. amax/amin propagate NaN; argmax/argmin give the first index
// of the extreme, NaN counting as the extreme (docs/ops.md).

#define BP_WG_MAX 256

#define RED_SETUP                                     \
  const long o = get_group_id(0);                     \
  const int lid = (int)get_local_id(0);               \
  const int wg = (int)get_local_size(0);              \
  long in_base = g.in_offset, out_off = g.out_offset; \
  {                                                   \
    long rem_ = o;                                    \
    for (int d_ = g.nkept - 1; d_ >= 0; --d_) {       \
      const long id_ = rem_ % g.kept_size[d_];        \
      rem_ /= g.kept_size[d_];                        \
      in_base += id_ * g.kept_in_stride[d_];          \
      out_off += id_ * g.kept_out_stride[d_];         \
    }                                                 \
  }                                                   \
  long count = 1;                                     \
  for (int d_ = 0; d_ < g.nred; ++d_) count *= g.red_size[d_];

// The input offset of reduced element r (row-major over the reduced dims).
#define RED_OFFSET(r, res)                     \
  do {                                         \
    long rem_ = (r);                           \
    res = in_base;                             \
    for (int d_ = g.nred - 1; d_ >= 0; --d_) { \
      const long id_ = rem_ % g.red_size[d_];  \
      rem_ /= g.red_size[d_];                  \
      res += id_ * g.red_stride[d_];           \
    }                                          \
  } while (0)

// A fold into ACC: acc = STEP(acc, x) per element, partials merged with MERGE(a, b),
// the result written with FINISH(out, offset, acc).
#define RED_FOLD(name, OT, ACC, INIT, STEP, MERGE, FINISH)                       \
  __kernel void name(__global const T* in, __global OT* out, const bp_rgeom g) { \
    __local ACC scratch[BP_WG_MAX];                                              \
    RED_SETUP                                                                    \
    ACC acc = INIT;                                                              \
    for (long r = lid; r < count; r += wg) {                                     \
      long off;                                                                  \
      RED_OFFSET(r, off);                                                        \
      const C x = LOAD(in, off);                                                 \
      acc = STEP(acc, x);                                                        \
    }                                                                            \
    scratch[lid] = acc;                                                          \
    for (int s = wg / 2; s > 0; s >>= 1) {                                       \
      barrier(CLK_LOCAL_MEM_FENCE);                                              \
      if (lid < s) scratch[lid] = MERGE(scratch[lid], scratch[lid + s]);         \
    }                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                \
    if (lid == 0) FINISH(out, out_off, scratch[0]);                              \
  }

#define BP_ADD(a, b) ((a) + (b))
#define BP_MUL(a, b) ((a) * (b))
#define BP_STORE_ACC(p, i, v) STORE(p, i, v)
#define BP_STORE_LONG(p, i, v) ((p)[i] = (long)(v))
#define BP_STORE_FLAG(p, i, v) ((p)[i] = (uchar)((v) != 0))

#ifdef BP_FLOATING
RED_FOLD(sum_, T, C, K(0.0), BP_ADD, BP_ADD, BP_STORE_ACC)
RED_FOLD(prod_, T, C, K(1.0), BP_MUL, BP_MUL, BP_STORE_ACC)
// NaN wins; otherwise the larger (smaller), the earlier one on ties.
inline C bp_max_nan(C a, C b) {
  return isnan(a) ? a : (isnan(b) || b > a) ? b : a;
}
inline C bp_min_nan(C a, C b) {
  return isnan(a) ? a : (isnan(b) || b < a) ? b : a;
}
RED_FOLD(amax_, T, C, -INFINITY, bp_max_nan, bp_max_nan, BP_STORE_ACC)
RED_FOLD(amin_, T, C, INFINITY, bp_min_nan, bp_min_nan, BP_STORE_ACC)
#else
// Integers and bool: 64-bit wrapping sums and products, into i64 or the input's dtype.
#define BP_WIDEN(a, x) ((ulong)(long)(x))
#define BP_SUM_STEP(a, x) ((a) + BP_WIDEN(a, x))
#define BP_PROD_STEP(a, x) ((a)*BP_WIDEN(a, x))
#ifdef BP_IS_BOOL
#define BP_STORE_SAME(p, i, v) ((p)[i] = (uchar)((v) != 0))
#else
#define BP_STORE_SAME(p, i, v) ((p)[i] = (C)(U)(v))
#endif
RED_FOLD(sum_i64, long, ulong, 0, BP_SUM_STEP, BP_ADD, BP_STORE_LONG)
RED_FOLD(sum_same, T, ulong, 0, BP_SUM_STEP, BP_ADD, BP_STORE_SAME)
RED_FOLD(prod_i64, long, ulong, 1, BP_PROD_STEP, BP_MUL, BP_STORE_LONG)
RED_FOLD(prod_same, T, ulong, 1, BP_PROD_STEP, BP_MUL, BP_STORE_SAME)
#define BP_IMAX(a, b) ((b) > (a) ? (b) : (a))
#define BP_IMIN(a, b) ((b) < (a) ? (b) : (a))
#if defined(BP_IS_BOOL)
#define BP_C_LOWEST 0
#define BP_C_HIGHEST 1
#elif defined(BP_VARIANT_I8)
#define BP_C_LOWEST CHAR_MIN
#define BP_C_HIGHEST CHAR_MAX
#elif defined(BP_VARIANT_U8)
#define BP_C_LOWEST 0
#define BP_C_HIGHEST UCHAR_MAX
#elif defined(BP_VARIANT_I16)
#define BP_C_LOWEST SHRT_MIN
#define BP_C_HIGHEST SHRT_MAX
#elif defined(BP_VARIANT_I32)
#define BP_C_LOWEST INT_MIN
#define BP_C_HIGHEST INT_MAX
#else
#define BP_C_LOWEST LONG_MIN
#define BP_C_HIGHEST LONG_MAX
#endif
RED_FOLD(amax_, T, C, (C)BP_C_LOWEST, BP_IMAX, BP_IMAX, BP_STORE_ACC)
RED_FOLD(amin_, T, C, (C)BP_C_HIGHEST, BP_IMIN, BP_IMIN, BP_STORE_ACC)
#endif

// all/any into bool or u8 (both stored as 0/1).
#define BP_ALL_STEP(a, x) ((a) && ((x) != 0))
#define BP_ANY_STEP(a, x) ((a) || ((x) != 0))
#define BP_AND(a, b) ((a) && (b))
#define BP_OR(a, b) ((a) || (b))
RED_FOLD(all_, uchar, int, 1, BP_ALL_STEP, BP_AND, BP_STORE_FLAG)
RED_FOLD(any_, uchar, int, 0, BP_ANY_STEP, BP_OR, BP_STORE_FLAG)

// ---- argmax / argmin: (value, index) pairs; index -1 marks "no element yet" ------------------
// Whether (b, ib) beats (a, ia): NaN first, then the extreme, then the smaller index.
inline int bp_arg_beats(C a, long ia, C b, long ib, int want_max) {
  if (ib < 0) return 0;
  if (ia < 0) return 1;
#ifdef BP_FLOATING
  const int an = isnan(a), bn = isnan(b);
  if (an || bn) return (an && bn) ? ib < ia : bn;
#endif
  if (b == a) return ib < ia;
  return want_max ? b > a : b < a;
}

#define ARG_REDUCE(name, WANT_MAX)                                                       \
  __kernel void name(__global const T* in, __global long* out, const bp_rgeom g) {       \
    __local C best_value[BP_WG_MAX];                                                     \
    __local long best_index[BP_WG_MAX];                                                  \
    RED_SETUP                                                                            \
    C value = 0;                                                                         \
    long index = -1;                                                                     \
    for (long r = lid; r < count; r += wg) {                                             \
      long off;                                                                          \
      RED_OFFSET(r, off);                                                                \
      const C x = LOAD(in, off);                                                         \
      if (bp_arg_beats(value, index, x, r, WANT_MAX)) {                                  \
        value = x;                                                                       \
        index = r;                                                                       \
      }                                                                                  \
    }                                                                                    \
    best_value[lid] = value;                                                             \
    best_index[lid] = index;                                                             \
    for (int s = wg / 2; s > 0; s >>= 1) {                                               \
      barrier(CLK_LOCAL_MEM_FENCE);                                                      \
      if (lid < s && bp_arg_beats(best_value[lid], best_index[lid], best_value[lid + s], \
                                  best_index[lid + s], WANT_MAX)) {                      \
        best_value[lid] = best_value[lid + s];                                           \
        best_index[lid] = best_index[lid + s];                                           \
      }                                                                                  \
    }                                                                                    \
    barrier(CLK_LOCAL_MEM_FENCE);                                                        \
    if (lid == 0) out[out_off] = best_index[0];                                          \
  }

#ifndef BP_IS_BOOL
ARG_REDUCE(argmax_, 1)
ARG_REDUCE(argmin_, 0)
#endif

// ---- scans: cumsum, cumprod --------------------------------------------------------------
// One work item per line along the scanned dim (the host's geometry walks the lines: out and
// self with that dim's size set to 1). Each accumulates in order, in double for f32 and f64
// where the device has fp64 (PyTorch's CPU accumulator), float for f16/bf16, 64 bits for
// integers (wrapping), and writes every prefix rounded into the dtype.
#if defined(BP_FLOATING) && defined(BP_HAS_FP64) && !defined(BP_HALF)
#define SCAN_ACC double
#define SCAN_LOAD(p, i) ((double)LOAD(p, i))
#elif defined(BP_FLOATING)
#define SCAN_ACC float
#define SCAN_LOAD(p, i) ((float)LOAD(p, i))
#else
#define SCAN_ACC ulong
#define SCAN_LOAD(p, i) ((ulong)(long)LOAD(p, i))
#endif

#define SCAN(name, OP, INIT)                                                                     \
  __kernel void name(__global T* out, __global const T* self, const bp_geom g, const long lines, \
                     const long len, const long out_stride, const long self_stride) {            \
    const long p = get_global_id(0);                                                             \
    if (p >= lines) return;                                                                      \
    long off[2];                                                                                 \
    BP_OFFSETS(g, p, 2, off);                                                                    \
    SCAN_ACC acc = INIT;                                                                         \
    for (long i = 0; i < len; ++i) {                                                             \
      acc = acc OP SCAN_LOAD(self, off[1] + i * self_stride);                                    \
      STORE(out, off[0] + i * out_stride, (C)acc);                                               \
    }                                                                                            \
  }

SCAN(cumsum_lines, +, (SCAN_ACC)0)
SCAN(cumprod_lines, *, (SCAN_ACC)1)
