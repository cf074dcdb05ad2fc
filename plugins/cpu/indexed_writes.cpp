// CPU kernels that write through indices: index_add. Every index value is checked before
// anything is written (an out-of-range index returns BP_ERR_INDEX, the output untouched).
// Each output element receives its adds in the order of the index, one rounding per add, as
// PyTorch's CPU kernel: threads split the elements, never one element's adds, so the result
// does not depend on the thread count.
#include "cpu.hpp"
#include "other_dims.hpp"

#include <omp.h>

#include <algorithm>
#include <vector>

namespace bp::cpu {
namespace {

// Elements of a row one thread takes at a time.
constexpr int64_t kRowChunk = 4096;

// The row: the last dim other than `dim` (-1 when there is none), which add_row loops over.
int32_t row_dim(const StridedView& out, int64_t dim) {
  int32_t last = -1;
  for (int32_t d = 0; d < out.ndim; ++d)
    if (d != dim) last = d;
  return last;
}

// alpha as each dtype's add reads it: PyTorch's opmath value (float for f16, bf16 and f32),
// the integer types wrap through uint64, bool is a flag.
template <typename T>
auto alpha_for(const sdk::Scalar& alpha) {
  if constexpr (std::is_same_v<T, bool>)
    return alpha.to<bool>();
  else if constexpr (!kIsFloating<T>)
    return static_cast<uint64_t>(alpha.to_int());
  else if constexpr (std::is_same_v<T, double>)
    return alpha.to_double();
  else
    return static_cast<float>(alpha.to_double());
}

// dst[k] = dst[k] + a * src[k] for k < len, one rounding into T each.
template <typename T, typename A>
void add_row(T* dst, int64_t ds, const T* src, int64_t ss, int64_t len, A a) {
  for (int64_t k = 0; k < len; ++k) {
    T& d = dst[k * ds];
    const T s = src[k * ss];
    if constexpr (std::is_same_v<T, bool>)
      d = d || (a && s);
    else if constexpr (!kIsFloating<T>)
      d = static_cast<T>(static_cast<uint64_t>(d) + a * static_cast<uint64_t>(s));
    else if constexpr (std::is_same_v<T, float>)  // the product is exact in double
      d = a == 1.0f ? d + s : static_cast<float>(double(d) + double(a) * double(s));
    else if constexpr (std::is_same_v<T, double>)
      d = d + a * s;
    else
      d = narrow<T>(static_cast<float>(d) + a * static_cast<float>(s));
  }
}

template <typename T>
void index_add_typed(const StridedView& self, int64_t dim, const std::vector<int64_t>& rows,
                     const StridedView& source, const sdk::Scalar& alpha_v, StridedView out) {
  const int32_t row = row_dim(out, dim);
  const OtherDims<3> outer({&out, &self, &source}, dim, row);
  const int64_t row_len = row < 0 ? 1 : out.shape[row];
  const int64_t row_out = row < 0 ? 0 : out.strides[row],
                row_self = row < 0 ? 0 : self.strides[row];
  const int64_t row_src = row < 0 ? 0 : source.strides[row];
  const auto alpha = alpha_for<T>(alpha_v);
  const int64_t chunks = std::max<int64_t>(1, (row_len + kRowChunk - 1) / kRowChunk);
  const int64_t units = outer.count * chunks, dim_size = out.shape[dim];
  const int64_t work = units * (dim_size + static_cast<int64_t>(rows.size()));
  const int threads =
      work >= (1 << 16) ? static_cast<int>(std::min<int64_t>(omp_get_max_threads(), units)) : 1;
  // index_add_ (out is self): no copy.
  const bool in_place = out.data<T>() == self.data<T>() &&
                        std::equal(out.strides, out.strides + out.ndim, self.strides);
  T* o = out.data<T>();
  const T *s = self.data<T>(), *src = source.data<T>();
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) {
    const std::array<int64_t, 3> base = outer.offsets(u / chunks);
    const int64_t first = (u % chunks) * kRowChunk;
    const int64_t len = std::min(kRowChunk, row_len - first);
    const int64_t ob = base[0] + first * row_out, sb = base[1] + first * row_self;
    const int64_t srcb = base[2] + first * row_src;
    if (!in_place) {
      for (int64_t j = 0; j < dim_size; ++j)
        for (int64_t k = 0; k < len; ++k)
          o[ob + j * out.strides[dim] + k * row_out] = s[sb + j * self.strides[dim] + k * row_self];
    }
    for (size_t i = 0; i < rows.size(); ++i)
      add_row(o + ob + rows[i] * out.strides[dim], row_out,
              src + srcb + static_cast<int64_t>(i) * source.strides[dim], row_src, len, alpha);
  }
}

// ---- index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha) ----------
void index_add_kernel(StridedView self, int64_t dim, StridedView index, StridedView source,
                      sdk::Scalar alpha, StridedView out) {
  sdk::check_index_add(self, dim, index, source, out);
  std::vector<int64_t> rows(static_cast<size_t>(index.shape[0]));
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t off = static_cast<int64_t>(i) * index.strides[0];
    rows[i] = index.dtype == BP_DTYPE_I32 ? index.data<int32_t>()[off] : index.data<int64_t>()[off];
    sdk::check_index_value("index_add", rows[i], dim, self.shape[dim]);
  }
  if (out.numel() == 0) return;
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    index_add_typed<T>(self, dim, rows, source, alpha, out);
  });
}

}  // namespace

void register_indexed_write_kernels(sdk::Registrar& r) {
  r.kernel<index_add_kernel>("index_add", BP_DTYPES_ALL);
}

}  // namespace bp::cpu
