// scatter.src and scatter_reduce.two (compute-ops/scatter.cpp): one work item per line of
// index along dim (its positions that share the other coordinates), which owns that line of
// out: it applies the line's src values in index order, as the SDK's loops
// (sdk/scatter_kernels.hpp) do, so the result is the CPU backends' with no atomics. The host
// has copied self into out. `reduce`: 0 assign (the last write wins), 1 sum, 2 prod, 3 mean,
// 4 amax, 5 amin. An index outside [0, dim_size) stops the work item and is recorded in
// `status`, as index_add records it.

#define SCATTER_ASSIGN 0
#define SCATTER_SUM 1
#define SCATTER_PROD 2
#define SCATTER_MEAN 3
#define SCATTER_AMAX 4
#define SCATTER_AMIN 5

inline C bp_scatter_step(int r, C a, C b) {
#if defined(BP_IS_BOOL)
  return r == SCATTER_PROD || r == SCATTER_AMIN ? (a && b) : (a || b);
#else
#if defined(BP_FLOATING)
  if ((r == SCATTER_AMAX || r == SCATTER_AMIN) && isnan(b)) return b;
#endif
  if (r == SCATTER_AMAX) return a < b ? b : a;
  if (r == SCATTER_AMIN) return b < a ? b : a;
#if defined(BP_FLOATING)
  return r == SCATTER_PROD ? a * b : a + b;
#else
  return r == SCATTER_PROD ? WRAP_MUL(a, b) : WRAP_ADD(a, b);
#endif
#endif
}

inline C bp_scatter_identity(int r) {
#if defined(BP_IS_BOOL)
  return r == SCATTER_PROD || r == SCATTER_AMIN;
#elif defined(BP_FLOATING)
  return r == SCATTER_PROD   ? (C)1
         : r == SCATTER_AMAX ? -(C)INFINITY
         : r == SCATTER_AMIN ? (C)INFINITY
                             : (C)0;
#else
  const C lowest = (C)(((U)1) << (sizeof(C) * 8 - 1));  // the sign bit alone
#ifdef BP_SIGNED
  const C highest = (C)(~(U)lowest);
  return r == SCATTER_PROD ? (C)1 : r == SCATTER_AMAX ? lowest : r == SCATTER_AMIN ? highest : (C)0;
#else
  return r == SCATTER_PROD   ? (C)1
         : r == SCATTER_AMAX ? (C)0
         : r == SCATTER_AMIN ? (C)(~(U)0)
                             : (C)0;
#endif
#endif
}

// sum / count: floor division for integers (PyTorch's), one rounding otherwise.
inline C bp_scatter_mean(C s, long count) {
#if defined(BP_FLOATING)
  return s / (C)count;
#elif defined(BP_IS_BOOL)
  return s;
#else
  const long q = (long)s / count, m = (long)s % count;
  return (C)((m != 0 && ((long)s < 0)) ? q - 1 : q);
#endif
}

// g walks the lines of index (its shape with dim's size set to 1) for out, src and index.
// counts (mean only) has dim_size slots per line.
__kernel void scatter_lines(__global T* out, __global const T* src, __global const long* index,
                            __global long* counts, __global volatile int* status, const bp_geom g,
                            const long lines, const long len, const long out_dim_stride,
                            const long src_dim_stride, const long index_dim_stride,
                            const long dim_size, const int reduce, const int include_self) {
  const long p = get_global_id(0);
  if (p >= lines) return;
  long off[3];
  BP_OFFSETS(g, p, 3, off);
  for (long i = 0; i < len; ++i) {
    const long k = index[off[2] + i * index_dim_stride];
    if (k < 0 || k >= dim_size) {
      if (atomic_cmpxchg(status, 0, 1) == 0) ((__global long*)status)[1] = k;
      return;
    }
  }
  __global long* line_counts = counts + p * dim_size;
  if (reduce != SCATTER_ASSIGN) {
    for (long i = 0; i < len; ++i) {
      const long k = index[off[2] + i * index_dim_stride];
      if (!include_self) STORE(out, off[0] + k * out_dim_stride, bp_scatter_identity(reduce));
      if (reduce == SCATTER_MEAN) line_counts[k] = include_self ? 1 : 0;
    }
  }
  for (long i = 0; i < len; ++i) {
    const long k = index[off[2] + i * index_dim_stride];
    const long o = off[0] + k * out_dim_stride, s = off[1] + i * src_dim_stride;
    if (reduce == SCATTER_ASSIGN) {
      ((__global R*)out)[o] = ((__global const R*)src)[s];
    } else {
      STORE(out, o, bp_scatter_step(reduce, LOAD(out, o), LOAD(src, s)));
      if (reduce == SCATTER_MEAN) line_counts[k] += 1;
    }
  }
  if (reduce == SCATTER_MEAN) {
    for (long i = 0; i < len; ++i) {
      const long k = index[off[2] + i * index_dim_stride];
      if (line_counts[k] > 0) {
        const long o = off[0] + k * out_dim_stride;
        STORE(out, o, bp_scatter_mean(LOAD(out, o), line_counts[k]));
        line_counts[k] = 0;
      }
    }
  }
}
