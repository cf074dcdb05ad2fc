// The OpenCL backend's entry point: discovery at init, the backend "opencl" over every device
// of every platform (device_api.cpp), and the ops it runs: the shared launchers of
// plugins/shared/compute-ops/ on the programs of plugins/shared/opencl-c-kernels/, built at
// run time on each device (compute.cpp), with matmul through CLBlast where it is built in
// (gemm_clblast.cpp).
#include "compute_ops.hpp"
#include "opencl.hpp"

#include <backplane/sdk/plugin.hpp>

#include <string>
#include <string_view>

namespace bp::opencl {
namespace {

void init(sdk::Host& host, std::string_view) {
  g_host = host.api();
  discover(g_backend);
  uint32_t backend = 0;
  if (bp_status s =
          host.api()->register_backend(host.api()->host, "opencl", &kDeviceApi, nullptr, &backend);
      s != BP_OK)
    throw sdk::Error::reported_by_host(s, "register_backend(opencl) failed");
  // Kernels for the dtypes some device has (an f64 call on a device without fp64 is refused
  // by the kernel); with no device, every dtype, so `backplane ops` shows the backend's ops.
  bp_dtype_mask dtypes = g_backend.devices.empty() ? BP_DTYPES_ALL : 0;
  for (const auto& d : g_backend.devices) dtypes |= d->props.dtypes;
  // The ops opencl runs: every op family of plugins/shared/compute-ops/ (unary, binary,
  // data_movement, reductions, linalg; each family's file lists its op names: "add.Tensor"
  // is registered in binary.cpp).
  clk::register_compute_ops(host, backend, compute_device_of, dtypes);
}

void shutdown() {
  release(g_backend);
  g_backend.no_device_reason.clear();
  g_host = nullptr;
}

}  // namespace
}  // namespace bp::opencl

BP_SDK_PLUGIN("opencl", "0.1.0", "Backplane", bp::opencl::init, bp::opencl::shutdown)
