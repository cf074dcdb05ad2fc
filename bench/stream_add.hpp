// The best hand-written loop for a large f32 add into an existing output, the anchor of
// issue 8's 16M add_out row: the widest vectors this CPU has (AVX-512, else AVX2), and
// streaming (non-temporal) stores, which skip reading the destination's lines before
// writing them (a memory-bound add then moves 12 bytes per element, not 16). Each OpenMP
// thread takes one contiguous slice. x86-64 with g++ only, like bench/cpu_vs_libtorch.cpp.
#pragma once

#include <immintrin.h>
#include <omp.h>

#include <cstdint>

namespace bp::bench {

// out[i] = a[i] + b[i] for i in [begin, end); `out + begin` must be 64-byte aligned and
// the slice a multiple of 16 elements (stream_add's slices are).
__attribute__((target("avx512f"))) inline void stream_add_avx512(const float* a, const float* b,
                                                                 float* out, int64_t begin,
                                                                 int64_t end) {
  for (int64_t i = begin; i < end; i += 16)
    _mm512_stream_ps(out + i, _mm512_add_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));
}

__attribute__((target("avx2"))) inline void stream_add_avx2(const float* a, const float* b,
                                                            float* out, int64_t begin,
                                                            int64_t end) {
  for (int64_t i = begin; i < end; i += 8)
    _mm256_stream_ps(out + i, _mm256_add_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
}

// The whole add over the OpenMP threads; `out` 64-byte aligned, n a multiple of 16 * threads
// (the 16M-element benchmark's is).
inline void stream_add(const float* a, const float* b, float* out, int64_t n) {
  const bool avx512 = __builtin_cpu_supports("avx512f");
#pragma omp parallel
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t begin = n * t / nt / 16 * 16, end = t + 1 == nt ? n : n * (t + 1) / nt / 16 * 16;
    if (avx512)
      stream_add_avx512(a, b, out, begin, end);
    else
      stream_add_avx2(a, b, out, begin, end);
  }
  _mm_sfence();  // streamed lines are visible to every thread before the next iteration
}

}  // namespace bp::bench
