// A kernel that does nothing, whose attributes tell whether the fatbinary holds code for a
// device: cudaFuncGetAttributes fails with cudaErrorNoKernelImageForDevice where it holds
// neither SASS for the device's architecture nor PTX the driver can compile for it. Checked
// once at discovery, so such a device is reported with its reason, not at the first launch.
#include "cuda_backend.hpp"

namespace bp::cuda {
namespace {
__global__ void probe() {}
}  // namespace

cudaError_t probe_kernel_image(int ordinal) {
  if (cudaError_t err = cudaSetDevice(ordinal); err != cudaSuccess) return err;
  cudaFuncAttributes attributes{};
  const cudaError_t err = cudaFuncGetAttributes(&attributes, probe);
  if (err != cudaSuccess) cudaGetLastError();  // clear the sticky-free error state
  return err;
}

}  // namespace bp::cuda
