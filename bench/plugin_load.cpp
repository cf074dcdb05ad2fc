// Plugin load time (issue 8: CPU plugin < 5 ms, all plugins < 50 ms not counting vendor
// runtime initialisation): loads each plugin file named on the command line, in order,
// timing bp::load_plugin (dlopen, the ABI handshake, init registering the kernels and
// devices) and prints one JSON object:
//   {"vendor_init_ms": ..., "plugins": [{"path": ..., "status": ..., "ms": ...}, ...],
//    "total_ms": ...}
// With --vendor-first, the vendor runtimes the GPU plugins use (OpenCL ICD loader, CUDA
// driver, HIP, Level Zero loader) are loaded and initialised before the clock starts, each
// through its own entry point, and their time is vendor_init_ms: what remains is the
// plugins' own cost, the figure the 50 ms target is about. A runtime that is not
// installed is skipped (its plugin then pays only its failed lookup).
// Meant to run in a fresh process (bench/report.py runs it several times and keeps the
// median), so that each dlopen is a first one. The runtime's own start-up (the operator
// catalog) happens before the clock starts: it is not the plugins' cost.
#include <backplane/backplane.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include <dlfcn.h>

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Loads `library` for good (RTLD_GLOBAL: the plugins' own dlopen finds it loaded) and calls
// its initialisation entry point; the result code does not matter (no device is fine).
template <typename Fn, typename... Args>
void init_vendor(const char* library, const char* symbol, Args... args) {
  void* handle = ::dlopen(library, RTLD_NOW | RTLD_GLOBAL);
  if (!handle) return;
  if (auto* fn = reinterpret_cast<Fn*>(::dlsym(handle, symbol))) (void)fn(args...);
}

double init_vendor_runtimes() {
  const auto t0 = std::chrono::steady_clock::now();
  uint32_t platforms = 0;
  init_vendor<int(uint32_t, void*, uint32_t*)>("libOpenCL.so.1", "clGetPlatformIDs", 0u, nullptr,
                                               &platforms);
  init_vendor<int(unsigned)>("libcuda.so.1", "cuInit", 0u);
  int hip_devices = 0;
  init_vendor<int(int*)>("libamdhip64.so.5", "hipGetDeviceCount", &hip_devices);
  init_vendor<int(uint32_t)>("libze_loader.so.1", "zeInit", 0u);
  return ms_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  (void)bp::backends();  // builds the catalog and the built-in reference backend
  int first = 1;
  double vendor_ms = 0;
  if (argc > 1 && std::string_view(argv[1]) == "--vendor-first") {
    vendor_ms = init_vendor_runtimes();
    first = 2;
  }
  double total_ms = 0;
  std::printf("{\"vendor_init_ms\": %.4f, \"plugins\": [", vendor_ms);
  for (int i = first; i < argc; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const bp::PluginLoadReport report = bp::load_plugin(argv[i], {.warn = false});
    const double ms = ms_since(t0);
    total_ms += ms;
    // Paths come from the build tree: no characters that need escaping in JSON.
    std::printf("%s{\"path\": \"%s\", \"status\": \"%s\", \"ms\": %.4f}", i > first ? ", " : "",
                argv[i], std::string(bp::to_string(report.status)).c_str(), ms);
  }
  std::printf("], \"total_ms\": %.4f}\n", total_ms);
  return 0;
}
