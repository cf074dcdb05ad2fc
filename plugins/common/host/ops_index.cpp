// index_select and gather on the shared kernel `take` (cl/index.cl): the output's geometry
// with three operands (output, self with the indexed dim's stride zeroed, index), the index
// value scaled by self's stride along the dim. Index values are checked on the device; the
// first bad one is reported as BP_ERR_INDEX naming the value, the dim and its size.
#include "ops_internal.hpp"

#include <string>

namespace bp::clk {
namespace {

constexpr const char* kProgram = "index";

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
  DeviceBuffer status(device, 16);
  const int64_t zeros[2] = {0, 0};
  device.write(status.address(), zeros, sizeof zeros);
  const int64_t dim_stride = self.strides[dim], dim_size = self.shape[dim], n = numel(out);
  const KernelArg args[] = {memory_arg(out.data),   memory_arg(self.data),
                            memory_arg(index.data), memory_arg(status.address()),
                            value_arg(g),           value_arg(n),
                            value_arg(dim_stride),  value_arg(dim_size)};
  const char* kernel = index.dtype == BP_DTYPE_I64 ? "take_i64" : "take_i32";
  device.launch(device.kernel(kProgram, variant(self.dtype), kernel), args,
                whole_groups(device, n));
  int64_t result[2];
  device.read(result, status.address(), sizeof result);
  if (static_cast<int32_t>(result[0]) != 0)
    throw sdk::Error(BP_ERR_INDEX, std::string(c->op_name) + ": index " +
                                       std::to_string(result[1]) +
                                       " is out of range for dimension " + std::to_string(dim) +
                                       " with size " + std::to_string(dim_size));
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

}  // namespace

void register_indexing(Registry& r) {
  r.add("index_select", BP_DTYPES_ALL, index_select_kernel);
  r.add("gather", BP_DTYPES_ALL, gather_kernel);
}

}  // namespace bp::clk
