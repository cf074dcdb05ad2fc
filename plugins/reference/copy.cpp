// Reference kernels for data movement and factories: copy_ (strided, dtype-converting),
// fill_.Scalar and arange.start_step. Conversions follow elementwise.hpp (PyTorch's rules,
// each rounding once); docs/reference.md lists where they differ from PyTorch.
#include "elementwise.hpp"

namespace bp::reference {
namespace {

// copy_(Tensor(a!) self, Tensor src, bool non_blocking) writes self; src has self's shape
// (expanded by the host) and its own dtype.
bp_status copy_kernel(const bp_call* c) {
  const View dst(arg_tensor(c, 0));
  const View src(arg_tensor(c, 1));
  if (!same_shape(src, dst)) return fail_shape(c, "src", src, dst);
  visit_dtype(src.dtype, [&](auto src_tag) {
    using S = typename decltype(src_tag)::type;
    visit_dtype(dst.dtype, [&](auto dst_tag) {
      using D = typename decltype(dst_tag)::type;
      for_each_index(dst.ndim, dst.shape,
                     [&](const int64_t* idx) { dst.at<D>(idx) = convert<D>(src.at<S>(idx)); });
    });
  });
  return BP_OK;
}

// fill_.Scalar(Tensor(a!) self, Scalar value): the value is checked against self's dtype
// as PyTorch does (fill_(300) on an int8 tensor is an error, not a wrap).
bp_status fill_kernel(const bp_call* c) {
  const View self(arg_tensor(c, 0));
  return visit_dtype(self.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    T value{};
    if (!scalar_to<T>(c->args[1], &value))
      return fail_scalar_overflow(c, "value", c->args[1], self.dtype);
    for_each_index(self.ndim, self.shape, [&](const int64_t* idx) { self.at<T>(idx) = value; });
    return BP_OK;
  });
}

// arange.start_step(Scalar start, Scalar end, Scalar step, ScalarType? dtype, Device?
// device) -> out. The host sized `out` (1-D) from start, end and step; element i is
// start + i * step, computed in double for floating outputs and in int64 (wrapping) for
// integral ones, where start and step are first converted to int64 as PyTorch's checked
// `Scalar::to<int64_t>()` does (truncating; NaN and out-of-range values are errors).
bp_status arange_kernel(const bp_call* c) {
  const View out(out_tensor(c));
  if (out.ndim != 1)
    return fail(
        BP_ERR_INVALID_ARGUMENT,
        std::string(c->op_name) + ": the output must be 1-D but has shape " + shape_text(out));
  return visit_dtype(out.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return fail_dtype(c, "out", out.dtype);
    } else if constexpr (kIsFloating<T>) {
      const double start = arg_double(c, 0);
      const double step = arg_double(c, 2);
      for_each_index(1, out.shape, [&](const int64_t* idx) {
        out.at<T>(idx) = from_double<T>(start + static_cast<double>(idx[0]) * step);
      });
      return BP_OK;
    } else {
      int64_t start = 0, step = 0;
      if (!scalar_to<int64_t>(c->args[0], &start))
        return fail_scalar_overflow(c, "start", c->args[0], BP_DTYPE_I64);
      if (!scalar_to<int64_t>(c->args[2], &step))
        return fail_scalar_overflow(c, "step", c->args[2], BP_DTYPE_I64);
      for_each_index(1, out.shape, [&](const int64_t* idx) {
        const uint64_t v = static_cast<uint64_t>(start) +
                           static_cast<uint64_t>(idx[0]) * static_cast<uint64_t>(step);
        out.at<T>(idx) = wrap_int<T>(v);
      });
      return BP_OK;
    }
  });
}

}  // namespace

bp_status register_copy_kernels(uint32_t backend_id) {
  static const KernelEntry entries[] = {
      {"copy_", BP_DTYPES_ALL, copy_kernel},
      {"fill_.Scalar", BP_DTYPES_ALL, fill_kernel},
      // PyTorch has no bool arange ("arange_cpu" not implemented for 'Bool').
      {"arange.start_step", kAllButBool, arange_kernel},
  };
  return register_kernels(backend_id, entries, sizeof entries / sizeof entries[0]);
}

}  // namespace bp::reference
