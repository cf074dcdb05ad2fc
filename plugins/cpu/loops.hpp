// Internal header of the CPU backend: the n-ary strided iterator every elementwise kernel
// runs on. A kernel gives N tensors of one shape (the output first, then the inputs, which
// the host has already expanded to the output's shape) and a 1-D inner loop; the iterator
//   1. drops size-1 dims and orders the rest so the output's smallest stride is innermost
//      (a transposed output is still written in memory order),
//   2. merges dims that are contiguous in every operand, so a contiguous (or contiguous
//      plus broadcast-scalar) call becomes a single 1-D loop of numel elements,
//   3. runs the inner loop over rows of the innermost dim, splitting the flat range among
//      OpenMP threads only above kParallelGrain elements (small ops never start a region).
// Everything lives on the stack: no heap allocation per call.
#pragma once

#include <backplane/plugin.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace bp::cpu {

// Elements per thread below which a parallel region costs more than it saves.
inline constexpr int64_t kParallelGrain = 32768;

// Enough for any tensor: every dim kept has size >= 2, and numel fits in int64.
inline constexpr int kMaxDims = 64;

template <int N>
struct StridedIter {
  int ndim = 0;                  // >= 1 once built
  int64_t numel = 0;             // 0: nothing to do
  int64_t shape[kMaxDims];       // innermost first
  int64_t strides[kMaxDims][N];  // bytes
  char* base[N];                 // first element of each operand
  int64_t itemsize[N];           // bytes per element of each operand
};

// Insertion sort of the iterator's first `nd` dims (stable, ndim is small): dim a goes
// inside dim b when the first operand whose strides differ there, ignoring broadcast (0)
// strides, has the smaller stride at a.
template <int N>
void sort_dims_inner_first(StridedIter<N>& it, int nd) {
  auto inner_than = [&](int a, int b) {
    for (int k = 0; k < N; ++k) {
      const int64_t sa = it.strides[a][k], sb = it.strides[b][k];
      if (sa == 0 || sb == 0 || sa == sb) continue;
      return sa < sb;
    }
    return false;
  };
  for (int i = 1; i < nd; ++i) {
    for (int j = i; j > 0 && inner_than(j, j - 1); --j) {
      std::swap(it.shape[j], it.shape[j - 1]);
      for (int k = 0; k < N; ++k) std::swap(it.strides[j][k], it.strides[j - 1][k]);
    }
  }
}

// Merges dim i+1 into dim i when every operand steps through both as one; returns the
// number of dims left.
template <int N>
int merge_dims(StridedIter<N>& it, int nd) {
  int merged = 0;
  for (int i = 0; i < nd; ++i) {
    if (merged > 0) {
      const int last = merged - 1;
      bool can = true;
      for (int k = 0; k < N && can; ++k)
        can = it.strides[i][k] == it.strides[last][k] * it.shape[last];
      if (can) {
        it.shape[last] *= it.shape[i];
        continue;
      }
    }
    it.shape[merged] = it.shape[i];
    for (int k = 0; k < N; ++k) it.strides[merged][k] = it.strides[i][k];
    ++merged;
  }
  return merged;
}

// Builds the iterator. Returns false when the shapes differ (the host expands inputs, so
// this is a bug in the caller, reported by the kernel).
template <int N>
bool make_iter(StridedIter<N>& it, const bp_tensor* const (&ts)[N], const int64_t (&itemsize)[N]) {
  const bp_tensor* out = ts[0];
  for (int k = 0; k < N; ++k) {
    if (ts[k]->ndim != out->ndim) return false;
    for (int32_t d = 0; d < out->ndim; ++d)
      if (ts[k]->shape[d] != out->shape[d]) return false;
    it.base[k] = static_cast<char*>(ts[k]->data) + ts[k]->byte_offset;
    it.itemsize[k] = itemsize[k];
  }
  int64_t numel = 1;
  int nd = 0;
  // Dims with size != 1, innermost first.
  for (int32_t d = out->ndim - 1; d >= 0; --d) {
    const int64_t size = out->shape[d];
    numel *= size;
    if (size == 1) continue;
    if (size == 0) break;
    it.shape[nd] = size;
    for (int k = 0; k < N; ++k) it.strides[nd][k] = ts[k]->strides[d] * itemsize[k];
    ++nd;
  }
  it.numel = numel;
  if (numel == 0) return true;
  sort_dims_inner_first(it, nd);
  int merged = merge_dims(it, nd);
  if (merged == 0) {  // 0-d, or only size-1 dims: one element
    it.shape[0] = 1;
    for (int k = 0; k < N; ++k) it.strides[0][k] = itemsize[k];
    merged = 1;
  }
  it.ndim = merged;
  return true;
}

// Calls loop(ptrs, strides, n) for the rows that cover flat elements [begin, end) in the
// iterator's order: ptrs[k] is operand k's first element of the row, strides[k] its byte
// stride along the row, n the row length.
template <int N, typename Loop>
void run_range(const StridedIter<N>& it, int64_t begin, int64_t end, Loop& loop) {
  if (begin >= end) return;
  int64_t idx[kMaxDims];
  char* ptrs[N];
  for (int k = 0; k < N; ++k) ptrs[k] = it.base[k];
  int64_t rest = begin;
  for (int d = 0; d < it.ndim; ++d) {
    idx[d] = rest % it.shape[d];
    rest /= it.shape[d];
    for (int k = 0; k < N; ++k) ptrs[k] += idx[d] * it.strides[d][k];
  }
  const int64_t* inner_strides = it.strides[0];
  int64_t pos = begin;
  while (true) {
    const int64_t n = std::min(it.shape[0] - idx[0], end - pos);
    loop(static_cast<char* const*>(ptrs), inner_strides, n);
    pos += n;
    if (pos >= end) return;
    // Step to the start of the next row: rewind the inner dim, carry into the outer ones.
    for (int k = 0; k < N; ++k) ptrs[k] -= idx[0] * it.strides[0][k];
    idx[0] = 0;
    for (int d = 1; d < it.ndim; ++d) {
      ++idx[d];
      for (int k = 0; k < N; ++k) ptrs[k] += it.strides[d][k];
      if (idx[d] < it.shape[d]) break;
      for (int k = 0; k < N; ++k) ptrs[k] -= idx[d] * it.strides[d][k];
      idx[d] = 0;
    }
  }
}

