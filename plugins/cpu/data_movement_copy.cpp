// CPU kernels for data movement and factories: copy_ (strided, dtype-converting),
// fill_.Scalar and arange.start_step. Conversions are the SDK's (the reference's rules, so
// results compare exactly); same-dtype copies move bytes (memcpy for contiguous
// rows, blocked transposes when the source is unit-stride along another dim than the
// destination). All three run on the strided iterator, with threads for large tensors.
#include "elementwise.hpp"
#include "loops.hpp"
#include "simd_transpose.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>

namespace bp::cpu {
namespace {

// Copies n elements of `size` bytes between strided rows (no conversion).
template <typename Word>
void copy_words(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * ds, src + i * ss, sizeof(Word));
}

void copy_bytes_row(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n, int64_t size) {
  if (ds == size && ss == size) {
    std::memmove(dst, src, static_cast<size_t>(n * size));  // src may be dst (in place)
    return;
  }
  switch (size) {
    case 1:
      return copy_words<uint8_t>(dst, ds, src, ss, n);
    case 2:
      return copy_words<uint16_t>(dst, ds, src, ss, n);
    case 4:
      return copy_words<uint32_t>(dst, ds, src, ss, n);
    default:
      return copy_words<uint64_t>(dst, ds, src, ss, n);
  }
}

// Converts n elements of S into D between strided rows.
template <typename D, typename S>
void convert_row(char* dst, int64_t ds, const char* src, int64_t ss, int64_t n) {
  if (ds == int64_t{sizeof(D)} && ss == int64_t{sizeof(S)}) {
    // f32 <-> f16/bf16 rows (casts for mixed precision) use the SIMD conversions.
    if constexpr (std::is_same_v<S, float> && std::is_same_v<D, Half>) {
      return simd::float_to_half(reinterpret_cast<const float*>(src),
                                 reinterpret_cast<uint16_t*>(dst), n);
    } else if constexpr (std::is_same_v<S, float> && std::is_same_v<D, BFloat16>) {
      return simd::float_to_bfloat16(reinterpret_cast<const float*>(src),
                                     reinterpret_cast<uint16_t*>(dst), n);
    } else if constexpr (std::is_same_v<S, Half> && std::is_same_v<D, float>) {
      return simd::half_to_float(reinterpret_cast<const uint16_t*>(src),
                                 reinterpret_cast<float*>(dst), n);
    } else if constexpr (std::is_same_v<S, BFloat16> && std::is_same_v<D, float>) {
      return simd::bfloat16_to_float(reinterpret_cast<const uint16_t*>(src),
                                     reinterpret_cast<float*>(dst), n);
    }
    D* d = reinterpret_cast<D*>(dst);
    const S* s = reinterpret_cast<const S*>(src);
    for (int64_t i = 0; i < n; ++i) d[i] = convert<D>(s[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<D*>(dst + i * ds) = convert<D>(*reinterpret_cast<const S*>(src + i * ss));
}

// ---- transposing same-dtype copies ----------------------------------------------------
// The iterator orders dims by the destination's strides, so when the source is unit-stride
// along another dim (a.t() copied into a contiguous tensor, or the reverse), the rows above
// read one element per source cache line: a 4096x4096 f32 transpose-copy took 6.9x
// libtorch's time. Such copies run as a blocked 2-D transpose of the destination's and the
// source's unit-stride dims instead (the iterator's dims 0 and 1), the dims above as a batch:
// each block moves whole cache lines of both tensors.

// Moves the source's unit-stride dim to position 1 of the iterator; false when the copy is
// not a transpose (the destination is not unit-stride along dim 0, the source is already,
// or it has no unit-stride dim). The element order of a copy does not matter, only that
// each is written once.
bool arrange_as_transpose(StridedIter<2>& it, int64_t size) {
  if (it.ndim < 2 || it.strides[0][0] != size || it.strides[0][1] == size) return false;
  for (int d = 1; d < it.ndim; ++d) {
    if (it.strides[d][1] != size) continue;
    std::swap(it.shape[1], it.shape[d]);
    for (int k = 0; k < 2; ++k) std::swap(it.strides[1][k], it.strides[d][k]);
    return true;
  }
  return false;
}

// dst[j][i] = src[i][j] for i < rows, j < cols, strides in bytes, in blocks of one cache
// line (64 bytes) of elements each way.
template <typename Word>
void transpose_words(const char* src, int64_t src_stride, char* dst, int64_t dst_stride,
                     int64_t rows, int64_t cols) {
  constexpr int64_t kSize = sizeof(Word), kBlock = 64 / kSize;
  for (int64_t j0 = 0; j0 < cols; j0 += kBlock) {
    const int64_t j1 = std::min(cols, j0 + kBlock);
    for (int64_t i0 = 0; i0 < rows; i0 += kBlock) {
      const int64_t i1 = std::min(rows, i0 + kBlock);
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t i = i0; i < i1; ++i)
          std::memcpy(dst + j * dst_stride + i * kSize, src + i * src_stride + j * kSize, kSize);
    }
  }
}

void transpose_bytes(const char* src, int64_t src_stride, char* dst, int64_t dst_stride,
                     int64_t rows, int64_t cols, int64_t size) {
  switch (size) {
    case 1:
      return transpose_words<uint8_t>(src, src_stride, dst, dst_stride, rows, cols);
    case 2:
      return transpose_words<uint16_t>(src, src_stride, dst, dst_stride, rows, cols);
    case 4:  // f32 and i32, the common case: 8x8 transposes in registers
      return simd::transpose_4byte(reinterpret_cast<const uint32_t*>(src), src_stride / 4,
                                   reinterpret_cast<uint32_t*>(dst), dst_stride / 4, rows, cols);
    default:
      return transpose_words<uint64_t>(src, src_stride, dst, dst_stride, rows, cols);
  }
}

// The work is cut into square tiles of kTile x kTile elements, numbered batch-major, then by
// destination rows, then columns. A tile touches kTile rows of each tensor: tiles, not
// full-length strips, because a strip down 4096 source rows touches 4096 pages per cache
// line of width and thrashes the TLB (4096x4096 f32 on one thread: 16-wide strips 19 ms,
// 32-tiles 18.5, 64-tiles 14, 128-tiles 11.8, 256-tiles 11.0). Threads take tiles
// dynamically: on a shared machine a static half-and-half split waits for whichever thread
// the OS deschedules (a team spinning at its barrier was most of the profile of the
// 2-thread kernels under load); a shared counter lets the other take over.
constexpr int64_t kTile = 256;

void transpose_tile(const StridedIter<2>& it, int64_t tile, int64_t size) {
  const int64_t tcols = (it.shape[0] + kTile - 1) / kTile;
  const int64_t trows = (it.shape[1] + kTile - 1) / kTile;
  const int64_t c0 = tile % tcols * kTile, r0 = tile / tcols % trows * kTile;
  int64_t batch = tile / (tcols * trows);
  char* dst = it.base[0];
  const char* src = it.base[1];
  for (int d = 2; d < it.ndim; ++d) {  // batch index -> offsets, innermost dim first
    const int64_t idx = batch % it.shape[d];
    batch /= it.shape[d];
    dst += idx * it.strides[d][0];
    src += idx * it.strides[d][1];
  }
  dst += r0 * it.strides[1][0] + c0 * size;
  src += r0 * size + c0 * it.strides[0][1];
  transpose_bytes(src, it.strides[0][1], dst, it.strides[1][0], std::min(kTile, it.shape[0] - c0),
                  std::min(kTile, it.shape[1] - r0), size);
}

void copy_transposed(const StridedIter<2>& it, int64_t size) {
  int64_t tiles = (it.shape[0] + kTile - 1) / kTile * ((it.shape[1] + kTile - 1) / kTile);
  for (int d = 2; d < it.ndim; ++d) tiles *= it.shape[d];
  const int nthreads = threads_for(it.numel);
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) if (nthreads > 1)
  for (int64_t tile = 0; tile < tiles; ++tile) transpose_tile(it, tile, size);
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking) writes self; src has self's shape
// (expanded by the host) and its own dtype.
void copy_kernel(const KernelContext& ctx, TensorArg self, TensorArg source, bool) {
  const bp_tensor* dst = self.raw();
  const bp_tensor* src = source.raw();
  StridedIter<2> it;
  if (!make_iter(it, {dst, src}, {dtype_size(dst->dtype), dtype_size(src->dtype)}))
    throw Error(
        BP_ERR_INVALID_ARGUMENT,
        std::string(ctx.op_name()) + ": 'src' must have self's shape (the host expands it)");
  if (dst->dtype == src->dtype) {
    const int64_t size = dtype_size(dst->dtype);
    if (arrange_as_transpose(it, size)) {
      copy_transposed(it, size);
      return;
    }
    for_each_row(it, [size](char* const* p, const int64_t* s, int64_t n) {
      copy_bytes_row(p[0], s[0], p[1], s[1], n, size);
    });
    return;
  }
  visit_dtype(src->dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    visit_dtype(dst->dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      for_each_row(it, [](char* const* p, const int64_t* s, int64_t n) {
        convert_row<D, S>(p[0], s[0], p[1], s[1], n);
      });
    });
  });
}

