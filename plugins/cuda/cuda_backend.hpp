// The CUDA backend's shared state: every device the CUDA runtime reports, its properties and,
// for a device this build has no kernel image for, the reason it cannot be used. docs/gpu.md.
#pragma once

#include <backplane/plugin.h>
#include <cuda_runtime_api.h>

#include <string>
#include <vector>

namespace bp::cuda {

// "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA runtime
// version" for a CUDA runtime status.
std::string error_text(cudaError_t err);
// Reports an error through the host's set_error and returns `code`.
bp_status fail(bp_status code, const std::string& message);

struct Device {
  int ordinal = 0;  // the CUDA device number
  bp_device_props props{};
  int compute_major = 0, compute_minor = 0;
};

struct Backend {
  std::vector<Device> devices;    // the usable ones
  std::string no_device_reason;   // when devices is empty
};

// Finds every device the runtime reports and keeps those this build can run kernels on
// (probe_kernel_image); a device without a usable image is left out with its reason.
void discover(Backend& backend);

// cudaSuccess when this build's fatbinary has code the device can run (SASS for its
// architecture, or PTX the driver can compile for it); cudaErrorNoKernelImageForDevice
// otherwise. Implemented in probe.cu.
cudaError_t probe_kernel_image(int ordinal);

extern const bp_host_api* g_host;

}  // namespace bp::cuda
