#include "launch.hpp"

#include <backplane/sdk/half.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>

namespace bp::clk {
namespace {
std::atomic<DeviceLookup> g_lookup{nullptr};
std::atomic<const bp_host_api*> g_host{nullptr};
}  // namespace

void set_device_lookup(DeviceLookup lookup, const bp_host_api* host) {
  g_lookup.store(lookup);
  g_host.store(host);
}

const bp_host_api* host() {
  return g_host.load();
}

const bp_tensor& tensor_arg(const bp_call* call, size_t i) {
  if (i >= call->nargs || call->args[i].tag != BP_VALUE_TENSOR || !call->args[i].u.tensor)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string(call->op_name) + ": argument " +
                                                  std::to_string(i) + " is not a tensor");
  return *call->args[i].u.tensor;
}

const bp_tensor& output(const bp_call* call) {
  return tensor_arg(call, call->nargs - 1);
}

TensorView::TensorView(const bp_tensor& base, int32_t ndim, const int64_t* sizes,
                       const int64_t* strides_in) {
  if (ndim > 64) throw sdk::Error(BP_ERR_UNSUPPORTED, "tensor with more than 64 dims");
  t = base;
  t.ndim = ndim;
  for (int32_t d = 0; d < ndim; ++d) {
    shape[d] = sizes[d];
    strides[d] = strides_in[d];
  }
  t.shape = shape;
  t.strides = strides;
}

ComputeDevice& device_for(const sdk::KernelContext& ctx, bp_dtype dtype) {
  const DeviceLookup lookup = g_lookup.load();
  ComputeDevice* device = lookup ? lookup(ctx.device_index()) : nullptr;
  if (!device)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string(ctx.op_name()) + ": no device " +
                                                  std::to_string(ctx.device_index()));
  if (dtype == BP_DTYPE_F64 && !device->has_fp64())
    throw sdk::Error(BP_ERR_UNSUPPORTED, std::string(ctx.op_name()) +
                                             ": f64 needs cl_khr_fp64, which device " +
                                             std::to_string(ctx.device_index()) + " lacks");
  return *device;
}

const char* variant(bp_dtype dtype) {
  return sdk::dtype_name(dtype);
}

ScalarValue scalar_value(bp_dtype dtype, double value) {
  switch (dtype) {
    case BP_DTYPE_F64:
      return bytes_of(value);
    // f16/bf16 compute in float, but a scalar operand first takes the dtype's value.
    case BP_DTYPE_F16:
      return bytes_of(static_cast<float>(sdk::Half(value)));
    case BP_DTYPE_BF16:
      return bytes_of(static_cast<float>(sdk::BFloat16(value)));
    case BP_DTYPE_F32:
      return bytes_of(static_cast<float>(value));
    default:
      return int_value(dtype, static_cast<int64_t>(value));
  }
}

ScalarValue int_value(bp_dtype dtype, int64_t value) {
  switch (dtype) {
    case BP_DTYPE_BOOL:
      return bytes_of(static_cast<uint8_t>(value != 0));
    case BP_DTYPE_I8:
      return bytes_of(static_cast<int8_t>(value));
    case BP_DTYPE_U8:
      return bytes_of(static_cast<uint8_t>(value));
    case BP_DTYPE_I16:
      return bytes_of(static_cast<int16_t>(value));
    case BP_DTYPE_I32:
      return bytes_of(static_cast<int32_t>(value));
    case BP_DTYPE_I64:
      return bytes_of(value);
    default:
      return scalar_value(dtype, static_cast<double>(value));
  }
}

ScalarValue scalar_value(bp_dtype dtype, const sdk::Scalar& value) {
  if (sdk::is_floating(dtype)) {
    if (value.is_floating()) return scalar_value(dtype, value.to_double());
    return int_value(dtype, value.to_int());  // exact integers round once into the dtype
  }
  if (dtype == BP_DTYPE_BOOL) return bytes_of(static_cast<uint8_t>(value.to<bool>()));
  return int_value(dtype, value.to<int64_t>());
}

size_t elementwise_group(const ComputeDevice& device) {
  return std::min(kElementwiseGroup, device.max_work_group_size());
}

LaunchRange whole_groups(const ComputeDevice& device, int64_t n) {
  const size_t group = elementwise_group(device);
  return range_1d((static_cast<size_t>(n) + group - 1) / group * group, group);
}

void launch_elementwise(ComputeDevice& device, const char* program, bp_dtype dtype,
                        const char* name, std::span<const bp_tensor* const> tensors,
                        std::span<const KernelArg> extra, Layouts layouts) {
  const int64_t n = numel(*tensors[0]);
  if (n == 0) return;
  const Geom g = make_geometry(tensors);
  const int nops = static_cast<int>(tensors.size());
  KernelArg args[2 * kMaxOperands + 8];
  size_t count = 0;
  for (const bp_tensor* t : tensors) args[count++] = memory_arg(t->data);
  if (count + kMaxOperands + 1 + extra.size() > sizeof args / sizeof args[0])
    throw sdk::Error(BP_ERR_INTERNAL, std::string(name) + ": too many kernel arguments");
  if (layouts == Layouts::DenseAndStrided && is_dense(g, nops)) {
    // No bounds check in the dense kernels: whole groups first, then the remainder in
    // groups of one at offsets shifted past the groups.
    char contig[64];
    std::snprintf(contig, sizeof contig, "%s_contig", name);
    const KernelHandle kernel = device.kernel(program, variant(dtype), contig);
    const size_t group = elementwise_group(device);
    const int64_t bulk = n / static_cast<int64_t>(group) * static_cast<int64_t>(group);
    int64_t offsets[kMaxOperands];
    for (int k = 0; k < nops; ++k) {
      offsets[k] = g.offset[k];
      args[count + static_cast<size_t>(k)] = value_arg(offsets[k]);
    }
    const size_t total = count + static_cast<size_t>(nops) + extra.size();
    for (size_t e = 0; e < extra.size(); ++e)
      args[count + static_cast<size_t>(nops) + e] = extra[e];
    if (bulk > 0)
      device.launch(kernel, std::span<const KernelArg>(args, total),
                    range_1d(static_cast<size_t>(bulk), group));
    if (bulk < n) {
      for (int k = 0; k < nops; ++k) offsets[k] += bulk;
      device.launch(kernel, std::span<const KernelArg>(args, total),
                    range_1d(static_cast<size_t>(n - bulk), 1));
    }
    return;
  }
  const KernelHandle kernel = device.kernel(program, variant(dtype), name);
  args[count++] = value_arg(g);
  args[count++] = value_arg(n);
  for (const KernelArg& a : extra) args[count++] = a;
  device.launch(kernel, std::span<const KernelArg>(args, count), whole_groups(device, n));
}

}  // namespace bp::clk
