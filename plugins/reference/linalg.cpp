// Reference kernel for matmul. The meta rule has reduced every matmul to one form: `self`
// [*B, n, k] times `other` [*B, k, m] into `out` [*B, n, m] with identical batch dims, one
// dtype for all three. Floating products are summed in double and rounded once; integer
// products are summed in uint64, which is exactly PyTorch's wrapped result modulo 2^bits.
#include "reference.hpp"

#include <string>
#include <vector>

namespace bp::reference {
namespace {

bp_status check_matmul_shapes(const View& a, const View& b, const View& out) {
  const int32_t nd = a.ndim;
  bool ok = nd >= 2 && b.ndim == nd && out.ndim == nd;
  for (int32_t d = 0; ok && d < nd - 2; ++d)
    ok = a.shape[d] == b.shape[d] && out.shape[d] == a.shape[d];
  ok = ok && a.shape[nd - 1] == b.shape[nd - 2] && out.shape[nd - 2] == a.shape[nd - 2] &&
       out.shape[nd - 1] == b.shape[nd - 1];
  if (ok) return BP_OK;
  return fail(BP_ERR_INVALID_ARGUMENT,
              "matmul: 'self' of shape " + shape_text(a) + " and 'other' of shape " +
                  shape_text(b) + " do not multiply into an output of shape " + shape_text(out) +
                  " (kernels receive [*B, n, k] x [*B, k, m] -> [*B, n, m])");
}

template <typename T>
void matmul_typed(const View& a, const View& b, const View& out) {
  const int32_t nd = out.ndim;
  const int64_t k_size = a.shape[nd - 1];
  const int64_t a_kstride = a.strides[nd - 1], b_kstride = b.strides[nd - 2];
  std::vector<int64_t> aidx(static_cast<size_t>(nd)), bidx(static_cast<size_t>(nd));
  for_each_index(nd, out.shape, [&](const int64_t* oidx) {
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

bp_status matmul_kernel(const bp_call* c) {
  const View a(arg_tensor(c, 0)), b(arg_tensor(c, 1)), out(out_tensor(c));
  if (a.dtype != b.dtype || a.dtype != out.dtype)
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string("matmul: dtypes differ: 'self' ") + dtype_name(a.dtype) + ", 'other' " +
                    dtype_name(b.dtype) + ", output " + dtype_name(out.dtype));
  if (a.dtype == BP_DTYPE_BOOL)
    return fail(BP_ERR_UNSUPPORTED, "matmul: bool is not supported (as in PyTorch)");
  if (bp_status s = check_matmul_shapes(a, b, out); s != BP_OK) return s;
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) matmul_typed<T>(a, b, out);
  });
  return BP_OK;
}

}  // namespace

bp_status register_linalg_kernels(uint32_t backend_id) {
  static const KernelEntry kEntries[] = {
      {"matmul", BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL), matmul_kernel},
  };
  return register_kernels(backend_id, kEntries, sizeof kEntries / sizeof kEntries[0]);
}

}  // namespace bp::reference
