// nonzero_static (compute-ops/nonzero.cpp) in the SDK's three steps
// (sdk/nonzero_kernels.hpp): one work item per block of `block` elements of self (row-major)
// counts its nonzeros; one work item turns the counts into each block's first row and the
// total; one work item per block writes its rows of coordinates; one work item per row past
// the total writes fill_value. NaN is nonzero and -0.0 is zero. The result does not depend
// on the block size, so it is the CPU backends'.

// self's own dims (not merged: the coordinates are the result).
typedef struct {
  long size[BP_MAX_DIMS];
  long stride[BP_MAX_DIMS];
  long offset;
  long ndim;
} bp_nonzero_self;

// Element i's coordinates (row-major) into `at`; returns its offset in self.
inline long bp_nonzero_unravel(const bp_nonzero_self* s, long i, long* at) {
  long offset = s->offset;
  for (long d = s->ndim - 1; d >= 0; --d) {
    at[d] = i % s->size[d];
    i /= s->size[d];
    offset += at[d] * s->stride[d];
  }
  return offset;
}

inline bool bp_nonzero_is_set(__global const T* self, long offset) {
  return LOAD(self, offset) != (C)0;
}

__kernel void nonzero_count(__global long* counts, __global const T* self, const bp_nonzero_self s,
                            const long n, const long block, const long blocks) {
  const long b = get_global_id(0);
  if (b >= blocks) return;
  long at[BP_MAX_DIMS];
  long count = 0;
  const long end = min(n, (b + 1) * block);
  for (long i = b * block; i < end; ++i)
    if (bp_nonzero_is_set(self, bp_nonzero_unravel(&s, i, at))) ++count;
  counts[b] = count;
}

// counts[b] becomes block b's first row; counts[blocks] the total.
__kernel void nonzero_first_rows(__global long* counts, const long blocks) {
  if (get_global_id(0) != 0) return;
  long total = 0;
  for (long b = 0; b < blocks; ++b) {
    const long count = counts[b];
    counts[b] = total;
    total += count;
  }
  counts[blocks] = total;
}

__kernel void nonzero_write(__global long* out, __global const long* first_rows,
                            __global const T* self, const bp_nonzero_self s, const long n,
                            const long block, const long blocks, const long size,
                            const long out_offset, const long row_stride, const long col_stride) {
  const long b = get_global_id(0);
  if (b >= blocks) return;
  long at[BP_MAX_DIMS];
  long row = first_rows[b];
  const long end = min(n, (b + 1) * block);
  for (long i = b * block; i < end && row < size; ++i) {
    if (!bp_nonzero_is_set(self, bp_nonzero_unravel(&s, i, at))) continue;
    for (long d = 0; d < s.ndim; ++d) out[out_offset + row * row_stride + d * col_stride] = at[d];
    ++row;
  }
}

__kernel void nonzero_fill(__global long* out, __global const long* first_rows, const long blocks,
                           const long size, const long fill_value, const long ndim,
                           const long out_offset, const long row_stride, const long col_stride) {
  const long row = get_global_id(0);
  if (row >= size || row < first_rows[blocks]) return;
  for (long d = 0; d < ndim; ++d) out[out_offset + row * row_stride + d * col_stride] = fill_value;
}
