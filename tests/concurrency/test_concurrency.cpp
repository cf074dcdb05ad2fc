// Calls from many threads while plugins come and go (issue 9): 8 threads run ops on the
// reference backend (the elementwise fast path, the boxed path with broadcasting, a
// reduction) and on the in-test plugin's device, while another thread brings that plugin in
// and takes it out again: registered in process, and loaded from its shared library
// (load_plugin). Each load registers the plugin's backend and kernels, each unregistration
// removes them. Every call must either give the right result (it saw the plugin's kernel) or
// fail with a clean bp::Error (it saw the plugin gone); nothing may crash or tear. CI runs it
// under the tsan preset too (scripts/test-sanitizers), which checks the synchronisation as
// well as the outcomes.
#include "fixture_plugin.hpp"  // tests/dispatch/
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

const bp::Device kRef(bp::device_types::Reference, 0);

// What the caller threads saw.
struct Tally {
  std::atomic<int> wrong{0};          // a result with wrong values: must stay 0
  std::atomic<int> unexpected{0};     // an error that is not "the device or kernel is gone"
  std::atomic<int> device_calls{0};   // test_dev calls that ran
  std::atomic<int> device_errors{0};  // test_dev calls refused because the plugin was away
  std::string first_unexpected;       // written once (guarded by `unexpected` going 0 -> 1)
};

void check(bool ok, Tally& tally) {
  if (!ok) tally.wrong++;
}

// One caller thread: reference ops whose results are known, then a call on test_dev.
void caller(int seed, int calls, Tally& tally) {
  const float s = static_cast<float>(seed);
  const bp::Tensor a = bp::from_vector<float>({s, s + 1, s + 2, s + 3}, {2, 2}, kRef);
  const bp::Tensor row = bp::from_vector<float>({10, 20}, {2}, kRef);
  for (int i = 0; i < calls; ++i) {
    check(bp::to_vector<float>(bp::add(a, a)) ==
              std::vector<float>{2 * s, 2 * s + 2, 2 * s + 4, 2 * s + 6},
          tally);
    check(
        bp::to_vector<float>(bp::add(a, row)) == std::vector<float>{s + 10, s + 21, s + 12, s + 23},
        tally);
    check(bp::to_vector<float>(bp::sum(a)) == std::vector<float>{4 * s + 6}, tally);
    try {
      const bp::Device dev = bp::Device::parse("test_dev:0");
      const bp::Tensor x = bp::from_vector<float>({s, 1}, {2}, dev);
      const bp::Tensor y = bp::add(x, x, 2);
      check(bp::to_vector<float>(bp::to(y, kRef)) == std::vector<float>{3 * s, 3}, tally);
      tally.device_calls++;
    } catch (const bp::Error& e) {
      // The plugin was unregistered before or during the call: its device or its kernel
      // is gone, which the runtime reports as one of these.
      const bool expected =
          e.code() == bp::ErrorCode::Device || e.code() == bp::ErrorCode::NotImplemented;
      if (expected) {
        tally.device_errors++;
      } else if (tally.unexpected++ == 0) {
        tally.first_unexpected = e.what();
      }
    }
  }
}

// The thread that makes the plugin come and go until `done`: `load` brings it in (in
// process, or from its shared library), then it is unregistered again. Counts the cycles.
template <class Load>
std::thread plugin_cycler(Load load, std::atomic<bool>& done, std::atomic<int>& cycles) {
  return std::thread([load, &done, &cycles] {
    while (!done) {
      const bp::PluginLoadReport r = load();
      if (r.status != bp::LoadStatus::Loaded) {
        // Refused: the previous instance still waits for tensors the callers hold.
        std::this_thread::yield();
        continue;
      }
      cycles++;
      std::this_thread::yield();
      bp::unregister_plugin("testdev");
    }
  });
}

// Runs kThreads callers against a plugin that `load` brings in and out, and checks what
// they saw.
template <class Load>
void run_callers_while_cycling(Load load) {
  constexpr int kThreads = 8;
  constexpr int kCalls = 2000;
  std::atomic<bool> done{false};
  std::atomic<int> cycles{0};
  std::thread cycler = plugin_cycler(load, done, cycles);
  Tally tally;
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t)
    callers.emplace_back([t, &tally] { caller(t + 1, kCalls, tally); });
  for (std::thread& c : callers) c.join();
  done = true;
  cycler.join();
  // The cycler unregisters after every load, so the plugin is gone again here.
  // A failed load (refused while the previous instance waits for its last tensor) is
  // retried; a successful one was always shut down before the next could start.

  INFO("first unexpected error: " << tally.first_unexpected);
  CHECK(tally.wrong == 0);
  CHECK(tally.unexpected == 0);
  CHECK(tally.device_calls + tally.device_errors == kThreads * kCalls);
  CHECK(cycles > 0);
  // The in-process plugin counts calls that came after its shutdown (the library's copy
  // answers them with an error, which the callers count as unexpected).
  CHECK(bp::testing::test_plugin_state().calls_after_shutdown == 0);
  MESSAGE("plugin cycles: " << cycles.load()
                            << ", test_dev calls run: " << tally.device_calls.load()
                            << ", refused while away: " << tally.device_errors.load());
}

}  // namespace

TEST_CASE("concurrency: 8 threads call ops while a plugin is registered and unregistered") {
  run_callers_while_cycling([] {
    return bp::register_plugin(bp::testing::test_plugin_descriptor(), "concurrency test");
  });
}

TEST_CASE("concurrency: 8 threads call ops while a plugin library is loaded and unloaded") {
  // The same plugin from its shared library: load_plugin opens it (the library stays
  // mapped after unregister_plugin, so a later load reuses the mapping and runs init again).
  const std::filesystem::path library = bp::test::fixture("testdev");
  // warn=false: the refusals while a previous instance waits are expected here.
  run_callers_while_cycling([library] { return bp::load_plugin(library, {.warn = false}); });
}
