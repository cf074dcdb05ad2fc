// CPU kernels of the scans: cumsum and cumprod. Each line along `dim` is accumulated in
// order, as PyTorch's CPU kernel: in double for f32 and f64 (PyTorch's CPU accumulate type),
// in float for f16/bf16, in uint64 for integers (wrapping), and every output is the
// accumulator rounded into the dtype. Threads take whole lines, so the result does not
// depend on the thread count.
#include "cpu.hpp"
#include "other_dims.hpp"

#include <omp.h>

#include <algorithm>
#include <optional>

namespace bp::cpu {
namespace {

// PyTorch's CPU accumulator of each dtype.
template <typename T>
using Accumulator =
    std::conditional_t<kIsHalf<T>, float, std::conditional_t<kIsFloating<T>, double, uint64_t>>;

template <bool kProduct, typename T>
void scan_line(const T* x, int64_t xs, T* y, int64_t ys, int64_t len) {
  using A = Accumulator<T>;
  A acc = kProduct ? A(1) : A(0);
  for (int64_t i = 0; i < len; ++i) {
    A v;
    if constexpr (kIsFloating<T>)
      v = static_cast<A>(widen(x[i * xs]));
    else
      v = static_cast<A>(static_cast<int64_t>(x[i * xs]));
    acc = kProduct ? acc * v : acc + v;
    y[i * ys] = narrow<T>(acc);
  }
}

template <bool kProduct, typename T>
void scan_typed(const StridedView& self, int64_t dim, StridedView out) {
  const OtherDims<2> lines({&self, &out}, dim);
  const int64_t len = out.shape[dim];
  const int threads = lines.count * len >= (1 << 16)
                          ? static_cast<int>(std::min<int64_t>(omp_get_max_threads(), lines.count))
                          : 1;
  const T* x = self.data<const T>();
  T* y = out.data<T>();
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t line = 0; line < lines.count; ++line) {
    const std::array<int64_t, 2> off = lines.offsets(line);
    scan_line<kProduct>(x + off[0], self.strides[dim], y + off[1], out.strides[dim], len);
  }
}

template <bool kProduct>
void scan_kernel(StridedView self, int64_t dim, std::optional<bp_dtype>, StridedView out) {
  sdk::check_scan(kProduct ? "cumprod" : "cumsum", self, dim, out);
  if (out.numel() == 0) return;
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) scan_typed<kProduct, T>(self, dim, out);
  });
}

}  // namespace

void register_scan_kernels(sdk::Registrar& r) {
  constexpr bp_dtype_mask kNotBoolDtypes = BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL);
  r.kernel<scan_kernel<false>>("cumsum", kNotBoolDtypes);
  r.kernel<scan_kernel<true>>("cumprod", kNotBoolDtypes);
}

}  // namespace bp::cpu
