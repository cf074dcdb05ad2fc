// A small in-test plugin ("testdev", backend "test_dev") used by the dispatch tests: one
// device of host memory, and kernels for add.Tensor (f32 only), fill_.Scalar and copy_ that count
// their calls. Optional failure modes let the ABI tests exercise every load outcome.
#pragma once

#include <backplane/plugin.h>

#include <atomic>

namespace bp::testing {

struct TestPluginState {
  std::atomic<int> add_calls{0};
  std::atomic<int> fill_calls{0};
};
TestPluginState& test_plugin_state();

// A descriptor for the test plugin. `mode` selects a behaviour of init:
enum class TestPluginMode {
  Normal,
  InitFails,   // registers a backend and a kernel, then returns an error
  InitThrows,  // throws a C++ exception out of init
  UnknownOp,   // registers a kernel for an op that does not exist
  NoDevices,   // its backend reports zero devices with a reason
  // registers add.Tensor again: the same function for f64 (merged), then another
  // function (refused: one kernel per op and backend)
  DuplicateKernel,
};
const bp_plugin_descriptor* test_plugin_descriptor(TestPluginMode mode = TestPluginMode::Normal);

}  // namespace bp::testing
