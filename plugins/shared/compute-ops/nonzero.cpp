// nonzero_static on the shared kernels (core/src/ops/nonzero.cpp), on nonzero.cl: per-block
// counts, each block's first row (one work item), then the blocks' rows and the fill rows.
// The rows are the SDK kernel's (sdk/nonzero_kernels.hpp) whatever the block size.
#include "ops_internal.hpp"

#include <algorithm>

namespace bp::clk {
namespace {

constexpr const char* kNonzeroProgram = "nonzero";

// The layout of nonzero.cl's bp_nonzero_self.
struct NonzeroSelf {
  int64_t size[kMaxDims];
  int64_t stride[kMaxDims];
  int64_t offset;
  int64_t ndim;
};

NonzeroSelf self_geometry(const bp_tensor& self) {
  if (self.ndim > kMaxDims)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                     "nonzero_static: 'self' has " + std::to_string(self.ndim) +
                         " dims; this device takes at most " + std::to_string(kMaxDims));
  NonzeroSelf s{};
  for (int32_t d = 0; d < self.ndim; ++d) {
    s.size[d] = self.shape[d];
    s.stride[d] = self.strides[d];
  }
  s.offset = element_offset(self);
  s.ndim = self.ndim;
  return s;
}

// nonzero_static(self, *, size, fill_value) -> out [size, self.ndim], i64
bp_status nonzero_static_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& self = tensor_arg(c, 0);
    const int64_t size = c->args[1].u.i, fill_value = c->args[2].u.i;
    const bp_tensor& out = output(c);
    ComputeDevice& device = device_for(context_of(c), self.dtype);
    if (numel(out) == 0) return;
    const NonzeroSelf s = self_geometry(self);
    // Enough blocks to fill a GPU, each long enough to amortise its work item.
    const int64_t n = numel(self), block = std::max<int64_t>(256, (n + 16383) / 16384);
    const int64_t blocks = (n + block - 1) / block, ndim = self.ndim;
    const int64_t out_offset = element_offset(out), row_stride = out.strides[0];
    const int64_t col_stride = out.strides[1];
    DeviceBuffer first_rows(device, static_cast<size_t>(blocks + 1) * sizeof(int64_t));
    const char* v = variant(self.dtype);
    const KernelArg count_args[] = {memory_arg(first_rows.address()),
                                    memory_arg(self.data),
                                    value_arg(s),
                                    value_arg(n),
                                    value_arg(block),
                                    value_arg(blocks)};
    if (blocks > 0)
      device.launch(device.kernel(kNonzeroProgram, v, "nonzero_count"), count_args,
                    whole_groups(device, blocks));
    const KernelArg scan_args[] = {memory_arg(first_rows.address()), value_arg(blocks)};
    device.launch(device.kernel(kNonzeroProgram, v, "nonzero_first_rows"), scan_args, range_1d(1));
    const KernelArg write_args[] = {memory_arg(out.data),  memory_arg(first_rows.address()),
                                    memory_arg(self.data), value_arg(s),
                                    value_arg(n),          value_arg(block),
                                    value_arg(blocks),     value_arg(size),
                                    value_arg(out_offset), value_arg(row_stride),
                                    value_arg(col_stride)};
    if (blocks > 0)
      device.launch(device.kernel(kNonzeroProgram, v, "nonzero_write"), write_args,
                    whole_groups(device, blocks));
    const KernelArg fill_args[] = {memory_arg(out.data),  memory_arg(first_rows.address()),
                                   value_arg(blocks),     value_arg(size),
                                   value_arg(fill_value), value_arg(ndim),
                                   value_arg(out_offset), value_arg(row_stride),
                                   value_arg(col_stride)};
    device.launch(device.kernel(kNonzeroProgram, v, "nonzero_fill"), fill_args,
                  whole_groups(device, size));
  });
}

}  // namespace

void register_nonzero(OpRegistrar& ops) {
  ops.add("nonzero_static", BP_DTYPES_ALL, nonzero_static_kernel);
}

}  // namespace bp::clk
