// register_kernels: the table of the ops the shared kernels implement.
#include "ops.hpp"

namespace bp::clk {

void register_kernels(const bp_host_api*, uint32_t, DeviceLookup, bp_dtype_mask) {}

}  // namespace bp::clk
