// Data movement and factories on the shared kernels, core's `data_movement` family
// (core/src/ops/data_movement.cpp). On opencl-c-kernels/copy.cl: copy_ (raw for equal
// dtypes, converting otherwise), fill_.Scalar (the value's bits computed here), arange and
// cat (a raw copy of each input into its slice of the output). On index.cl: index_select
// and gather, through one kernel `take`: the output's geometry with three operands (output,
// self with the indexed dim's stride zeroed, index), the index value scaled by self's stride
// along the dim; index values are checked on the device, and the first bad one is reported
// as BP_ERR_INDEX naming the value, the dim and its size. On elementwise.cl: where.self.
#include "ops_internal.hpp"

#include <backplane/sdk/half.hpp>

#include <string>

namespace bp::clk {
namespace {

constexpr const char* kCopyProgram = "copy";
constexpr const char* kIndexProgram = "index";

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

IndexStatus::IndexStatus(ComputeDevice& device) : buffer_(device, 16) {
  const int64_t zeros[2] = {0, 0};
  device.write(buffer_.address(), zeros, sizeof zeros);
}

void IndexStatus::check(ComputeDevice& device, const char* op, int64_t dim,
                        int64_t dim_size) const {
  int64_t result[2];
  device.read(result, buffer_.address(), sizeof result);
  if (static_cast<int32_t>(result[0]) != 0)
    throw sdk::Error(BP_ERR_INDEX, std::string(op) + ": index " + std::to_string(result[1]) +
                                       " is out of range for dimension " + std::to_string(dim) +
                                       " with size " + std::to_string(dim_size));
}

// Raw copy of `src` into `dst` (same dtype and shape): also cat's and the fallbacks' copy.
void copy_raw(ComputeDevice& device, const bp_tensor& dst, const bp_tensor& src) {
  const bp_tensor* tensors[] = {&dst, &src};
  launch_elementwise(device, kCopyProgram, dst.dtype, "copy_raw", tensors);
}

namespace {

// copy_(Tensor(a!) self, Tensor src, bool non_blocking): src has self's shape.
bp_status copy_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor& src = tensor_arg(c, 1);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    if (src.dtype == self.dtype) return copy_raw(device, self, src);
    device_for(context_of(c), src.dtype);  // an f64 source needs fp64 too
    const std::string kernel = std::string("copy_from_") + variant(src.dtype);
    const bp_tensor* tensors[] = {&self, &src};
    launch_elementwise(device, kCopyProgram, self.dtype, kernel.c_str(), tensors);
  });
}

// fill_.Scalar(Tensor(a!) self, Scalar value).
bp_status fill_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const ScalarValue bits = value_bits(self.dtype, c->args[1]);
    const KernelArg extra[] = {bits.arg()};
    const bp_tensor* tensors[] = {&self};
    launch_elementwise(device_for(context_of(c), self.dtype), kCopyProgram, self.dtype, "fill_raw",
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
    launch_elementwise(device, kCopyProgram, out.dtype, "arange_", tensors, extra,
                       Layouts::StridedOnly);
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
      copy_raw(device, slice.t, in);
      at += in.shape[dim];
    }
  });
}

// out = self[..., index[...], ...] along `dim`, where `index_strides` (out.ndim entries) map
// an output position to its index element.
void take(const bp_call* c, const bp_tensor& self, int64_t dim, const bp_tensor& index,
          const int64_t* index_strides) {
  const bp_tensor& out = output(c);
  ComputeDevice& device = device_for(context_of(c), self.dtype);
  if (numel(out) == 0) return;
  if (index.dtype != BP_DTYPE_I64 && index.dtype != BP_DTYPE_I32)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string(c->op_name) + ": index has dtype " +
                                                  sdk::dtype_name(index.dtype) +
                                                  ", expected i64 or i32");
  int64_t self_strides[64];
  for (int32_t d = 0; d < self.ndim; ++d) self_strides[d] = d == dim ? 0 : self.strides[d];
  const Operand operands[] = {{out.strides, element_offset(out)},
                              {self_strides, element_offset(self)},
                              {index_strides, element_offset(index)}};
  const Geom g = make_geometry(out.shape, out.ndim, operands);
  const IndexStatus status(device);
  const int64_t dim_stride = self.strides[dim], dim_size = self.shape[dim], n = numel(out);
  const KernelArg args[] = {memory_arg(out.data),   memory_arg(self.data),
                            memory_arg(index.data), memory_arg(status.address()),
                            value_arg(g),           value_arg(n),
                            value_arg(dim_stride),  value_arg(dim_size)};
  const char* kernel = index.dtype == BP_DTYPE_I64 ? "take_i64" : "take_i32";
  device.launch(device.kernel(kIndexProgram, variant(self.dtype), kernel), args,
                whole_groups(device, n));
  status.check(device, c->op_name, dim, dim_size);
}

// index_select(self, dim, index) -> out; index is 1-D (a 0-d index arrives as [1]).
bp_status index_select_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const int64_t dim = c->args[1].u.i;
    const bp_tensor& index = tensor_arg(c, 2);
    int64_t strides[64] = {};
    strides[dim] = index.ndim > 0 ? index.strides[0] : 0;
    take(c, self, dim, index, strides);
  });
}

// gather(self, dim, index) -> out; out has index's shape.
bp_status gather_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const bp_tensor& index = tensor_arg(c, 2);
    take(c, self, c->args[1].u.i, index, index.strides);
  });
}

// where.self(condition, self, other) -> out; moves raw elements (elementwise.cl's where_).
bp_status where_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 1);
    const bp_tensor* tensors[] = {&output(c), &tensor_arg(c, 0), &self, &tensor_arg(c, 2)};
    launch_elementwise(device_for(context_of(c), self.dtype), kElementwiseProgram, self.dtype,
                       "where_", tensors);
  });
}

}  // namespace

void register_data_movement(OpRegistrar& ops) {
  ops.add("copy_", BP_DTYPES_ALL, copy_kernel);
  ops.add("fill_.Scalar", BP_DTYPES_ALL, fill_kernel);
  ops.add("arange.start_step", kAllButBool, arange_kernel);
  ops.add("cat", BP_DTYPES_ALL, cat_kernel);
  ops.add("index_select", BP_DTYPES_ALL, index_select_kernel);
  ops.add("gather", BP_DTYPES_ALL, gather_kernel);
  ops.add("where.self", BP_DTYPES_ALL, where_kernel);
}

}  // namespace bp::clk
