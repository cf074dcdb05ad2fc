// A kernel that does nothing, whose attributes tell whether this build has code for a
// device: cudaFuncGetAttributes fails with cudaErrorNoKernelImageForDevice where the
// fatbinary holds neither SASS for the device's architecture nor PTX the driver can compile
// for it. The kernel modules (cuda_kernels/*.fatbin) are built for the same architectures
// (CMAKE_CUDA_ARCHITECTURES), so this one check stands for them all; it runs once at
// discovery, so such a device is reported with its reason, not at the first launch.
#include "gpu_backend.hpp"

namespace bp::gpu {
namespace {
__global__ void probe() {}
}  // namespace

cudaError_t has_code_for(int ordinal, const cudaDeviceProp&, std::string* built_for) {
  *built_for =
      "CMAKE_CUDA_ARCHITECTURES " BP_CUDA_ARCHITECTURES "; rebuild with the device's architecture";
  if (cudaError_t err = cudaSetDevice(ordinal); err != cudaSuccess) return err;
  cudaFuncAttributes attributes{};
  const cudaError_t err = cudaFuncGetAttributes(&attributes, probe);
  if (err != cudaSuccess) cudaGetLastError();  // clear the error state
  return err;
}

}  // namespace bp::gpu
