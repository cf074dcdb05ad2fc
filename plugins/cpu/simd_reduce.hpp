// SIMD building blocks of the CPU reductions, the fused softmax and the matmul path,
// compiled for every x86 target Highway knows (SSE4, AVX2, AVX-512, ...) and dispatched at run time
// to the best one the machine has (simd_reduce.cpp). Each works on one contiguous run.
#pragma once

#include <cstdint>

namespace bp::cpu {

// Sums of n >= 0 elements: vector accumulators over blocks of 2048 elements, the blocks
// added pairwise, so the rounding error grows with log(n) rather than n.
float simd_sum_f32(const float* p, int64_t n);
double simd_sum_f64(const double* p, int64_t n);

// The same sum of `rows` rows of n elements, row r at p + r * stride, into out[r * out_stride]:
// one dispatch for many rows (a reduction over the last dim), each row summed as above.
void simd_sum_rows_f32(const float* p, int64_t n, int64_t stride, int64_t rows, float* out,
                       int64_t out_stride);
void simd_sum_rows_f64(const double* p, int64_t n, int64_t stride, int64_t rows, double* out,
                       int64_t out_stride);

// Sums of the squares of n >= 0 elements, blocked and pairwise as the sums.
float simd_sum_sq_f32(const float* p, int64_t n);
double simd_sum_sq_f64(const double* p, int64_t n);

// Largest / smallest of n >= 1 elements; NaN if any element is NaN (PyTorch's amax/amin).
float simd_max_f32(const float* p, int64_t n);
float simd_min_f32(const float* p, int64_t n);
double simd_max_f64(const double* p, int64_t n);
double simd_min_f64(const double* p, int64_t n);
// The largest |x| of n >= 0 elements (0 for none); NaN if any element is NaN.
float simd_abs_max_f32(const float* p, int64_t n);

// e[i] = exp(x[i] - m) for n elements, m >= every x[i] and finite; returns the sum of e
// (pairwise, as above). Highway's Exp: at most 1 ulp from the true value (f32).
float simd_exp_shift_f32(const float* x, float m, float* e, int64_t n);
double simd_exp_shift_f64(const double* x, double m, double* e, int64_t n);

// y[i] = x[i] / s (softmax's normalisation; divided, not multiplied by 1 / s, so that it
// rounds as the composite's div) and y[i] = (x[i] - a) - b (log_softmax), for n elements;
// y may be x.
void simd_div_f32(const float* x, float s, float* y, int64_t n);
void simd_sub_sub_f32(const float* x, float a, float b, float* y, int64_t n);

}  // namespace bp::cpu
