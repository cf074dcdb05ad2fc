// The scatter primitives on the shared kernels (core/src/ops/scatter.cpp): scatter.src and
// scatter_reduce.two, on scatter.cl's `scatter_lines`. self is copied into out, then one work
// item per line of index along dim applies that line in index order (the SDK's loops' order:
// deterministic, no atomics). An out-of-range index is BP_ERR_INDEX naming the value, the dim
// and its size; in place, self is left untouched.
#include "ops_internal.hpp"

#include <backplane/sdk/scatter_kernels.hpp>

namespace bp::clk {
namespace {

constexpr const char* kScatterProgram = "scatter";

// Applies index's lines of src into `out` (which holds self's values); throws BP_ERR_INDEX
// on an out-of-range index. `reduce` as scatter.cl numbers it.
void scatter_lines(ComputeDevice& device, const bp_tensor& out, int64_t dim, const bp_tensor& index,
                   const bp_tensor& src, const char* op, int reduce, bool include_self) {
  const int64_t len = index.shape[dim];
  const Operand operands[] = {{out.strides, element_offset(out)},
                              {src.strides, element_offset(src)},
                              {index.strides, element_offset(index)}};
  const Geom g = line_geometry(index, dim, operands);
  const int64_t lines = numel(index) / len, dim_size = out.shape[dim];
  const bool mean = reduce == static_cast<int>(sdk::ScatterReduce::Mean);
  const DeviceBuffer counts(device, mean ? static_cast<size_t>(lines * dim_size) * 8 : 8);
  const IndexStatus status(device);
  const int64_t out_stride = out.strides[dim], src_stride = src.strides[dim];
  const int64_t index_stride = index.strides[dim];
  const int32_t include = include_self ? 1 : 0;
  const KernelArg args[] = {memory_arg(out.data),
                            memory_arg(src.data),
                            memory_arg(index.data),
                            memory_arg(counts.address()),
                            memory_arg(status.address()),
                            value_arg(g),
                            value_arg(lines),
                            value_arg(len),
                            value_arg(out_stride),
                            value_arg(src_stride),
                            value_arg(index_stride),
                            value_arg(dim_size),
                            value_arg(reduce),
                            value_arg(include)};
  device.launch(device.kernel(kScatterProgram, variant(out.dtype), "scatter_lines"), args,
                whole_groups(device, lines));
  status.check(device, op, dim, dim_size);
}

// (self, dim, index, src, ...) -> out, every tensor with >= 1 dim. In place, a bad index
// leaves self untouched (write_through_indices).
void launch_scatter(const bp_call* c, const char* op, int reduce, bool include_self) {
  const bp_tensor& self = tensor_arg(c, 0);
  const int64_t dim = c->args[1].u.i;
  const bp_tensor& index = tensor_arg(c, 2);
  const bp_tensor& src = tensor_arg(c, 3);
  const bp_tensor& out = output(c);
  ComputeDevice& device = device_for(context_of(c), out.dtype);
  if (index.dtype != BP_DTYPE_I64)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": 'index' must be i64");
  if (numel(out) == 0) return;
  if (numel(index) == 0) {
    if (!same_view(out, self)) copy_raw(device, out, self);
    return;
  }
  write_through_indices(device, self, out, [&](const bp_tensor& target) {
    scatter_lines(device, target, dim, index, src, op, reduce, include_self);
  });
}

// scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> out
bp_status scatter_kernel(const bp_call* c) {
  return guarded([&] { launch_scatter(c, "scatter.src", 0, true); });
}

// scatter_reduce.two(self, dim, index, src, str reduce, *, bool include_self) -> out
bp_status scatter_reduce_kernel(const bp_call* c) {
  return guarded([&] {
    const char* op = "scatter_reduce.two";
    const sdk::ScatterReduce r = sdk::scatter_reduction(op, c->args[4].u.s);
    launch_scatter(c, op, static_cast<int>(r), c->args[5].u.b);
  });
}

}  // namespace

void register_scatter(OpRegistrar& ops) {
  ops.add("scatter.src", BP_DTYPES_ALL, scatter_kernel);
  ops.add("scatter_reduce.two", BP_DTYPES_ALL, scatter_reduce_kernel);
}

}  // namespace bp::clk
