// CPU kernels that move elements by index: cat, index_select and gather. Elements are moved
// as opaque words of the dtype's size (the meta rule has already converted inputs to the
// output dtype); runs that are contiguous on both sides become memcpy. Every index value is
// checked before anything is written, so an out-of-range index returns BP_ERR_INDEX (with
// the same message as the reference backend) and leaves the output untouched.
#include "cpu.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace bp::cpu {
namespace {

// Bytes moved per thread before a copy is split across threads.
constexpr int64_t kCopyGrain = 1 << 18;

// Calls f(TypeTag<U>{}) with an unsigned type of `itemsize` bytes.
template <typename F>
void visit_word(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1:
      return f(TypeTag<uint8_t>{});
    case 2:
      return f(TypeTag<uint16_t>{});
    case 4:
      return f(TypeTag<uint32_t>{});
    default:
      return f(TypeTag<uint64_t>{});
  }
}

int copy_threads(int64_t bytes) {
  return static_cast<int>(
      std::clamp<int64_t>(bytes / kCopyGrain, 1, static_cast<int64_t>(omp_get_max_threads())));
}

// One dim of a two-operand loop nest.
struct Dim2 {
  int64_t size, dst_stride, src_stride;
};

// A strided block of dims (outermost first) with the dims merged where both sides are one
// run: `outer` dims of rows around one `inner` run. Built once per call, so that the picks
// of index_select copy their blocks with no allocation and no OpenMP region each.
struct MergedBlock {
  std::vector<Dim2> outer;
  Dim2 inner{1, 1, 1};
  int64_t rows = 0;  // 0 when the block is empty
};

MergedBlock merge_block(const std::vector<Dim2>& dims) {
  std::vector<Dim2> merged;
  for (const Dim2& d : dims) {
    if (d.size == 1) continue;
    if (!merged.empty() && merged.back().dst_stride == d.dst_stride * d.size &&
        merged.back().src_stride == d.src_stride * d.size)
      merged.back() = {merged.back().size * d.size, d.dst_stride, d.src_stride};
    else
      merged.push_back(d);
  }
  if (merged.empty()) merged.push_back({1, 1, 1});
  MergedBlock b;
  b.inner = merged.back();
  merged.pop_back();
  b.rows = b.inner.size == 0 ? 0 : 1;
  for (const Dim2& d : merged) b.rows *= d.size;
  b.outer = std::move(merged);
  return b;
}

// Copies rows [begin, end) of `b`; the innermost run is a memcpy when it is unit-stride on
// both sides. `idx` has room for b.outer.size() counters.
template <typename U>
void copy_rows(U* dst, const U* src, const MergedBlock& b, int64_t begin, int64_t end,
               int64_t* idx) {
  const std::vector<Dim2>& outer = b.outer;
  int64_t doff = 0, soff = 0, rest = begin;
  for (size_t d = outer.size(); d-- > 0;) {
    idx[d] = rest % outer[d].size;
    rest /= outer[d].size;
    doff += idx[d] * outer[d].dst_stride;
    soff += idx[d] * outer[d].src_stride;
  }
  const Dim2 inner = b.inner;
  for (int64_t r = begin; r < end; ++r) {
    U* o = dst + doff;
    const U* s = src + soff;
    if (inner.dst_stride == 1 && inner.src_stride == 1)
      std::memcpy(o, s, static_cast<size_t>(inner.size) * sizeof(U));
    else
      for (int64_t j = 0; j < inner.size; ++j) o[j * inner.dst_stride] = s[j * inner.src_stride];
    for (size_t d = outer.size(); d-- > 0;) {
      doff += outer[d].dst_stride;
      soff += outer[d].src_stride;
      if (++idx[d] < outer[d].size) break;
      doff -= outer[d].dst_stride * outer[d].size;
      soff -= outer[d].src_stride * outer[d].size;
      idx[d] = 0;
    }
  }
}

