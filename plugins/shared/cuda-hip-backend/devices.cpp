// Device discovery through the vendor runtime: cudaGetDeviceCount's (hipGetDeviceCount's)
// error is the reason when there is no device (cudaErrorInsufficientDriver without a
// driver, hipErrorNoDevice without a GPU), then each device's properties and a check that
// this build has code it can run.
#include "gpu_backend.hpp"

#include <backplane/sdk/error.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace bp::gpu {

std::string error_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + std::to_string(static_cast<int>(err)) +
         "): " + cudaGetErrorString(err);
}

void check(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();
  throw sdk::Error(err == cudaErrorMemoryAllocation ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
                   std::string(kBackend) + ": " + what + " failed: " + error_text(err));
}

namespace {

// An object of this plugin: dladdr names the file that holds it.
const char kInThisPlugin = 0;

// Every dtype: f16 and bf16 are computed in float by the shared kernels, f64 is native on
// every architecture these plugins build for.
void fill_props(Device& d, const cudaDeviceProp& p) {
  bp_device_props& out = d.props;
  out.struct_size = sizeof out;
  const size_t length = std::min(std::strlen(p.name), sizeof out.name - 1);
  std::memcpy(out.name, p.name, length);
  out.name[length] = '\0';
#if defined(BP_GPU_HIP)
  std::strncpy(out.vendor, "AMD", sizeof out.vendor - 1);
  const std::string arch = p.gcnArchName;
  d.arch = arch.substr(0, arch.find(':'));  // "gfx90a:sramecc+:xnack-" -> "gfx90a"
  char uuid[16] = {};
  if (hipDeviceGetUuid(reinterpret_cast<hipUUID*>(uuid), d.ordinal) == hipSuccess)
    std::memcpy(out.uuid, uuid, sizeof out.uuid);
#else
  std::strncpy(out.vendor, "NVIDIA", sizeof out.vendor - 1);
  static_assert(sizeof out.uuid == sizeof p.uuid.bytes);
  std::memcpy(out.uuid, p.uuid.bytes, sizeof out.uuid);
  d.arch = "sm_" + std::to_string(p.major * 10 + p.minor);
#endif
  out.total_memory = p.totalGlobalMem;
  out.compute_units = static_cast<uint32_t>(p.multiProcessorCount);
  out.flags = 0;
  out.dtypes = BP_DTYPES_ALL;
  std::strncpy(out.architecture, d.arch.c_str(), sizeof out.architecture - 1);
}

}  // namespace

std::string kernel_directory() {
  const std::string subdir = std::string(kBackend) + "_kernels";
  Dl_info info{};
  if (dladdr(&kInThisPlugin, &info) == 0 || info.dli_fname == nullptr) return subdir;
  return (std::filesystem::path(info.dli_fname).parent_path() / subdir).string();
}

void discover(Backend& backend) {
  int count = 0;
  if (cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
    (void)cudaGetLastError();
#if defined(BP_GPU_HIP)
    backend.no_device_reason = "hipGetDeviceCount failed: " + error_text(err);
#else
    backend.no_device_reason = "cudaGetDeviceCount failed: " + error_text(err);
#endif
    return;
  }
  std::string problems;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp p{};
    if (cudaError_t err = cudaGetDeviceProperties(&p, ordinal); err != cudaSuccess) {
      problems += "; device " + std::to_string(ordinal) + ": " + error_text(err);
      continue;
    }
    Device d;
    d.ordinal = ordinal;
    fill_props(d, p);
    std::string built_for;
    if (cudaError_t err = has_code_for(ordinal, p, &built_for); err != cudaSuccess) {
      problems += "; device " + std::to_string(ordinal) + " (" + p.name + ", " + d.arch +
                  "): this build has no code it can run (" + error_text(err) + "; built for " +
                  built_for + ")";
      continue;
    }
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaSetDevice(ordinal) == cudaSuccess &&
        cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
      d.props.free_memory = free_bytes;
    backend.devices.push_back(std::move(d));
  }
  if (backend.devices.empty())
    backend.no_device_reason = count == 0
                                   ? std::string("the ") + kRuntime + " runtime reports no device"
                                   : std::string("no usable ") + kRuntime + " device" + problems;
}

}  // namespace bp::gpu
