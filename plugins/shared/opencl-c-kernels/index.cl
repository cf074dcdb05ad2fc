// index_select and gather, one kernel: out[i] = self[s(i) + index[x(i)] * self_dim_stride],
// where the geometry walks the output with three operands: the output, self with its
// indexed dim's stride set to 0, and the index (index_select: stride only along the dim;
// gather: the index's own strides). Elements move as raw bits. An index outside
// [0, dim_size) is not read through: the first one seen is recorded in `status` (int flag at
// byte 0, the value as a long at byte 8) and the host reports it.

#define TAKE(name, IT)                                                                  \
  __kernel void name(__global R* out, __global const R* self, __global const IT* index, \
                     __global volatile int* status, const bp_geom g, const long n,      \
                     const long dim_stride, const long dim_size) {                      \
    const long i = get_global_id(0);                                                    \
    if (i >= n) return;                                                                 \
    long off[3];                                                                        \
    BP_OFFSETS(g, i, 3, off);                                                           \
    const long idx = index[off[2]];                                                     \
    if (idx < 0 || idx >= dim_size) {                                                   \
      if (atomic_cmpxchg(status, 0, 1) == 0) ((__global long*)status)[1] = idx;         \
      return;                                                                           \
    }                                                                                   \
    out[off[0]] = self[off[1] + idx * dim_stride];                                      \
  }

TAKE(take_i64, long)
TAKE(take_i32, int)

// index_add: out[o + index[i] * out_dim_stride] += alpha * source[s + i * source_dim_stride]
// for i = 0..n-1 in order, one work item per position of the other dims (the geometry walks
// out and source with the indexed dim's size set to 1): each element's adds keep the index's
// order with one rounding each, as the CPU backends, and no atomics are needed. The host has
// copied self into out. An index outside [0, dim_size) stops the work item and is recorded in
// `status` as take records it.
#if defined(BP_IS_BOOL)
#define ADD_SCALED(x, y, a) ((x) || ((a) && (y)))
#elif defined(BP_FLOATING)
#define ADD_SCALED(x, y, a) ((x) + (a) * (y))
#else
#define ADD_SCALED(x, y, a) WRAP_ADD(x, WRAP_MUL(a, y))
#endif

#define INDEX_ADD(name, IT)                                                                        \
  __kernel void name(__global T* out, __global const T* source, __global const IT* index,          \
                     __global volatile int* status, const bp_geom g, const long positions,         \
                     const long n, const long index_offset, const long index_stride,               \
                     const long out_dim_stride, const long source_dim_stride, const long dim_size, \
                     const C alpha) {                                                              \
    const long p = get_global_id(0);                                                               \
    if (p >= positions) return;                                                                    \
    long off[2];                                                                                   \
    BP_OFFSETS(g, p, 2, off);                                                                      \
    for (long i = 0; i < n; ++i) {                                                                 \
      const long k = index[index_offset + i * index_stride];                                       \
      if (k < 0 || k >= dim_size) {                                                                \
        if (atomic_cmpxchg(status, 0, 1) == 0) ((__global long*)status)[1] = k;                    \
        return;                                                                                    \
      }                                                                                            \
      const long o = off[0] + k * out_dim_stride;                                                  \
      const C x = LOAD(out, o);                                                                    \
      const C y = LOAD(source, off[1] + i * source_dim_stride);                                    \
      STORE(out, o, ADD_SCALED(x, y, alpha));                                                      \
    }                                                                                              \
  }

INDEX_ADD(index_add_i64, long)
INDEX_ADD(index_add_i32, int)
