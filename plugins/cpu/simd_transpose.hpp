// Internal header of the CPU backend: the SIMD transpose behind copy_'s transposing path
// (copy.cpp), compiled for every x86 target Highway knows and dispatched at run time to the
// best one the machine has (simd_transpose.cpp).
#pragma once

#include <cstdint>

namespace bp::cpu::simd {

// dst[j * dst_stride + i] = src[i * src_stride + j] for i < rows, j < cols: the transpose
// of a rows x cols matrix of 4-byte elements (moved as bits, so any 4-byte dtype), strides
// in elements. 8x8 in-register transposes inside 16x16 blocks, so every 64-byte line of
// either matrix is read or written whole, once.
void transpose_4byte(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride,
                     int64_t rows, int64_t cols);

}  // namespace bp::cpu::simd
