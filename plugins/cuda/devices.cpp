// Device discovery through the CUDA runtime: cudaGetDeviceCount's error is the reason when
// there is no device (cudaErrorInsufficientDriver without a driver, cudaErrorNoDevice
// without a GPU), then each device's properties and a check that this build can run on it.
#include "cuda_backend.hpp"

#include <algorithm>
#include <cstring>

namespace bp::cuda {

std::string error_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + std::to_string(static_cast<int>(err)) +
         "): " + cudaGetErrorString(err);
}

namespace {

// Every dtype: f16 and bf16 are computed in float by the shared kernels, f64 is native on
// every architecture this plugin builds for.
void fill_props(Device& d, const cudaDeviceProp& p) {
  bp_device_props& out = d.props;
  out.struct_size = sizeof out;
  const size_t length = std::min(std::strlen(p.name), sizeof out.name - 1);  // 255 -> 127
  std::memcpy(out.name, p.name, length);
  out.name[length] = '\0';
  std::strncpy(out.vendor, "NVIDIA", sizeof out.vendor - 1);
  static_assert(sizeof out.uuid == sizeof p.uuid.bytes);
  std::memcpy(out.uuid, p.uuid.bytes, sizeof out.uuid);
  out.total_memory = p.totalGlobalMem;
  out.compute_units = static_cast<uint32_t>(p.multiProcessorCount);
  out.flags = 0;
  out.dtypes = BP_DTYPES_ALL;
  d.compute_major = p.major;
  d.compute_minor = p.minor;
}

}  // namespace

void discover(Backend& backend) {
  int count = 0;
  if (cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
    cudaGetLastError();
    backend.no_device_reason = "cudaGetDeviceCount failed: " + error_text(err);
    return;
  }
  std::string problems;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp p{};
    if (cudaError_t err = cudaGetDeviceProperties(&p, ordinal); err != cudaSuccess) {
      problems += "; device " + std::to_string(ordinal) + ": " + error_text(err);
      continue;
    }
    if (cudaError_t err = probe_kernel_image(ordinal); err != cudaSuccess) {
      problems += "; device " + std::to_string(ordinal) + " (" + p.name + ", compute " +
                  std::to_string(p.major) + "." + std::to_string(p.minor) +
                  "): this build has no code it can run (" + error_text(err) +
                  "; rebuild with -DCMAKE_CUDA_ARCHITECTURES including " +
                  std::to_string(p.major * 10 + p.minor) + ")";
      continue;
    }
    Device d;
    d.ordinal = ordinal;
    fill_props(d, p);
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(ordinal) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      d.props.free_memory = free_bytes;
    backend.devices.push_back(d);
  }
  if (backend.devices.empty())
    backend.no_device_reason =
        count == 0 ? "the CUDA runtime reports no device" : "no usable CUDA device" + problems;
}

}  // namespace bp::cuda
