// Shared between the op files of the host side: the registry each file adds its kernels
// to, and helpers more than one op family uses.
#pragma once

#include "launch.hpp"

namespace bp::clk {

// Collects (op, dtypes, kernel, context) and registers them with the host, keeping only the
// dtypes the backend's devices have.
class Registry {
 public:
  Registry(const bp_host_api* host, uint32_t backend, bp_dtype_mask dtypes)
      : host_(host), backend_(backend), dtypes_(dtypes) {}
  void add(const char* op, bp_dtype_mask dtypes, bp_kernel_fn fn, const char* kernel = nullptr);

 private:
  const bp_host_api* host_;
  uint32_t backend_;
  bp_dtype_mask dtypes_;
};

void register_elementwise(Registry& r);
void register_copy(Registry& r);
void register_reductions(Registry& r);
void register_indexing(Registry& r);
void register_matmul(Registry& r);

// Whether tensor `t` (integral) has a zero element; a blocking check on the device.
bool has_zero(ComputeDevice& device, const bp_tensor& t);
// Copies `src` into `dst` (same dtype and shape) bit for bit.
void copy_raw(ComputeDevice& device, const bp_tensor& dst, const bp_tensor& src);

}  // namespace bp::clk
