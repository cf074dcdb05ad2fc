// Registration of the kernels of plugins/common/cl/ for a backend whose devices implement
// ComputeDevice (the OpenCL and Level Zero plugins). Each kernel function unpacks its
// bp_call, prepares the geometry of its tensors (dims coalesced, docs/opencl.md) and
// launches the matching OpenCL C kernel on the call's device.
#pragma once

#include "compute_device.hpp"

#include <backplane/plugin.h>

namespace bp::clk {

// The ComputeDevice of a device index of the backend, or nullptr when there is none.
using DeviceLookup = ComputeDevice* (*)(int32_t device_index);

// Registers every op of op set v1 that the shared kernels implement, for the dtypes in
// `dtypes` (the union of what the backend's devices support; a device without fp64 rejects
// an f64 call with BP_ERR_UNSUPPORTED). Throws sdk::Error when the host refuses one.
void register_kernels(const bp_host_api* host, uint32_t backend_id, DeviceLookup lookup,
                      bp_dtype_mask dtypes);

}  // namespace bp::clk