// Number of threads for `numel` elements: one below two grains (no parallel region), then
// at most one per grain.
inline int threads_for(int64_t numel) {
  if (numel < 2 * kParallelGrain || omp_in_parallel()) return 1;
  const int64_t by_size = numel / kParallelGrain;
  const int max_threads = omp_get_max_threads();
  return static_cast<int>(std::min<int64_t>(max_threads, by_size));
}

// Runs body(begin, end) over [0, numel), split into contiguous chunks among threads;
// chunk boundaries are multiples of 64 elements so threads never share a cache line of
// the output (and streaming stores stay aligned).
template <typename Body>
void parallel_range(int64_t numel, Body&& body) {
  const int nthreads = threads_for(numel);
  if (nthreads <= 1) {
    body(int64_t{0}, numel);
    return;
  }
#pragma omp parallel num_threads(nthreads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t blocks = (numel + 63) / 64;
    const int64_t begin = std::min(numel, (blocks * t / nt) * 64);
    const int64_t end = std::min(numel, (blocks * (t + 1) / nt) * 64);
    body(begin, end);
  }
}

// Runs body(begin, end) over [0, n) items that cost `cost` elements of work each (the lines
// of a sort or a scatter), split evenly among threads when n * cost is worth it.
template <typename Body>
void parallel_items(int64_t n, int64_t cost, Body&& body) {
  const int nthreads =
      static_cast<int>(std::min<int64_t>(threads_for(n * std::max<int64_t>(cost, 1)), n));
  if (nthreads <= 1) {
    body(int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(nthreads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    body(n * t / nt, n * (t + 1) / nt);
  }
}

// The split the SDK's kernel templates (sdk/*_kernels.hpp) take: OpenMP threads over
// elements (parallel_range), or over items of `cost` elements each (parallel_items).
struct OpenMpSplit {
  template <typename Body>
  static void run(int64_t n, Body&& body, int64_t cost = 1) {
    if (cost == 1)
      parallel_range(n, body);
    else
      parallel_items(n, cost, body);
  }
};

// The whole iteration: rows over all threads.
template <int N, typename Loop>
void for_each_row(const StridedIter<N>& it, Loop&& loop) {
  if (it.numel == 0) return;
  parallel_range(it.numel, [&](int64_t begin, int64_t end) { run_range(it, begin, end, loop); });
}

// The common small-op call without building an iterator: when every operand is dense
// (row-major contiguous) over the output's shape and there are too few elements for more
// than one thread, the whole call is one row. Returns false when it is not that case.
template <int N, typename Loop>
[[gnu::always_inline]] inline bool run_dense_small(const bp_tensor* const (&ts)[N],
                                                   const int64_t (&itemsize)[N], Loop& loop) {
  const bp_tensor* out = ts[0];
  for (int k = 1; k < N; ++k)
    if (ts[k]->ndim != out->ndim) return false;
  int64_t numel = 1;
  for (int32_t d = out->ndim - 1; d >= 0; --d) {
    const int64_t size = out->shape[d];
    if (size == 0) return false;
    for (int k = 0; k < N; ++k)
      if (ts[k]->shape[d] != size || (size != 1 && ts[k]->strides[d] != numel)) return false;
    numel *= size;
    if (numel >= 2 * kParallelGrain) return false;  // leaves the threads to for_each_row
  }
  char* ptrs[N];
  int64_t strides[N];
  for (int k = 0; k < N; ++k) {
    ptrs[k] = static_cast<char*>(ts[k]->data) + ts[k]->byte_offset;
    strides[k] = itemsize[k];
  }
  loop(static_cast<char* const*>(ptrs), static_cast<const int64_t*>(strides), numel);
  return true;
}

// for_each_row_of without the shortcut: make_iter and for_each_row. Out of line, so that
// what each kernel inlines is only the shortcut (the compiler's own choice moved with the
// size of the calling kernel, and with it ~50 instructions of a 1-element add).
template <int N, typename Loop>
[[gnu::noinline]] bool for_each_row_iterated(const bp_tensor* const (&ts)[N],
                                             const int64_t (&itemsize)[N], Loop& loop) {
  StridedIter<N> it;
  if (!make_iter(it, ts, itemsize)) return false;
  for_each_row(it, loop);
  return true;
}

// make_iter and for_each_row, taking run_dense_small's shortcut when it applies. Returns
// false when the shapes differ (as make_iter).
template <int N, typename Loop>
[[gnu::always_inline]] inline bool for_each_row_of(const bp_tensor* const (&ts)[N],
                                                   const int64_t (&itemsize)[N], Loop&& loop) {
  if (run_dense_small(ts, itemsize, loop)) return true;
  return for_each_row_iterated(ts, itemsize, loop);
}

}  // namespace bp::cpu
