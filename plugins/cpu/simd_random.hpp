// SIMD uniform_ and normal_ for the CPU plugin's random kernels (random.cpp): Philox 4x32-10
// computed for one element per 64-bit lane, compiled for every x86 target Highway knows and
// dispatched at run time (simd_random.cpp). Each function writes element j of a contiguous run from
// the block of counter first_counter + j, with the very steps of sdk/philox.hpp's uniform_value and
// normal_value (integer words, then IEEE products, sums, quotients and square roots rounded once
// each, in the same order), so the values are the SDK kernel's bits on every target.
#pragma once

#include <cstdint>

namespace bp::cpu {

// uniform_value's out[j] = x * (to - from) + from: f32 in float, x = (word 0 & (2^24 - 1))
// / 2^24, from and to rounded to float; f64 in double, x = (words 0-1 & (2^53 - 1)) / 2^53.
void simd_uniform_f32(float* out, int64_t n, uint64_t seed, uint64_t first_counter, double from,
                      double to);
void simd_uniform_f64(double* out, int64_t n, uint64_t seed, uint64_t first_counter, double from,
                      double to);
// out[j] = mean + std * z rounded once to the dtype, z the SDK's Box-Muller sample in double.
void simd_normal_f32(float* out, int64_t n, uint64_t seed, uint64_t first_counter, double mean,
                     double std);
void simd_normal_f64(double* out, int64_t n, uint64_t seed, uint64_t first_counter, double mean,
                     double std);

}  // namespace bp::cpu
