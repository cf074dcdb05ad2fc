// sort.stable (compute-ops/sort.cpp): one work item per element of self. Its place in the
// sorted line is its rank: the elements of its line that sort before it, plus the equal ones
// at smaller indices (a stable sort), with NaN above every number as PyTorch's CPU orders
// it. That is the SDK's std::stable_sort permutation (sdk/sort_kernels.hpp), found without
// scratch memory in O(len) per element; a merge sort is the step when a profile needs it.
// The value moves as raw bits.

#if defined(BP_FLOATING)
// a strictly before b: NaN is the largest, equal to itself.
inline bool bp_sorts_before(C a, C b, int descending) {
  if (isnan(a)) return descending && !isnan(b);
  if (isnan(b)) return !descending;
  return descending ? b < a : a < b;
}
#else
inline bool bp_sorts_before(C a, C b, int descending) {
  return descending ? b < a : a < b;
}
#endif

// g walks the lines (self's shape with dim's size set to 1) for values, indices and self.
__kernel void sort_rank(__global R* values, __global long* indices, __global const T* self,
                        const bp_geom g, const long n, const long len, const long values_stride,
                        const long indices_stride, const long self_stride, const int descending) {
  const long p = get_global_id(0);
  if (p >= n) return;
  const long line = p / len, j = p - line * len;
  long off[3];
  BP_OFFSETS(g, line, 3, off);
  const C x = LOAD(self, off[2] + j * self_stride);
  long rank = 0;
  for (long i = 0; i < len; ++i) {
    const C y = LOAD(self, off[2] + i * self_stride);
    if (bp_sorts_before(y, x, descending) || (i < j && !bp_sorts_before(x, y, descending))) ++rank;
  }
  values[off[0] + rank * values_stride] = ((__global const R*)self)[off[2] + j * self_stride];
  indices[off[1] + rank * indices_stride] = j;
}
