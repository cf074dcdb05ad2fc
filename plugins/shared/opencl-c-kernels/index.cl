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
