// Entry point of the buggy fixture plugins: one source built into one library per bug
// (CMakeLists.txt), each with its own plugin and backend name (BP_BUGGY_BACKEND, e.g.
// "buggy_oob") and its bug (BP_BUGGY_BUG, a bp_buggy::Bug enumerator). The conformance
// suite's tests (tests/conformance/test_buggy_plugins.cpp, test_device_checks.cpp) load them
// as devices under test and check that each bug is reported and named.
#include "buggy_device.hpp"
#include "buggy_kernels.hpp"

#include <backplane/sdk/sdk.hpp>

#include <string_view>

#ifndef BP_BUGGY_BACKEND
#error "define BP_BUGGY_BACKEND (the backend name, a string literal)"
#endif
#ifndef BP_BUGGY_BUG
#error "define BP_BUGGY_BUG (a bp_buggy::Bug enumerator)"
#endif

namespace bp_buggy {
namespace {

constexpr Bug kBug = Bug::BP_BUGGY_BUG;

BuggyDevice& device() {
  static BuggyDevice d(BP_BUGGY_BACKEND " (host memory, deliberately buggy)", kBug == Bug::Device);
  return d;
}

void init(bp::sdk::Host& host, std::string_view /*options*/) {
  const uint32_t backend = host.register_backend(BP_BUGGY_BACKEND, device());
  register_kernels(host, backend, kBug);
}

}  // namespace
}  // namespace bp_buggy

BP_SDK_PLUGIN(BP_BUGGY_BACKEND, "0.1.0", "Backplane tests", bp_buggy::init, nullptr)