// Copies a strided block of `dims` (outermost first); its rows are split across threads
// when the block is large.
template <typename U>
void copy_block(U* dst, const U* src, const std::vector<Dim2>& dims) {
  const MergedBlock b = merge_block(dims);
  if (b.rows == 0) return;
  const int threads = copy_threads(b.rows * b.inner.size * static_cast<int64_t>(sizeof(U)));
  if (threads == 1 || b.rows == 1) {
    std::vector<int64_t> idx(b.outer.size());
    copy_rows(dst, src, b, 0, b.rows, idx.data());
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    std::vector<int64_t> idx(b.outer.size());
    copy_rows(dst, src, b, b.rows * t / nt, b.rows * (t + 1) / nt, idx.data());
  }
}

// ---- cat(Tensor[] tensors, int dim) -------------------------------------------------------
void cat_kernel(sdk::TensorList tensors, int64_t dim, StridedView out) {
  sdk::check_cat(tensors, dim, out);
  visit_word(out.itemsize, [&](auto tag) {
    using U = typename decltype(tag)::type;
    int64_t start = 0;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const StridedView in(tensors[i].raw());
      std::vector<Dim2> dims;
      for (int32_t d = 0; d < in.ndim; ++d)
        dims.push_back({in.shape[d], out.strides[d], in.strides[d]});
      copy_block(out.data<U>() + start * out.strides[dim], in.data<U>(), dims);
      start += in.shape[dim];
    }
  });
}

// The index values (i64 or i32, 1-D or 0-d), each checked against the size of dim `dim`
// before anything is written.
std::vector<int64_t> picked_indices(const StridedView& index, int64_t dim, int64_t size) {
  const int64_t n = index.numel();
  const int64_t istride = index.ndim == 1 ? index.strides[0] : 0;
  std::vector<int64_t> picked(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = index.dtype == BP_DTYPE_I32 ? index.data<int32_t>()[k * istride]
                                                  : index.data<int64_t>()[k * istride];
    sdk::check_index_value("index_select", v, dim, size);
    picked[static_cast<size_t>(k)] = v;
  }
  return picked;
}

// ---- index_select(Tensor self, int dim, Tensor index) ---------------------------------------
// out[..., k, ...] = self[..., index[k], ...] along `dim`: a copy of the block of dims around
// `dim`, with the source offset of dim `dim` read from the index.
void index_select_kernel(StridedView self, int64_t dim, StridedView index, StridedView out) {
  sdk::check_index_select(self, dim, index, out);
  const std::vector<int64_t> picked = picked_indices(index, dim, self.shape[dim]);
  const int64_t n = index.numel();
  visit_word(out.itemsize, [&](auto tag) {
    using U = typename decltype(tag)::type;
    U* o = out.data<U>();
    const U* s = self.data<U>();
    if (dim == self.ndim - 1) {
      // A gather of columns: every row of `self` maps through the picked list.
      std::vector<Dim2> rows;
      for (int32_t d = 0; d < dim; ++d)
        rows.push_back({self.shape[d], out.strides[d], self.strides[d]});
      int64_t nrows = 1;
      for (const Dim2& r : rows) nrows *= r.size;
      const int64_t os = out.strides[dim], ss = self.strides[dim];
      const int threads = copy_threads(nrows * n * static_cast<int64_t>(sizeof(U)));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
      for (int64_t r = 0; r < nrows; ++r) {
        int64_t ooff = 0, soff = 0, rest = r;
        for (size_t d = rows.size(); d-- > 0;) {
          const int64_t i = rest % rows[d].size;
          rest /= rows[d].size;
          ooff += i * rows[d].dst_stride;
          soff += i * rows[d].src_stride;
        }
        for (int64_t k = 0; k < n; ++k)
          o[ooff + k * os] = s[soff + picked[static_cast<size_t>(k)] * ss];
      }
      return;
    }
    // Otherwise copy, for each picked k, the block self[..., index[k], ...] (dim removed):
    // rows of an embedding table are one memcpy each.
    std::vector<Dim2> block;
    for (int32_t d = 0; d < self.ndim; ++d)
      if (d != dim) block.push_back({self.shape[d], out.strides[d], self.strides[d]});
    int64_t block_elems = 1;
    for (const Dim2& b : block) block_elems *= b.size;
    const MergedBlock merged = merge_block(block);
    if (merged.rows == 0) return;
    const int threads = copy_threads(n * block_elems * static_cast<int64_t>(sizeof(U)));
    if (threads > 1 && n >= threads) {
      // Many picks: threads split the picks, each block copied serially.
#pragma omp parallel num_threads(threads)
      {
        std::vector<int64_t> idx(merged.outer.size());
#pragma omp for schedule(static)
        for (int64_t k = 0; k < n; ++k)
          copy_rows(o + k * out.strides[dim],
                    s + picked[static_cast<size_t>(k)] * self.strides[dim], merged, 0, merged.rows,
                    idx.data());
      }
    } else {
      for (int64_t k = 0; k < n; ++k)
        copy_block(o + k * out.strides[dim], s + picked[static_cast<size_t>(k)] * self.strides[dim],
                   block);
    }
  });
}

