// Writes through indices on the shared kernels, core's `indexed_writes` family
// (core/src/ops/indexed_writes.cpp): index_add, on index.cl's `index_add_*`. self is copied
// into the output, then one work item per position of the other dims adds that position's
// rows in the index's order (deterministic, no atomics). An out-of-range index is reported
// as BP_ERR_INDEX naming the value, the dim and its size; in place, self is left untouched
// (write_through_indices).
#include "ops_internal.hpp"

#include <string>

namespace bp::clk {
namespace {

constexpr const char* kIndexProgram = "index";

// Adds source's rows at index into `out` (which holds self's values), one work item per
// position of the other dims; throws BP_ERR_INDEX on an out-of-range index.
void add_rows(ComputeDevice& device, const bp_tensor& out, int64_t dim, const bp_tensor& index,
              const bp_tensor& source, const ScalarValue& alpha) {
  const int64_t n = index.ndim > 0 ? index.shape[0] : 1;
  const Operand operands[] = {{out.strides, element_offset(out)},
                              {source.strides, element_offset(source)}};
  const Geom g = line_geometry(out, dim, operands);
  const int64_t positions = numel(out) / out.shape[dim];
  const IndexStatus status(device);
  const int64_t index_offset = element_offset(index);
  const int64_t index_stride = index.ndim > 0 ? index.strides[0] : 0;
  const int64_t out_dim_stride = out.strides[dim], source_dim_stride = source.strides[dim];
  const int64_t dim_size = out.shape[dim];
  const KernelArg args[] = {memory_arg(out.data),
                            memory_arg(source.data),
                            memory_arg(index.data),
                            memory_arg(status.address()),
                            value_arg(g),
                            value_arg(positions),
                            value_arg(n),
                            value_arg(index_offset),
                            value_arg(index_stride),
                            value_arg(out_dim_stride),
                            value_arg(source_dim_stride),
                            value_arg(dim_size),
                            alpha.arg()};
  const char* kernel = index.dtype == BP_DTYPE_I64 ? "index_add_i64" : "index_add_i32";
  device.launch(device.kernel(kIndexProgram, variant(out.dtype), kernel), args,
                whole_groups(device, positions));
  status.check(device, "index_add", dim, dim_size);
}

// index_add(self, dim, index, source, *, alpha) -> out; the meta rule passes self, source
// and out with >= 1 dim, source with index.numel() along dim, and a 1-D index.
bp_status index_add_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const int64_t dim = c->args[1].u.i;
    const bp_tensor& index = tensor_arg(c, 2);
    const bp_tensor& source = tensor_arg(c, 3);
    const bp_tensor& out = output(c);
    ComputeDevice& device = device_for(context_of(c), out.dtype);
    if (index.dtype != BP_DTYPE_I64 && index.dtype != BP_DTYPE_I32)
      throw sdk::Error(BP_ERR_INVALID_ARGUMENT, "index_add: index has dtype " +
                                                    std::string(sdk::dtype_name(index.dtype)) +
                                                    ", expected i64 or i32");
    if (numel(out) == 0) return;
    const int64_t n = index.ndim > 0 ? index.shape[0] : 1;
    if (n == 0) {
      if (!same_view(out, self)) copy_raw(device, out, self);
      return;
    }
    const ScalarValue alpha = scalar_value(out.dtype, sdk::Scalar(c->args[4]));
    write_through_indices(device, self, out, [&](const bp_tensor& target) {
      add_rows(device, target, dim, index, source, alpha);
    });
  });
}

}  // namespace

void register_indexed_writes(OpRegistrar& ops) {
  ops.add("index_add", BP_DTYPES_ALL, index_add_kernel);
}

}  // namespace bp::clk
