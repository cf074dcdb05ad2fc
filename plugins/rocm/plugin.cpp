// The ROCm backend's entry point: the shared CUDA/HIP backend (plugins/shared/cuda-hip-backend/)
// over the HIP runtime, registered as "rocm", and the ops it runs: the shared launchers of
// plugins/shared/compute-ops/ on the code objects hipcc built from plugins/shared/opencl-c-kernels/
// (rocm_kernels/ beside this plugin); matmul runs the tiled kernel (Debian has no rocBLAS;
// rocm_device.cpp). docs/gpu.md.
#include "compute_ops.hpp"
#include "gpu_backend.hpp"

#include <backplane/sdk/plugin.hpp>

#include <string_view>

namespace bp::gpu {
namespace {

static_assert(std::string_view(kBackend) == "rocm", "plugins/rocm is built with BP_GPU_HIP");

void init(sdk::Host& host, std::string_view) {
  const uint32_t backend = start_backend(host);
  // The ops rocm runs: every op family of plugins/shared/compute-ops/ (unary, binary,
  // data_movement, reductions, linalg; each family's file lists its op names: "add.Tensor"
  // is registered in binary.cpp), for every dtype: every device computes in double, and with
  // no device they are still registered, so `backplane ops` shows the backend's ops.
  clk::register_compute_ops(host, backend, compute_device_of, BP_DTYPES_ALL);
}

}  // namespace
}  // namespace bp::gpu

BP_SDK_PLUGIN("rocm", "0.1.0", "Backplane", bp::gpu::init, bp::gpu::stop_backend)
