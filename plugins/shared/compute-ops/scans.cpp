// The scans on the shared kernels, core's `scans` family (core/src/ops/scans.cpp): cumsum
// and cumprod, on reduce.cl's `cumsum_lines` / `cumprod_lines`. One work item per line along
// the scanned dim accumulates in order (deterministic, the CPU backends' order); the runtime
// has converted self to the result dtype.
#include "ops_internal.hpp"

namespace bp::clk {
namespace {

constexpr const char* kReduceProgram = "reduce";

// cumsum / cumprod(self, dim, *, dtype) -> out; self and out have >= 1 dim.
bp_status scan_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const int64_t dim = c->args[1].u.i;
    const bp_tensor& out = output(c);
    ComputeDevice& device = device_for(context_of(c), out.dtype);
    if (numel(out) == 0) return;
    const Operand operands[] = {{out.strides, element_offset(out)},
                                {self.strides, element_offset(self)}};
    const Geom g = line_geometry(out, dim, operands);
    const int64_t len = out.shape[dim], lines = numel(out) / len;
    const int64_t out_stride = out.strides[dim], self_stride = self.strides[dim];
    const KernelArg args[] = {memory_arg(out.data),  memory_arg(self.data), value_arg(g),
                              value_arg(lines),      value_arg(len),        value_arg(out_stride),
                              value_arg(self_stride)};
    device.launch(device.kernel(kReduceProgram, variant(out.dtype), table_kernel_name(c)), args,
                  whole_groups(device, lines));
  });
}

}  // namespace

void register_scans(OpRegistrar& ops) {
  ops.add("cumsum", kAllButBool, scan_kernel, "cumsum_lines");
  ops.add("cumprod", kAllButBool, scan_kernel, "cumprod_lines");
}

}  // namespace bp::clk
