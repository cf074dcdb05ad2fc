// The shared state of a GPU backend (plugins/cuda, plugins/rocm, built from the same host
// sources): every device the vendor runtime reports, its properties, its stream, pinned
// staging buffers and kernels; for a device this build has no code for, the reason it
// cannot be used. docs/gpu.md.
#pragma once

#include "gpu_runtime.hpp"

#include <backplane/plugin.h>

#include <memory>
#include <string>
#include <vector>

namespace bp::clk {
struct GemmArgs;
class ComputeDevice;
}  // namespace bp::clk
namespace bp::sdk {
class Host;
}

namespace bp::gpu {

// The backend's name as registered ("cuda" or "rocm"), and its vendor runtime's.
#if defined(BP_GPU_HIP)
inline constexpr const char* kBackend = "rocm";
inline constexpr const char* kRuntime = "HIP";
#else
inline constexpr const char* kBackend = "cuda";
inline constexpr const char* kRuntime = "CUDA";
#endif

// "cudaErrorInsufficientDriver (35): CUDA driver version is insufficient for CUDA runtime
// version" for a runtime status.
std::string error_text(cudaError_t err);
// Reports an error through the host's set_error and returns `code`.
bp_status fail(bp_status code, const std::string& message);
// Throws sdk::Error (BP_ERR_DEVICE, or BP_ERR_OUT_OF_MEMORY) naming `what` unless err is
// cudaSuccess; clears the runtime's last error first.
void check(cudaError_t err, const std::string& what);

class Staging;
class Compute;

struct Device {
  int ordinal = 0;  // the runtime's device number
  bp_device_props props{};
  std::string arch;  // "sm_90", "gfx90a"
  cudaStream_t stream = nullptr;
  std::unique_ptr<Staging> staging;
  std::unique_ptr<Compute> compute;
  Device();
  ~Device();
  Device(Device&&) noexcept;
};

struct Backend {
  std::vector<Device> devices;   // the usable ones
  std::string no_device_reason;  // when devices is empty
};

// Finds every device the runtime reports and keeps those this build can run kernels on
// (has_code_for); a device without usable code is left out with its reason.
void discover(Backend& backend);

// cudaSuccess when this build's kernels have code the device can run (CUDA: SASS for its
// architecture or PTX the driver can compile; HIP: a code object for its gfx target);
// otherwise the error, with what the build has in `built_for`. CUDA: probe.cu; HIP:
// plugins/rocm.
cudaError_t has_code_for(int ordinal, const cudaDeviceProp& props, std::string* built_for);

// The directory of the plugin's kernel modules: <dir of this plugin's file>/<kBackend>_kernels
// (found with dladdr, so a copied build or install tree works).
std::string kernel_directory();

// A vendor GEMM queued on `stream` (CUDA: cuBLAS, loaded on first use); false, with nothing
// queued, where there is none or it does not take the arguments: the caller then runs the
// tiled kernel of plugins/shared/opencl-c-kernels/matmul.cl (ROCm: always; Debian has no rocBLAS).
bool vendor_gemm(Device& device, const clk::GemmArgs& args);

extern const bp_host_api* g_host;

// The plugin's init and shutdown (plugins/cuda/plugin.cpp, plugins/rocm/plugin.cpp):
// start_backend discovers the devices, prepares each usable one (its stream, staging buffers
// and kernels; one that cannot be prepared is left out with its reason) and registers the
// backend kBackend over them, returning its id; it throws sdk::Error when the host refuses.
// compute_device_of is the DeviceLookup of the shared ops (compute-ops/compute_ops.hpp).
// stop_backend waits for and releases every device.
uint32_t start_backend(const sdk::Host& host);
clk::ComputeDevice* compute_device_of(int32_t index);
void stop_backend();

}  // namespace bp::gpu
