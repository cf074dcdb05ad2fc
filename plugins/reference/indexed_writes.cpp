// Reference kernels that write through indices: index_add. Every index value is checked
// before anything is written, so an out-of-range index returns BP_ERR_INDEX with the output
// untouched. Repeated indices accumulate in the order of the index, each add computed in
// double and rounded once into the dtype: the order and roundings of PyTorch's CPU kernel,
// each add exact up to its one rounding (docs/reference.md).
#include "reference.hpp"

#include <vector>

namespace bp::reference {
namespace {

// acc + alpha * src with one rounding into T. alpha is PyTorch's "opmath" value: float for
// f16, bf16 and f32, double for f64; integers wrap; bool is acc || (alpha && src).
template <typename T>
T add_scaled(T acc, T src, const sdk::Scalar& alpha) {
  if constexpr (std::is_same_v<T, bool>) {
    return acc || (alpha.to<bool>() && src);
  } else if constexpr (!kIsFloating<T>) {
    const auto a = static_cast<uint64_t>(alpha.to_int());
    return wrap_int<T>(static_cast<uint64_t>(acc) + a * static_cast<uint64_t>(src));
  } else {
    const double a =
        std::is_same_v<T, double> ? alpha.to_double() : static_cast<float>(alpha.to_double());
    return from_double<T>(to_double(acc) + a * to_double(src));
  }
}

// ---- index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha) ----------
// out = self; then out[..., index[i], ...] += alpha * source[..., i, ...] for i in order.
void index_add_kernel(StridedView self, int64_t dim, StridedView index, StridedView source,
                      sdk::Scalar alpha, StridedView out) {
  sdk::check_index_add(self, dim, index, source, out);
  const int64_t n = index.shape[0];
  std::vector<int64_t> rows(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t off = i * index.strides[0];
    rows[static_cast<size_t>(i)] =
        index.dtype == BP_DTYPE_I32 ? index.at_offset<int32_t>(off) : index.at_offset<int64_t>(off);
    sdk::check_index_value("index_add", rows[static_cast<size_t>(i)], dim, self.shape[dim]);
  }
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_index(out, [&](const int64_t* idx) { out.at<T>(idx) = self.at<T>(idx); });
    // Row-major over source: for each output element, i (source's dim `dim`) increases.
    std::vector<int64_t> oidx(static_cast<size_t>(out.ndim));
    for_each_index(source, [&](const int64_t* sidx) {
      oidx.assign(sidx, sidx + out.ndim);
      oidx[static_cast<size_t>(dim)] = rows[static_cast<size_t>(sidx[dim])];
      T& acc = out.at<T>(oidx.data());
      acc = add_scaled<T>(acc, source.at<T>(sidx), alpha);
    });
  });
}

}  // namespace

void register_indexed_write_kernels(sdk::Registrar& r) {
  r.kernel<index_add_kernel>("index_add", BP_DTYPES_ALL);
}

}  // namespace bp::reference
