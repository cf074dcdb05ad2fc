// OpRegistrar (the SDK's Registrar, limited to the dtypes the backend's devices have) and
// the registration of every op family.
#include "compute_ops.hpp"
#include "launch.hpp"

namespace bp::clk {

OpRegistrar::OpRegistrar(const sdk::Host& host, uint32_t backend_id, DeviceLookup lookup,
                         bp_dtype_mask dtypes)
    : registrar_(host.kernels(backend_id)), dtypes_(dtypes) {
  set_device_lookup(lookup, host.api());
}

void OpRegistrar::add(const char* op, bp_dtype_mask dtypes, bp_kernel_fn fn, const char* kernel) {
  const bp_dtype_mask mask = dtypes & dtypes_;
  if (mask == 0) return;
  registrar_.raw(op, mask, fn, const_cast<char*>(kernel));
}

void register_compute_ops(const sdk::Host& host, uint32_t backend_id, DeviceLookup lookup,
                          bp_dtype_mask dtypes) {
  OpRegistrar ops(host, backend_id, lookup, dtypes);
  register_unary(ops);
  register_binary(ops);
  register_data_movement(ops);
  register_reductions(ops);
  register_linalg(ops);
  register_activation_backward(ops);
  register_indexed_writes(ops);
  register_scans(ops);
  register_convolution(ops);
  register_pooling(ops);
  register_random(ops);
  register_sort(ops);
  register_scatter(ops);
  register_nonzero(ops);
}

}  // namespace bp::clk
