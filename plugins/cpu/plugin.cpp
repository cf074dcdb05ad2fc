// The CPU backend's entry point and device. Its one device is the host: memory is ordinary
// host memory (sdk::HostMemoryDevice, 64-byte aligned), copies are memmove, and work is
// synchronous, so there are no streams. Kernels live in the other files of this folder.
#include "cpu.hpp"
#include "isa_cap.hpp"
#include "simd.hpp"

#include <backplane/sdk/device.hpp>
#include <backplane/sdk/plugin.hpp>

#include <omp.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <string_view>

namespace bp::cpu {
namespace {

// Cache-line alignment at least: Highway's aligned loads and streaming stores want it.
constexpr size_t kMinAlignment = 64;

std::string cpu_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  }
  return "host CPU";
}

// The host as a device: named after the CPU model, with the machine's memory, one compute
// unit per OpenMP thread, and the ISA level and each library's choice as its attributes.
class CpuDevice : public sdk::HostMemoryDevice {
 public:
  CpuDevice() : HostMemoryDevice(cpu_model_name(), "Backplane") {
    named_in_messages("cpu");
    min_alignment(kMinAlignment);
  }

  void properties(int32_t index, bp_device_props& out) override {
    HostMemoryDevice::properties(index, out);
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long avail = sysconf(_SC_AVPHYS_PAGES);
    const long page_size = sysconf(_SC_PAGE_SIZE);
    if (pages > 0 && page_size > 0) out.total_memory = uint64_t(pages) * uint64_t(page_size);
    if (avail > 0 && page_size > 0) out.free_memory = uint64_t(avail) * uint64_t(page_size);
    out.compute_units = static_cast<uint32_t>(omp_get_max_threads());
  }
  // isa_cap.hpp: "isa=avx2 isa_cap=avx2 ... highway=AVX2 onednn=avx2", for reports.
  std::string attributes(int32_t index) override {
    check_index(index);
    return isa_attributes();
  }
};

void init(sdk::Host& host, std::string_view options) {
  // Before anything dispatches on the CPU's ISA.
  apply_isa_cap(host.api(), options);
  static CpuDevice device;  // lives until the program exits: the runtime may call it until then
  sdk::Registrar kernels = host.kernels(host.register_backend("cpu", device));
  // Which Highway target the run-time dispatch picked (AVX3 = AVX-512, AVX2, ...).
  host.log(0, std::string("cpu: elementwise SIMD target ") + simd::target_name());
  for (auto register_file :
       {register_data_movement_copy_kernels, register_unary_kernels, register_binary_kernels,
        register_reduction_kernels, register_data_movement_index_kernels, register_linalg_kernels,
        register_nn_kernels, register_activation_backward_kernels, register_indexed_write_kernels,
        register_scan_kernels, register_convolution_kernels, register_pooling_kernels,
        register_random_kernels, register_sort_kernels, register_scatter_kernels,
        register_nonzero_kernels})
    register_file(kernels);
}

}  // namespace
}  // namespace bp::cpu

BP_SDK_PLUGIN("cpu", "0.1.0", "Backplane", bp::cpu::init, nullptr)
