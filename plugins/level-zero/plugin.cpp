// The Level Zero backend's entry point and device API: discovery at init, the backend
// "level_zero" over the discovered devices (sdk::Device catches every error at the C
// boundary), and the ops it runs where their SPIR-V was built: the shared launchers of
// plugins/shared/compute-ops/ on the modules built from plugins/shared/opencl-c-kernels/
// (level_zero_kernels/ beside this plugin).
#include "level_zero.hpp"

#include "compute_ops.hpp"

#include <backplane/sdk/plugin.hpp>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace bp::level_zero {

namespace {

Backend g_backend;

Device& device_at(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= g_backend.devices.size())
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, "level_zero: no device " + std::to_string(index) +
                                                  " (" + std::to_string(g_backend.devices.size()) +
                                                  " device(s))");
  return *g_backend.devices[static_cast<size_t>(index)];
}

class Devices final : public sdk::Device {
 public:
  int32_t device_count(const char** reason) override {
    *reason = g_backend.devices.empty() ? g_backend.no_device_reason.c_str() : nullptr;
    return static_cast<int32_t>(g_backend.devices.size());
  }
  void properties(int32_t index, bp_device_props& out) override {
    // The host's struct may be older (shorter) than ours: copy what it has room for.
    const size_t size = std::min(out.struct_size, sizeof(bp_device_props));
    std::memcpy(&out, &device_at(index).info().props, size);
    out.struct_size = size;
  }
  void* allocate(int32_t index, size_t bytes, size_t alignment) override {
    return device_at(index).allocate(bytes, alignment);
  }
  void deallocate(int32_t index, void* ptr) override { device_at(index).free(ptr); }
  void copy(int32_t index, bp_copy_kind kind, void* dst, const void* src, size_t bytes,
            void*) override {
    device_at(index).copy(kind, dst, src, bytes);
  }
  void synchronize(int32_t index, void*) override { device_at(index).synchronize(); }
};

Devices g_devices;

clk::ComputeDevice* compute_device(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= g_backend.devices.size()) return nullptr;
  return g_backend.devices[static_cast<size_t>(index)].get();
}

void init(sdk::Host& host, std::string_view) {
  const std::string kernel_dir = kernel_directory();
  discover(g_backend, kernel_dir);
  try {
    const uint32_t backend = host.register_backend("level_zero", g_devices);
    if (!has_kernel_files(kernel_dir)) {
      // Registering kernels that cannot load would turn "missing" (which the fallback
      // policy handles) into an error on every call.
      if (!g_backend.devices.empty())
        host.log(2, "level_zero: no SPIR-V kernels in " + kernel_dir +
                        " (the plugin was built without clang-14, llvm-spirv-14 and spirv-val, "
                        "or the folder was not installed beside it): every op is missing on "
                        "level_zero");
      return;
    }
    // The dtypes some device has (an f64 call on a device without fp64 is refused by the
    // kernel); with no device every dtype, so `backplane ops` shows the backend's ops, as
    // the OpenCL plugin does.
    const bp_dtype_mask dtypes = g_backend.devices.empty() ? BP_DTYPES_ALL : g_backend.dtypes;
    // The ops level_zero runs: every op family of plugins/shared/compute-ops/ (unary,
    // binary, data_movement, reductions, linalg; each family's file lists its op names:
    // "add.Tensor" is registered in binary.cpp).
    clk::register_compute_ops(host, backend, compute_device, dtypes);
  } catch (...) {
    release(g_backend);
    throw;
  }
}

void shutdown() {
  release(g_backend);
}

}  // namespace
}  // namespace bp::level_zero

BP_SDK_PLUGIN("level_zero", "0.1.0", "Backplane", bp::level_zero::init, bp::level_zero::shutdown)
