// What the ROCm backend adds to the shared GPU host code (plugins/shared/cuda-hip-backend): the
// check that the build has a code object for a device's gfx target, and no vendor GEMM
// (Debian packages no rocBLAS), so matmul runs the tiled kernel of
// plugins/shared/opencl-c-kernels/matmul.cl.
#include "gpu_backend.hpp"

#include <sstream>
#include <string>

namespace bp::gpu {

cudaError_t has_code_for(int, const cudaDeviceProp& props, std::string* built_for) {
  *built_for =
      "BP_ROCM_OFFLOAD_ARCHS " BP_ROCM_OFFLOAD_ARCHS "; rebuild with the device's gfx target in it";
  const std::string arch =
      std::string(props.gcnArchName)
          .substr(
              0, std::string(props.gcnArchName).find(':'));  // "gfx90a:sramecc+:xnack-" -> "gfx90a"
  std::istringstream built(BP_ROCM_OFFLOAD_ARCHS);
  for (std::string target; built >> target;)
    if (target == arch) return hipSuccess;
  return hipErrorNoBinaryForGpu;
}

bool vendor_gemm(Device&, const clk::GemmArgs&) {
  return false;
}

}  // namespace bp::gpu
