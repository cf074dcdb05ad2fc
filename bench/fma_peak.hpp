// The FP32 FMA peak of one core, measured: independent chains of fused multiply-adds on
// registers only (no memory traffic), with the widest vectors this CPU has (AVX-512, else
// AVX2). bench/cpu_vs_libtorch.cpp runs it on every thread as the anchor of the matmul rows
// (issue 8: matmul >= 70% of the peak measured in the same run). x86-64 with g++ only,
// like the program that includes it.
#pragma once

#include <immintrin.h>

namespace bp::bench {

// 12 chains: more than FMA latency (4 cycles) x FMA units (2), so the units never wait.
constexpr int kFmaChains = 12;

__attribute__((target("avx512f"))) inline double fma_peak_avx512(long iterations) {
  __m512 acc[kFmaChains];
  for (int k = 0; k < kFmaChains; ++k) acc[k] = _mm512_set1_ps(1e-3f * static_cast<float>(k));
  const __m512 m = _mm512_set1_ps(0.999f), a = _mm512_set1_ps(1e-3f);
  for (long i = 0; i < iterations; ++i)
    for (int k = 0; k < kFmaChains; ++k) acc[k] = _mm512_fmadd_ps(acc[k], m, a);
  for (int k = 0; k < kFmaChains; ++k) asm volatile("" : : "v"(acc[k]));  // keep the results
  return 2.0 * 16 * kFmaChains * static_cast<double>(iterations);
}

__attribute__((target("avx2,fma"))) inline double fma_peak_avx2(long iterations) {
  __m256 acc[kFmaChains];
  for (int k = 0; k < kFmaChains; ++k) acc[k] = _mm256_set1_ps(1e-3f * static_cast<float>(k));
  const __m256 m = _mm256_set1_ps(0.999f), a = _mm256_set1_ps(1e-3f);
  for (long i = 0; i < iterations; ++i)
    for (int k = 0; k < kFmaChains; ++k) acc[k] = _mm256_fmadd_ps(acc[k], m, a);
  for (int k = 0; k < kFmaChains; ++k) asm volatile("" : : "x"(acc[k]));
  return 2.0 * 8 * kFmaChains * static_cast<double>(iterations);
}

// Runs `iterations` rounds on the calling thread; returns the floating-point operations done.
inline double fma_peak_flops(long iterations) {
  return __builtin_cpu_supports("avx512f") ? fma_peak_avx512(iterations)
                                           : fma_peak_avx2(iterations);
}

}  // namespace bp::bench
