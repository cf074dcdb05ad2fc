// A small in-test plugin ("testdev", backend "test_dev") used by the dispatch tests: one
// device of host memory, and kernels for add.Tensor (f32 only), fill_.Scalar and copy_ that count
// their calls. Its device counts allocs, frees and synchronizes, and can be given a memory
// budget (out of memory beyond it) for the caching allocator's tests. Optional failure modes
// let the ABI tests exercise every load outcome.
#pragma once

#include <backplane/plugin.h>

#include <atomic>
#include <string>

namespace bp::testing {

struct TestPluginState {
  std::atomic<int> add_calls{0};
  std::atomic<int> fill_calls{0};
  // The device's memory: calls of alloc (successful ones), free and synchronize, the bytes
  // allocated now, and a budget (0: none) beyond which alloc returns BP_ERR_OUT_OF_MEMORY.
  // With a budget, device_properties reports it as total_memory and what is left as
  // free_memory; without, 1 MiB total and 0 free (unknown).
  std::atomic<int> allocs{0};
  std::atomic<int> frees{0};
  std::atomic<int> synchronizes{0};
  std::atomic<size_t> bytes_in_use{0};
  std::atomic<size_t> budget{0};
  // What the last add.Tensor call received, as text (describe_call in fixture_plugin.cpp:
  // every argument's tag and value, every tensor's dtype, shape, strides, offset and device,
  // and the data address of each input), so a test can compare two call paths. Written by
  // the kernel under a lock; read it only while no kernel runs.
  std::string last_add_call;
  // When set, add.Tensor reports an error through the host and fails.
  std::atomic<bool> fail_add{false};
  // While set, add.Tensor waits after counting itself in add_entered (a call held in flight).
  std::atomic<bool> hold_add{false};
  std::atomic<int> add_entered{0};
  // shutdown calls, and calls into the plugin outside init..shutdown (the ABI forbids them:
  // must stay 0).
  std::atomic<int> shutdowns{0};
  std::atomic<int> calls_after_shutdown{0};
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
  // ABI 1.2's device_attributes: a device API of ABI 1.1's size (no attributes slot), or
  // one whose attributes call fails with a message
  DeviceApiV1_1,
  AttributesFail,
};
const bp_plugin_descriptor* test_plugin_descriptor(TestPluginMode mode = TestPluginMode::Normal);

}  // namespace bp::testing
