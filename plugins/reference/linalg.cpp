// Reference kernel for matmul. The meta rule has reduced every matmul to one form: `self`
// [*B, n, k] times `other` [*B, k, m] into `out` [*B, n, m] with identical batch dims, one
// dtype for all three. Floating products are summed in double and rounded once; integer
// products are summed in uint64, which is exactly PyTorch's wrapped result modulo 2^bits.
#include "reference.hpp"

#include <vector>

namespace bp::reference {
namespace {

template <typename T>
void matmul_typed(const StridedView& a, const StridedView& b, const StridedView& out) {
  const int32_t nd = out.ndim;
  const int64_t k_size = a.shape[nd - 1];
  const int64_t a_kstride = a.strides[nd - 1], b_kstride = b.strides[nd - 2];
  std::vector<int64_t> aidx(static_cast<size_t>(nd)), bidx(static_cast<size_t>(nd));
  for_each_index(out, [&](const int64_t* oidx) {
    // self[*b, i, 0] and other[*b, 0, j]; stepping k walks both.
    aidx.assign(oidx, oidx + nd);
    bidx.assign(oidx, oidx + nd);
    aidx[static_cast<size_t>(nd - 1)] = 0;
    bidx[static_cast<size_t>(nd - 2)] = 0;
    const int64_t a0 = a.offset_of(aidx.data()), b0 = b.offset_of(bidx.data());
    if constexpr (kIsFloating<T>) {
      double acc = 0.0;
      for (int64_t p = 0; p < k_size; ++p)
        acc += to_double(a.at_offset<T>(a0 + p * a_kstride)) *
               to_double(b.at_offset<T>(b0 + p * b_kstride));
      out.at<T>(oidx) = from_double<T>(acc);
    } else {
      uint64_t acc = 0;
      for (int64_t p = 0; p < k_size; ++p)
        acc += static_cast<uint64_t>(static_cast<int64_t>(a.at_offset<T>(a0 + p * a_kstride))) *
               static_cast<uint64_t>(static_cast<int64_t>(b.at_offset<T>(b0 + p * b_kstride)));
      out.at<T>(oidx) = wrap_int<T>(acc);
    }
  });
}

void matmul_kernel(StridedView a, StridedView b, StridedView out) {
  sdk::check_matmul(a, b, out);
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) matmul_typed<T>(a, b, out);
  });
}

}  // namespace

void register_linalg_kernels(sdk::Registrar& r) {
  r.kernel<matmul_kernel>("matmul", sdk::kAllButBool);
}

}  // namespace bp::reference
