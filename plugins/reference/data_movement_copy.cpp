// Reference kernels for data movement and factories: copy_ (strided, dtype-converting),
// fill_.Scalar and arange.start_step. Conversions are the SDK's (PyTorch's rules, each
// rounding once); docs/reference.md lists where they differ from PyTorch.
#include "elementwise.hpp"

#include <optional>

namespace bp::reference {
namespace {

// copy_(Tensor(a!) self, Tensor src, bool non_blocking) writes self; src has self's shape
// (expanded by the host) and its own dtype.
void copy_kernel(const KernelContext& ctx, StridedView dst, StridedView src, bool) {
  check_shape(ctx, "src", src, dst);
  visit_dtype(src.dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    visit_dtype(dst.dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      for_each_index(dst, [&](const int64_t* idx) { dst.at<D>(idx) = convert<D>(src.at<S>(idx)); });
    });
  });
}

// fill_.Scalar(Tensor(a!) self, Scalar value): the value is checked against self's dtype
// as PyTorch does (fill_(300) on an int8 tensor is an error, not a wrap).
void fill_kernel(const KernelContext& ctx, StridedView self, sdk::Scalar value) {
  visit_dtype(self.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = value.checked_to<T>(ctx.op_name(), "value");
    for_each_index(self, [&](const int64_t* idx) { self.at<T>(idx) = v; });
  });
}

// arange.start_step(Scalar start, Scalar end, Scalar step, ScalarType? dtype, Device?
// device) -> out. The host sized `out` (1-D) from start, end and step; element i is
// start + i * step, computed in double for floating outputs and in int64 (wrapping) for
// integral ones, where start and step are first converted to int64 as PyTorch's checked
// `Scalar::to<int64_t>()` does (truncating; NaN and out-of-range values are errors).
void arange_kernel(const KernelContext& ctx, sdk::Scalar start, sdk::Scalar, sdk::Scalar step,
                   std::optional<bp_dtype>, const bp_value*, StridedView out) {
  if (out.ndim != 1)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(ctx.op_name()) +
                                             ": the output must be 1-D but has shape " +
                                             sdk::shape_text(out));
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      throw unsupported(ctx, "out", out.dtype);
    } else if constexpr (kIsFloating<T>) {
      const double first = start.to_double(), delta = step.to_double();
      for_each_index(out, [&](const int64_t* idx) {
        out.at<T>(idx) = from_double<T>(first + static_cast<double>(idx[0]) * delta);
      });
    } else {
      const auto first = static_cast<uint64_t>(start.checked_to<int64_t>(ctx.op_name(), "start"));
      const auto delta = static_cast<uint64_t>(step.checked_to<int64_t>(ctx.op_name(), "step"));
      for_each_index(out, [&](const int64_t* idx) {
        out.at<T>(idx) = wrap_int<T>(first + static_cast<uint64_t>(idx[0]) * delta);
      });
    }
  });
}

}  // namespace

void register_data_movement_copy_kernels(sdk::Registrar& r) {
  r.kernel<copy_kernel>("copy_", BP_DTYPES_ALL)
      .kernel<fill_kernel>("fill_.Scalar", BP_DTYPES_ALL)
      // PyTorch has no bool arange ("arange_cpu" not implemented for 'Bool').
      .kernel<arange_kernel>("arange.start_step", sdk::kAllButBool);
}

}  // namespace bp::reference
