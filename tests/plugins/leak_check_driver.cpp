// The program the leak-check test (tests/plugins/check_leaks.cmake) runs under valgrind:
// loads the plugin file given as the first argument, allocates and drops a tensor on its
// first device, and unregisters it, so that the plugin's init, alloc, free and shutdown
// all run. Exits 0 when all of that worked; the leak checker decides the test.
#include <backplane/backplane.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) {
    fmt::print(stderr, "usage: {} PLUGIN_FILE\n", argv[0]);
    return 2;
  }
  try {
    const bp::PluginLoadReport report = bp::load_plugin(argv[1]);
    if (report.status != bp::LoadStatus::Loaded || report.backends.empty()) {
      fmt::print(stderr, "leak_check_driver: {} did not load: {}\n", argv[1], report.message);
      return 1;
    }
    const bp::Device device = bp::Device::parse(report.backends[0] + ":0");
    {
      const bp::Tensor t = bp::empty({256}, bp::ScalarType::Float32, device);
      (void)t;
    }
    // Unregistering returns the cached block to the plugin's free, then runs shutdown.
    bp::unregister_plugin(report.plugin);
    fmt::print("leak_check_driver: loaded, used and unregistered {}\n", report.plugin);
    // Flushed now: LeakSanitizer reports at exit and ends the process without flushing
    // stdout, and the test looks for this line.
    std::fflush(stdout);
    return 0;
  } catch (const std::exception& e) {
    fmt::print(stderr, "leak_check_driver: {}\n", e.what());
    return 1;
  }
}
