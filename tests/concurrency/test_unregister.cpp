// Unregistering a plugin while it is in use (Note [Deferred shutdown], runtime_plugins.cpp): the
// plugin's shutdown waits for a kernel still running on another thread and for the last
// tensor on its devices, no call reaches the plugin after its shutdown, loading it again
// meanwhile is refused with the reason, and an allocation on its closed allocator fails
// cleanly.
#include "../../dispatch/src/runtime_impl.hpp"
#include "fixture_plugin.hpp"  // tests/dispatch/

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace {

using bp::testing::test_plugin_descriptor;
using bp::testing::test_plugin_state;

bp::PluginLoadReport register_testdev() {
  return bp::register_plugin(test_plugin_descriptor(), "unregister test");
}

// Resets the counters these tests read, and checks the plugin is not loaded.
void fresh_state() {
  auto& state = test_plugin_state();
  state.shutdowns = 0;
  state.calls_after_shutdown = 0;
  state.add_entered = 0;
  state.hold_add = false;
}

}  // namespace

TEST_CASE("unregistering waits for a kernel in flight, and shutdown for the last tensor") {
  fresh_state();
  auto& state = test_plugin_state();
  REQUIRE(register_testdev().status == bp::LoadStatus::Loaded);
  const bp::Device dev = bp::Device::parse("test_dev:0");
  bp::Tensor x = bp::from_vector<float>({1, 2}, {2}, dev);

  state.hold_add = true;
  bp::Tensor y;
  std::thread caller([&] { y = bp::add(x, x); });
  while (state.add_entered == 0) std::this_thread::yield();

  std::atomic<bool> unregistered{false};
  std::thread remover([&] {
    bp::unregister_plugin("testdev");
    unregistered = true;
  });
  // The kernel is held inside: unregistration must wait for it.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(unregistered.load());
  CHECK(state.shutdowns == 0);
  // New calls already see the plugin gone.
  CHECK_THROWS_AS(bp::add(x, x), bp::Error);

  state.hold_add = false;
  caller.join();
  remover.join();
  CHECK(unregistered.load());
  // x and the result y still hold blocks on the device: no shutdown yet, and the name is
  // still taken, with the reason.
  CHECK(state.shutdowns == 0);
  const bp::PluginLoadReport again = register_testdev();
  CHECK(again.status == bp::LoadStatus::Refused);
  CHECK(again.message ==
        "the plugin 'testdev' was unregistered but is not shut down yet: tensors on its "
        "devices are still alive (its shutdown runs when the last one is freed)");
  // The call that was in flight completed with the right values.
  CHECK(y.numel() == 2);
  const int frees_before = state.frees;
  x = bp::Tensor();
  CHECK(state.shutdowns == 0);
  y = bp::Tensor();
  // The last block went back to the plugin's free, then its shutdown ran.
  CHECK(state.frees == frees_before + 2);
  CHECK(state.shutdowns == 1);
  CHECK(state.calls_after_shutdown == 0);
  CHECK(state.bytes_in_use == 0);

  REQUIRE(register_testdev().status == bp::LoadStatus::Loaded);
  bp::unregister_plugin("testdev");
  CHECK(state.shutdowns == 2);  // nothing held: shutdown at once
}

TEST_CASE("an allocation on an unregistered plugin's device fails with the reason") {
  fresh_state();
  REQUIRE(register_testdev().status == bp::LoadStatus::Loaded);
  const bp::Device dev = bp::Device::parse("test_dev:0");
  // A call that looked the allocator up before the unregistration.
  bp::detail::CachingAllocator& allocator = bp::detail::Runtime::get().allocator(dev);
  bp::unregister_plugin("testdev");
  try {
    (void)allocator.allocate(64);
    FAIL("allocate on a closed allocator returned");
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::Device);
    CHECK(std::string(e.what()).find("device test_dev:0 is not available: its backend "
                                     "'test_dev' was unloaded (unregister_plugin) while this "
                                     "call was running") != std::string::npos);
  }
  CHECK(test_plugin_state().shutdowns == 1);
  CHECK(test_plugin_state().calls_after_shutdown == 0);
}
