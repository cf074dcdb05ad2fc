// Reference kernels of the scans: cumsum and cumprod. Each line along `dim` is accumulated
// in order, in double for floating dtypes (exact for every input of f16/bf16 and as PyTorch's
// CPU accumulator for f32/f64) and in uint64 for integers (wrapping as int64, then to the
// dtype), and every output is the accumulator rounded once into the dtype.
#include "reference.hpp"

#include <optional>
#include <vector>

namespace bp::reference {
namespace {

template <bool kProduct>
void scan_kernel(StridedView self, int64_t dim, std::optional<bp_dtype>, StridedView out) {
  sdk::check_scan(kProduct ? "cumprod" : "cumsum", self, dim, out);
  if (out.numel() == 0) return;
  // The lines: every index of the other dims, with dim `dim` at 0.
  std::vector<int64_t> line_shape(out.shape, out.shape + out.ndim);
  line_shape[static_cast<size_t>(dim)] = 1;
  const int64_t len = out.shape[dim];
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) {
      std::vector<int64_t> idx(static_cast<size_t>(out.ndim));
      sdk::for_each_index(std::span<const int64_t>(line_shape), [&](const int64_t* start) {
        idx.assign(start, start + out.ndim);
        double facc = kProduct ? 1.0 : 0.0;
        uint64_t iacc = kProduct ? 1 : 0;
        for (int64_t i = 0; i < len; ++i) {
          idx[static_cast<size_t>(dim)] = i;
          const T x = self.at<T>(idx.data());
          if constexpr (kIsFloating<T>) {
            facc = kProduct ? facc * to_double(x) : facc + to_double(x);
            out.at<T>(idx.data()) = from_double<T>(facc);
          } else {
            const auto v = static_cast<uint64_t>(static_cast<int64_t>(x));
            iacc = kProduct ? iacc * v : iacc + v;
            out.at<T>(idx.data()) = wrap_int<T>(iacc);
          }
        }
      });
    }
  });
}

}  // namespace

void register_scan_kernels(sdk::Registrar& r) {
  constexpr bp_dtype_mask kNotBoolDtypes = BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL);
  r.kernel<scan_kernel<false>>("cumsum", kNotBoolDtypes)
      .kernel<scan_kernel<true>>("cumprod", kNotBoolDtypes);
}

}  // namespace bp::reference