// ---- gather(Tensor self, int dim, Tensor index) ---------------------------------------------
// out[i][j][k] = self[i][index[i][j][k]][k] for dim 1 (likewise for the other dims).
void gather_kernel(StridedView self, int64_t dim, StridedView index, StridedView out) {
  const char* op = "gather";
  sdk::check_gather(self, dim, index, out);
  const int64_t* ix = index.data<int64_t>();
  if (self.ndim == 0) {  // one element; every index must be 0
    sdk::check_index_value(op, ix[0], dim, 1);
    std::memcpy(out.base, self.base, self.itemsize);
    return;
  }
  // Rows over every dim but the last; the last dim is the inner loop.
  const int32_t nd = self.ndim, last = nd - 1;
  const int64_t size = self.shape[dim];
  const int64_t width = index.shape[last];
  int64_t nrows = 1;
  for (int32_t d = 0; d < last; ++d) nrows *= index.shape[d];
  auto row_offsets = [&](int64_t r, int64_t& ioff, int64_t& ooff, int64_t& soff) {
    ioff = ooff = soff = 0;
    for (int32_t d = last; d-- > 0;) {
      const int64_t i = r % index.shape[d];
      r /= index.shape[d];
      ioff += i * index.strides[d];
      ooff += i * out.strides[d];
      if (d != dim) soff += i * self.strides[d];
    }
  };
  if (width == 0 || nrows == 0) return;
  // Check every index first, reporting the first bad one in row-major order.
  for (int64_t r = 0; r < nrows; ++r) {
    int64_t ioff, ooff, soff;
    row_offsets(r, ioff, ooff, soff);
    for (int64_t j = 0; j < width; ++j) {
      const int64_t v = ix[ioff + j * index.strides[last]];
      sdk::check_index_value(op, v, dim, size);
    }
  }
  visit_word(out.itemsize, [&](auto tag) {
    using U = typename decltype(tag)::type;
    U* o = out.data<U>();
    const U* s = self.data<U>();
    const int64_t is = index.strides[last], os = out.strides[last], ss = self.strides[last];
    const int64_t sdim = self.strides[dim];
    const int threads = copy_threads(nrows * width * static_cast<int64_t>(sizeof(U) + 8));
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int64_t r = 0; r < nrows; ++r) {
      int64_t ioff, ooff, soff;
      row_offsets(r, ioff, ooff, soff);
      if (dim == last)
        for (int64_t j = 0; j < width; ++j) o[ooff + j * os] = s[soff + ix[ioff + j * is] * sdim];
      else
        for (int64_t j = 0; j < width; ++j)
          o[ooff + j * os] = s[soff + j * ss + ix[ioff + j * is] * sdim];
    }
  });
}

}  // namespace

void register_data_movement_index_kernels(sdk::Registrar& r) {
  r.kernel<cat_kernel>("cat", BP_DTYPES_ALL);
  r.kernel<index_select_kernel>("index_select", BP_DTYPES_ALL);
  r.kernel<gather_kernel>("gather", BP_DTYPES_ALL);
}

}  // namespace bp::cpu
