// Plugin load time (issue 8: CPU plugin < 5 ms, all plugins < 50 ms): loads each plugin
// file named on the command line, in order, timing bp::load_plugin (dlopen, the ABI
// handshake, init registering the kernels and devices) and prints one JSON object:
//   {"plugins": [{"path": ..., "status": ..., "ms": ...}, ...], "total_ms": ...}
// Meant to run in a fresh process (bench/report.py runs it several times and keeps the
// median), so that each dlopen is a first one. The runtime's own start-up (the operator
// catalog) happens before the clock starts: it is not the plugins' cost.
#include <backplane/backplane.hpp>

#include <chrono>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  (void)bp::backends();  // builds the catalog and the built-in reference backend
  double total_ms = 0;
  std::printf("{\"plugins\": [");
  for (int i = 1; i < argc; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const bp::PluginLoadReport report = bp::load_plugin(argv[i], {.warn = false});
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    total_ms += ms;
    // Paths come from the build tree: no characters that need escaping in JSON.
    std::printf("%s{\"path\": \"%s\", \"status\": \"%s\", \"ms\": %.4f}", i > 1 ? ", " : "",
                argv[i], std::string(bp::to_string(report.status)).c_str(), ms);
  }
  std::printf("], \"total_ms\": %.4f}\n", total_ms);
  return 0;
}