// fill_.Scalar(Tensor(a!) self, Scalar value): the value is checked against self's dtype
// as PyTorch does (fill_(300) on an int8 tensor is an error, not a wrap).
void fill_kernel(const KernelContext& ctx, TensorArg self, sdk::Scalar fill_value) {
  visit_dtype(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T value = fill_value.checked_to<T>(ctx.op_name(), "value");
    StridedIter<1> it;
    make_iter(it, {self.raw()}, {int64_t{sizeof(T)}});
    for_each_row(it, [value](char* const* p, const int64_t* s, int64_t n) {
      if (s[0] == int64_t{sizeof(T)}) {
        std::fill_n(reinterpret_cast<T*>(p[0]), n, value);
        return;
      }
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = value;
    });
  });
}

// arange.start_step(Scalar start, Scalar end, Scalar step, ScalarType? dtype, Device?
// device) -> out. The host sized `out` (1-D); element i is start + i * step, computed in
// double for floating outputs (rounded once) and in int64 (wrapping) for integral ones,
// where start and step are first converted to int64 with PyTorch's checked conversion.
void arange_kernel(const KernelContext& ctx, sdk::Scalar start, sdk::Scalar, sdk::Scalar step,
                   std::optional<bp_dtype>, const bp_value*, StridedView out) {
  if (out.ndim != 1)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(ctx.op_name()) + ": the output must be 1-D");
  const int64_t n = out.shape[0];
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t stride = out.strides[0] * int64_t{sizeof(T)};
    if constexpr (std::is_same_v<T, bool>) {
      throw unsupported(ctx, "out", out.dtype);
    } else if constexpr (kIsFloating<T>) {
      const double first = start.to_double(), delta = step.to_double();
      parallel_range(n, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          *reinterpret_cast<T*>(out.base + i * stride) =
              convert<T>(first + static_cast<double>(i) * delta);
      });
    } else {
      const auto first = static_cast<uint64_t>(start.checked_to<int64_t>(ctx.op_name(), "start"));
      const auto delta = static_cast<uint64_t>(step.checked_to<int64_t>(ctx.op_name(), "step"));
      parallel_range(n, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i)
          *reinterpret_cast<T*>(out.base + i * stride) =
              static_cast<T>(first + static_cast<uint64_t>(i) * delta);
      });
    }
  });
}

}  // namespace

void register_data_movement_copy_kernels(sdk::Registrar& r) {
  r.kernel<copy_kernel>("copy_", BP_DTYPES_ALL);
  r.kernel<fill_kernel>("fill_.Scalar", BP_DTYPES_ALL);
  // PyTorch has no bool arange ("arange_cpu" not implemented for 'Bool').
  r.kernel<arange_kernel>("arange.start_step", sdk::kAllButBool);
}

}  // namespace bp::cpu
