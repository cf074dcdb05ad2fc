// Data movement and factories on the shared kernels (cl/copy.cl): copy_ (raw for equal
// dtypes, converting otherwise), fill_.Scalar (the value's bits computed here), arange and
// cat (a raw copy of each input into its slice of the output).
#include "ops_internal.hpp"

#include <backplane/sdk/half.hpp>

#include <string>

namespace bp::clk {
namespace {

constexpr const char* kProgram = "copy";

// The bits of `value` in `dtype` (PyTorch's scalar conversion; the runtime has checked the
// range): floating values into integers truncate, integers into floating types round once.
ScalarValue value_bits(bp_dtype dtype, const bp_value& value) {
  const sdk::Scalar s(value);
  const double d = s.to_double();
  switch (dtype) {
    case BP_DTYPE_BOOL:
      return bytes_of(static_cast<uint8_t>(s.is_floating() ? d != 0 : s.to_int() != 0));
    case BP_DTYPE_F16:
      return bytes_of(sdk::Half(d).bits);
    case BP_DTYPE_BF16:
      return bytes_of(sdk::BFloat16(d).bits);
    case BP_DTYPE_F32:
      return bytes_of(static_cast<float>(d));
    case BP_DTYPE_F64:
      return bytes_of(d);
    default: {
      const auto i = static_cast<uint64_t>(s.to_int());
      switch (sdk::dtype_size(dtype)) {
        case 1:
          return bytes_of(static_cast<uint8_t>(i));
        case 2:
          return bytes_of(static_cast<uint16_t>(i));
        case 4:
          return bytes_of(static_cast<uint32_t>(i));
        default:
          return bytes_of(i);
      }
    }
  }
}

}  // namespace

// Raw copy of `src` into `dst` (same dtype and shape): also cat's and the fallbacks' copy.
void copy_bytes_of(ComputeDevice& device, const bp_tensor& dst, const bp_tensor& src) {
  const bp_tensor* tensors[] = {&dst, &src};
  launch_elementwise(device, kProgram, dst.dtype, "copy_raw", tensors);
}

namespace {

// copy_(Tensor(a!) self, Tensor src, bool non_blocking): src has self's shape.
bp_status copy_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor& src = tensor_arg(c, 1);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    if (src.dtype == self.dtype) return copy_bytes_of(device, self, src);
    device_for(context_of(c), src.dtype);  // an f64 source needs fp64 too
    const std::string kernel = std::string("copy_from_") + variant(src.dtype);
    const bp_tensor* tensors[] = {&self, &src};
    launch_elementwise(device, kProgram, self.dtype, kernel.c_str(), tensors);
  });
}

// fill_.Scalar(Tensor(a!) self, Scalar value).
bp_status fill_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const ScalarValue bits = value_bits(self.dtype, c->args[1]);
    const KernelArg extra[] = {bits.arg()};
    const bp_tensor* tensors[] = {&self};
    launch_elementwise(device_for(context_of(c), self.dtype), kProgram, self.dtype, "fill_raw",
                       tensors, extra);
  });
}

// arange.start_step(start, end, step, dtype?, device?) -> out (1-D, sized by the runtime).
bp_status arange_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& out = output(c);
    ComputeDevice& device = device_for(context_of(c), out.dtype);
    const sdk::Scalar start(c->args[0]), step(c->args[2]);
    ScalarValue first, delta;
    if (sdk::is_floating(out.dtype)) {
      if (device.has_fp64()) {
        first = bytes_of(start.to_double());
        delta = bytes_of(step.to_double());
      } else {
        first = bytes_of(static_cast<float>(start.to_double()));
        delta = bytes_of(static_cast<float>(step.to_double()));
      }
    } else {
      first = bytes_of(start.to<int64_t>());
      delta = bytes_of(step.to<int64_t>());
    }
    const KernelArg extra[] = {first.arg(), delta.arg()};
    const bp_tensor* tensors[] = {&out};
    launch_elementwise(device, kProgram, out.dtype, "arange_", tensors, extra);
  });
}

// cat(Tensor[] tensors, int dim) -> out: each input is copied into its slice along dim.
bp_status cat_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& out = output(c);
    if (c->args[0].tag != BP_VALUE_TENSOR_LIST)
      throw sdk::Error(BP_ERR_INVALID_ARGUMENT, "cat: argument 0 is not a tensor list");
    const int64_t dim = c->args[1].u.i;
    ComputeDevice& device = device_for(context_of(c), out.dtype);
    const size_t elem = sdk::dtype_size(out.dtype);
    int64_t at = 0;
    for (size_t i = 0; i < c->args[0].u.list.count; ++i) {
      const bp_tensor& in = *c->args[0].u.list.items.tensors[i];
      if (in.ndim != out.ndim) continue;  // a legacy empty [0] tensor (docs/ops.md)
      TensorView slice(out, in.ndim, in.shape, out.strides);
      slice.t.byte_offset = out.byte_offset + static_cast<uint64_t>(at * out.strides[dim]) * elem;
      copy_bytes_of(device, slice.t, in);
      at += in.shape[dim];
    }
  });
}

}  // namespace

void register_copy(Registry& r) {
  r.add("copy_", BP_DTYPES_ALL, copy_kernel);
  r.add("fill_.Scalar", BP_DTYPES_ALL, fill_kernel);
  r.add("arange.start_step", BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL), arange_kernel);
  r.add("cat", BP_DTYPES_ALL, cat_kernel);
}

}  // namespace bp::clk
