// sort.stable on the shared kernels (core/src/ops/sort.cpp), on sort.cl's `sort_rank`: one
// work item per element places it at its rank in its line, which is the stable order the
// CPU backends' std::stable_sort gives (NaN above every number), so every device returns
// the same values and indices.
#include "ops_internal.hpp"

namespace bp::clk {
namespace {

constexpr const char* kSortProgram = "sort";

// sort.stable(self, *, stable, dim, descending) -> (values, indices); self has >= 1 dim.
bp_status sort_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const int64_t dim = c->args[2].u.i;
    const int descending = c->args[3].u.b ? 1 : 0;
    const bp_tensor& values = tensor_arg(c, 4);  // the outputs follow the arguments
    const bp_tensor& indices = tensor_arg(c, 5);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    const int64_t n = numel(self);
    if (n == 0) return;
    const Operand operands[] = {{values.strides, element_offset(values)},
                                {indices.strides, element_offset(indices)},
                                {self.strides, element_offset(self)}};
    const Geom g = line_geometry(self, dim, operands);
    const int64_t len = self.shape[dim];
    const int64_t values_stride = values.strides[dim], indices_stride = indices.strides[dim];
    const int64_t self_stride = self.strides[dim];
    const KernelArg args[] = {memory_arg(values.data),
                              memory_arg(indices.data),
                              memory_arg(self.data),
                              value_arg(g),
                              value_arg(n),
                              value_arg(len),
                              value_arg(values_stride),
                              value_arg(indices_stride),
                              value_arg(self_stride),
                              value_arg(descending)};
    device.launch(device.kernel(kSortProgram, variant(self.dtype), "sort_rank"), args,
                  whole_groups(device, n));
  });
}

}  // namespace

void register_sort(OpRegistrar& ops) {
  ops.add("sort.stable", BP_DTYPES_ALL, sort_kernel);
}

}  // namespace bp::clk
