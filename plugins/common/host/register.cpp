// register_kernels: every op family adds its kernels to one Registry.
#include "ops_internal.hpp"

#include <backplane/sdk/error.hpp>

#include <string>

namespace bp::clk {

void Registry::add(const char* op, bp_dtype_mask dtypes, bp_kernel_fn fn, const char* kernel) {
  const bp_dtype_mask mask = dtypes & dtypes_;
  if (mask == 0) return;
  const bp_status s =
      host_->register_kernel(host_->host, backend_, op, mask, fn, const_cast<char*>(kernel));
  if (s != BP_OK)
    throw sdk::Error::reported_by_host(s, std::string("register_kernel(") + op + ") failed");
}

void register_kernels(const bp_host_api* host, uint32_t backend_id, DeviceLookup lookup,
                      bp_dtype_mask dtypes) {
  set_device_lookup(lookup, host);
  Registry r(host, backend_id, dtypes);
  register_elementwise(r);
  register_copy(r);
  register_reductions(r);
  register_indexing(r);
  register_matmul(r);
}

}  // namespace bp::clk
