// SIMD transpose of 4-byte matrices (simd_transpose.hpp). The 8x8 kernel needs 256-bit
// vectors (AVX2 and the AVX-512 targets); other targets move the same blocks one element at
// a time, which keeps the cache behaviour, only not the shuffle speed.
#include "simd_transpose.hpp"

#include <algorithm>
#include <cstdint>

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd_transpose.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace bp::cpu::simd {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Edge of the block whose lines (16 x 4 bytes = one cache line per row) are moved together.
constexpr int64_t kBlock = 16;

// The part of a block the vector kernel does not cover, element by element.
void TransposeScalar(const uint32_t* HWY_RESTRICT src, int64_t ss, uint32_t* HWY_RESTRICT dst,
                     int64_t ds, int64_t rows, int64_t cols) {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i) dst[j * ds + i] = src[i * ss + j];
}

#if HWY_CAP_GE256 && HWY_ARCH_X86
constexpr bool kVector8x8 = true;

// An 8x8 transpose in registers: 32-bit interleaves pair rows, 64-bit interleaves make
// runs of four, and 128-bit halves from two registers complete each output row (the
// classic unpack / unpack / permute2f128 sequence, in Highway's portable names).
HWY_INLINE void Transpose8x8(const uint32_t* HWY_RESTRICT src, int64_t ss,
                             uint32_t* HWY_RESTRICT dst, int64_t ds) {
  const hn::Full256<uint32_t> d;
  const hn::Full256<uint64_t> d64;
  using V = decltype(hn::Zero(d));
  V r[8];
  for (int k = 0; k < 8; ++k) r[k] = hn::LoadU(d, src + k * ss);
  V t[8];
  for (int k = 0; k < 8; k += 2) {
    t[k] = hn::InterleaveLower(r[k], r[k + 1]);         // a0 b0 a1 b1 | a4 b4 a5 b5
    t[k + 1] = hn::InterleaveUpper(d, r[k], r[k + 1]);  // a2 b2 a3 b3 | a6 b6 a7 b7
  }
  V u[8];
  for (int k = 0; k < 8; k += 4) {
    for (int h = 0; h < 2; ++h) {
      const auto lo = hn::BitCast(d64, t[k + h]), hi = hn::BitCast(d64, t[k + h + 2]);
      u[k + 2 * h] = hn::BitCast(d, hn::InterleaveLower(lo, hi));           // col 2h   | 2h+4
      u[k + 2 * h + 1] = hn::BitCast(d, hn::InterleaveUpper(d64, lo, hi));  // col 2h+1 | 2h+5
    }
  }
  for (int k = 0; k < 4; ++k) {
    hn::StoreU(hn::ConcatLowerLower(d, u[k + 4], u[k]), d, dst + k * ds);
    hn::StoreU(hn::ConcatUpperUpper(d, u[k + 4], u[k]), d, dst + (k + 4) * ds);
  }
}
#else
constexpr bool kVector8x8 = false;
HWY_INLINE void Transpose8x8(const uint32_t* HWY_RESTRICT src, int64_t ss,
                             uint32_t* HWY_RESTRICT dst, int64_t ds) {
  TransposeScalar(src, ss, dst, ds, 8, 8);
}
#endif

// One block of at most kBlock x kBlock: the whole 8x8 quarters in registers, the rest
// (the matrix's ragged edges) element by element. The two quarters that write the same
// destination lines run back to back, so each destination line is completed at once; the
// source lines are the ones read in two halves, a quarter apart (4096x4096 f32 on one
// thread: 11.9 ms in 128-tiles against 13.2 with the source-line-first order).
void TransposeBlock(const uint32_t* HWY_RESTRICT src, int64_t ss, uint32_t* HWY_RESTRICT dst,
                    int64_t ds, int64_t rows, int64_t cols) {
  if (!kVector8x8) return TransposeScalar(src, ss, dst, ds, rows, cols);
  for (int64_t j = 0; j < cols; j += 8) {
    for (int64_t i = 0; i < rows; i += 8) {
      const int64_t h = std::min<int64_t>(8, rows - i), w = std::min<int64_t>(8, cols - j);
      if (h == 8 && w == 8)
        Transpose8x8(src + i * ss + j, ss, dst + j * ds + i, ds);
      else
        TransposeScalar(src + i * ss + j, ss, dst + j * ds + i, ds, h, w);
    }
  }
}

// Blocks in the destination's row order: a strip of kBlock destination rows is written
// left to right while the source is read down kBlock columns, one line per row.
void Transpose4Byte(const uint32_t* src, int64_t ss, uint32_t* dst, int64_t ds, int64_t rows,
                    int64_t cols) {
  for (int64_t j = 0; j < cols; j += kBlock) {
    const int64_t w = std::min(kBlock, cols - j);
    for (int64_t i = 0; i < rows; i += kBlock)
      TransposeBlock(src + i * ss + j, ss, dst + j * ds + i, ds, std::min(kBlock, rows - i), w);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace bp::cpu::simd
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace bp::cpu::simd {

HWY_EXPORT(Transpose4Byte);

void transpose_4byte(const uint32_t* src, int64_t src_stride, uint32_t* dst, int64_t dst_stride,
                     int64_t rows, int64_t cols) {
  HWY_DYNAMIC_DISPATCH(Transpose4Byte)(src, src_stride, dst, dst_stride, rows, cols);
}

}  // namespace bp::cpu::simd
#endif  // HWY_ONCE
