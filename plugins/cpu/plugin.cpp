// The CPU backend's entry point and device API. Its one device is the host: memory is
// ordinary (64-byte aligned) host memory, copies are memcpy, and work is synchronous, so
// there are no streams. Kernels live in the other files of this folder.
#include "cpu.hpp"
#include "isa_cap.hpp"

#include <backplane/sdk/device.hpp>
#include <backplane/sdk/host_allocation.hpp>

#include <omp.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace bp::cpu {

const bp_host_api* g_host = nullptr;

bp_status fail(bp_status code, const std::string& message) {
  if (g_host) g_host->set_error(g_host->host, code, message.c_str());
  return code;
}

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

bp_status device_count(void*, int32_t* out_count, const char** out_reason) {
  *out_count = 1;
  if (out_reason) *out_reason = nullptr;
  return BP_OK;
}

bp_status device_properties(void*, int32_t index, bp_device_props* out) {
  if (index != 0) return fail(BP_ERR_INVALID_ARGUMENT, "cpu has one device (index 0)");
  const size_t size = out->struct_size;
  std::memset(out, 0, size);
  out->struct_size = size;
  std::strncpy(out->name, cpu_model_name().c_str(), sizeof out->name - 1);
  std::strncpy(out->vendor, "Backplane", sizeof out->vendor - 1);
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long avail = sysconf(_SC_AVPHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) out->total_memory = uint64_t(pages) * uint64_t(page_size);
  if (avail > 0 && page_size > 0) out->free_memory = uint64_t(avail) * uint64_t(page_size);
  out->compute_units = static_cast<uint32_t>(omp_get_max_threads());
  out->flags = BP_DEVICE_HOST_ACCESSIBLE;
  out->dtypes = BP_DTYPES_ALL;
  return BP_OK;
}

bp_status device_alloc(void*, int32_t, size_t bytes, size_t alignment, void** out) {
  for (const auto& refusal :
       {bp::sdk::check_host_alignment("cpu", alignment), bp::sdk::check_host_memory("cpu", bytes)})
    if (refusal.status != BP_OK) return fail(refusal.status, refusal.message);
  if (alignment < kMinAlignment) alignment = kMinAlignment;
  void* p = nullptr;
  if (posix_memalign(&p, alignment, bytes ? bytes : 1) != 0)
    return fail(BP_ERR_OUT_OF_MEMORY, "cpu: cannot allocate " + std::to_string(bytes) +
                                          " bytes aligned to " + std::to_string(alignment));
  *out = p;
  return BP_OK;
}

bp_status device_free(void*, int32_t, void* ptr) {
  std::free(ptr);
  return BP_OK;
}

bp_status device_copy(void*, int32_t, bp_copy_kind, void* dst, const void* src, size_t bytes,
                      void*) {
  if (bytes) std::memmove(dst, src, bytes);
  return BP_OK;
}

bp_status device_synchronize(void*, int32_t, void*) {
  return BP_OK;
}

// The ISA level and each library's choice (isa_cap.hpp), for reports.
bp_status device_attributes(void*, int32_t index, char* out, size_t capacity) {
  if (index != 0) return fail(BP_ERR_INVALID_ARGUMENT, "cpu has one device (index 0)");
  if (!out || capacity == 0)
    return fail(BP_ERR_INVALID_ARGUMENT, "cpu: device_attributes needs a buffer");
  try {
    bp::sdk::copy_text(isa_attributes(), out, capacity);
    return BP_OK;
  } catch (const std::exception& e) {
    return fail(BP_ERR_INTERNAL, std::string("cpu: device_attributes: ") + e.what());
  }
}

const bp_device_api kDeviceApi = {
    sizeof(bp_device_api), device_count, device_properties, device_alloc,       device_free,
    device_copy,           nullptr,      nullptr,           device_synchronize, device_attributes,
};

bp_status init(const bp_host_api* host, const char* options) {
  g_host = host;
  // Before anything dispatches on the CPU's ISA (the kernel files log Highway's choice).
  bp_status s = apply_isa_cap(host, options);
  if (s != BP_OK) return s;
  uint32_t backend = 0;
  s = host->register_backend(host->host, "cpu", &kDeviceApi, nullptr, &backend);
  if (s != BP_OK) return s;
  for (auto reg : {register_copy_kernels, register_unary_kernels, register_binary_kernels,
                   register_reduction_kernels, register_indexing_kernels, register_linalg_kernels,
                   register_nn_kernels}) {
    s = reg(backend);
    if (s != BP_OK) return s;
  }
  return BP_OK;
}

void shutdown() {
  g_host = nullptr;
}

const bp_plugin_descriptor kDescriptor = {
    sizeof(bp_plugin_descriptor),
    BP_ABI_MAJOR,
    BP_ABI_MINOR,
    "cpu",
    "0.1.0",
    "Backplane",
    init,
    shutdown,
};

}  // namespace
}  // namespace bp::cpu

extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &bp::cpu::kDescriptor;
}
