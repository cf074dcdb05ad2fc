// matmul: out[b] = a[b] x b[b] for every batch b of the (broadcast) batch dims, a [n, k],
// b [k, m], out [n, m], each with its own row and column strides. 16x16 tiles staged in
// local memory; the batch geometry (bp_geom over the batch dims, operands out, a, b) gives
// each matrix's first element. Floating dtypes accumulate in C (float for f16/bf16/f32),
// integers in U, wrapping (modular sums of products equal the wrapped result).

#define BP_TILE 16

#ifdef BP_FLOATING
#define BP_MM_ACC C
#define BP_MM_MAC(acc, x, y) ((acc) + (x) * (y))
#define BP_MM_OUT(acc) (acc)
#else
#define BP_MM_ACC U
#define BP_MM_MAC(acc, x, y) ((acc) + (U)(x) * (U)(y))
#define BP_MM_OUT(acc) ((C)(acc))
#endif

#ifndef BP_IS_BOOL
__kernel void matmul_(__global T* out, __global const T* a, __global const T* b, const bp_geom g,
                      const long n, const long k, const long m, const long a_rs, const long a_cs,
                      const long b_rs, const long b_cs, const long o_rs, const long o_cs) {
  __local C a_tile[BP_TILE][BP_TILE + 1];
  __local C b_tile[BP_TILE][BP_TILE + 1];
  const int tx = (int)get_local_id(0), ty = (int)get_local_id(1);
  const long col = (long)get_group_id(0) * BP_TILE + tx;
  const long row = (long)get_group_id(1) * BP_TILE + ty;
  long off[3];
  BP_OFFSETS(g, (long)get_global_id(2), 3, off);
  BP_MM_ACC acc = 0;
  for (long t = 0; t < k; t += BP_TILE) {
    const long ka = t + tx, kb = t + ty;
    a_tile[ty][tx] = (row < n && ka < k) ? LOAD(a, off[1] + row * a_rs + ka * a_cs) : (C)0;
    b_tile[ty][tx] = (kb < k && col < m) ? LOAD(b, off[2] + kb * b_rs + col * b_cs) : (C)0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = 0; q < BP_TILE; ++q) acc = BP_MM_MAC(acc, a_tile[ty][q], b_tile[q][tx]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < n && col < m) STORE(out, off[0] + row * o_rs + col * o_cs, BP_MM_OUT(acc));
}
#endif
