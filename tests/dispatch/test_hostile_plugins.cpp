// Plugins that misuse the host (issue 9): a C++ plugin in the host's process whose init calls
// the public runtime API (reads work, loading or unloading plugins is refused and fails the
// load, and nothing deadlocks: init runs with the runtime mutex held), a plugin that keeps
// the host pointer and registers after its init returned or from another thread (refused,
// the tables unchanged), and the bad host-API calls of tests/plugins/bad_registration.c
// (each refused with a message that says what is wrong, the load rolled back).
// Note [Calls into the runtime from init] in dispatch/src/runtime_impl.hpp has the rule.
#include "../../dispatch/src/runtime_impl.hpp"
#include "fixture_plugin.hpp"
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace bp::test {
namespace {

bool has_backend(const std::string& name) {
  for (const BackendInfo& b : backends())
    if (b.name == name) return true;
  return false;
}

bool has_kernel_from(std::string_view op, const std::string& plugin) {
  for (const OpTableEntry& e : op_table(op))
    if (e.kind == EntryKind::Kernel && e.plugin == plugin) return true;
  return false;
}

// ---- a C++ plugin whose init runs a test-chosen function ------------------------------
// Its device is plugin_test_support.hpp's kMallocDeviceApi.
const bp_device_api& kDeviceApi = kMallocDeviceApi;

// What the plugin's init does after registering its backend "hostile_dev"; what it saw.
std::function<void()> g_in_init;
const bp_host_api* g_host = nullptr;  // stashed, as a misbehaving plugin would
uint32_t g_backend = 0;
int g_shutdowns = 0;

// The kernel of mul.Tensor: registers another kernel through the stashed host pointer
// (refused: it runs after init) and records what the host answered.
bp_status g_kernel_status = BP_OK;
std::string g_kernel_error;
bp_status noop_kernel(const bp_call*) {
  return BP_OK;
}
bp_status registering_kernel(const bp_call*) {
  g_kernel_status = g_host->register_kernel(g_host->host, g_backend, "sub.Tensor",
                                            BP_DTYPE_BIT(BP_DTYPE_F32), noop_kernel, nullptr);
  g_kernel_error = std::exchange(detail::thread_plugin_error(), {}).message;
  return BP_OK;
}

bp_status hostile_init(const bp_host_api* host, const char*) {
  g_host = host;
  bp_status s = host->register_backend(host->host, "hostile_dev", &kDeviceApi, nullptr, &g_backend);
  if (s != BP_OK) return s;
  s = host->register_kernel(host->host, g_backend, "mul.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32),
                            registering_kernel, nullptr);
  if (s != BP_OK) return s;
  // An exception from here escapes init, as it would from a careless plugin.
  if (g_in_init) g_in_init();
  return BP_OK;
}
void hostile_shutdown() {
  ++g_shutdowns;
}

const bp_plugin_descriptor kHostile = {sizeof(bp_plugin_descriptor),
                                       BP_ABI_MAJOR,
                                       BP_ABI_MINOR,
                                       "hostile",
                                       "0.0.1",
                                       "Backplane tests",
                                       hostile_init,
                                       hostile_shutdown};

// Registers the plugin with `in_init` run by its init.
PluginLoadReport load_hostile(std::function<void()> in_init) {
  g_in_init = std::move(in_init);
  g_shutdowns = 0;
  PluginLoadReport r = register_plugin(&kHostile, "test");
  g_in_init = nullptr;
  return r;
}

std::string reentry_message(std::string_view call) {
  return fmt::format(
      "{} called from the init of plugin 'hostile': a plugin's init must not load or unload "
      "plugins (the runtime is in the middle of loading 'hostile'); call it after the load "
      "returns",
      call);
}

// The failed load left nothing of the plugin: no backend, no kernel, no shutdown (its
// init did not succeed), and the runtime still loads it cleanly afterwards.
void check_rolled_back() {
  CHECK_FALSE(has_backend("hostile_dev"));
  CHECK_FALSE(has_kernel_from("mul.Tensor", "hostile"));
  const PluginLoadReport again = load_hostile(nullptr);
  CHECK(again.status == LoadStatus::Loaded);
  unregister_plugin("hostile");
}

}  // namespace

TEST_CASE("init may read the runtime and dispatch ops: no deadlock on the runtime mutex") {
  std::vector<BackendInfo> seen_backends;
  std::vector<OpTableEntry> seen_table;
  size_t seen_reports = 0;
  std::vector<float> sum;
  std::string dump;
  const PluginLoadReport r = load_hostile([&] {
    seen_backends = backends();
    seen_table = op_table("mul.Tensor");
    dump = dump_op_table("mul.Tensor");
    seen_reports = plugin_reports().size();
    // An op on the reference device, and one on the plugin's own (its kernel is there).
    const Tensor a = from_vector<float>({1, 2}, {2}, Device{device_types::Reference, 0});
    sum = to_vector<float>(add(a, a));
    const Tensor h = empty({2}, ScalarType::Float32, Device::parse("hostile_dev:0"));
    (void)mul(h, h);
  });
  REQUIRE_MESSAGE(r.status == LoadStatus::Loaded, r.message);
  CHECK(r.backends == std::vector<std::string>{"hostile_dev"});
  // What init saw includes the plugin's own backend and kernel, registered just before.
  std::vector<std::string> names;
  for (const BackendInfo& b : seen_backends) names.push_back(b.name);
  CHECK(std::find(names.begin(), names.end(), "reference") != names.end());
  CHECK(std::find(names.begin(), names.end(), "hostile_dev") != names.end());
  bool kernel_seen = false;
  for (const OpTableEntry& e : seen_table)
    kernel_seen |= e.backend == "hostile_dev" && e.plugin == "hostile";
  CHECK(kernel_seen);
  CHECK(dump.find("hostile_dev") != std::string::npos);
  CHECK(seen_reports == plugin_reports().size() - 1);  // its own report came after
  CHECK(sum == std::vector<float>{2, 4});
  unregister_plugin("hostile");
  CHECK(g_shutdowns == 1);
}

TEST_CASE("loading or unloading a plugin from init is a bp::Error and the load fails with it") {
  struct Case {
    std::string call;
    std::function<void()> body;
  };
  const std::vector<Case> cases = {
      {"load_plugin", [] { (void)load_plugin(fixture("no_devices"), {.warn = false}); }},
      {"register_plugin",
       [] { (void)register_plugin(bp::testing::test_plugin_descriptor(), "test"); }},
      {"unregister_plugin", [] { unregister_plugin("reference"); }},
      {"load_plugin",
       [] {
         DiscoveryOptions options;
         options.plugins = {fixture("no_devices")};
         options.use_environment = false;
         options.use_install_dir = false;
         options.warn = false;
         (void)discover_plugins(options);
       }},
  };
  for (const Case& c : cases) {
    INFO(c.call);
    const size_t reports_before = plugin_reports().size();
    // The exception escapes init: the load fails with the runtime's message.
    std::string thrown;
    const PluginLoadReport r = load_hostile([&] {
      thrown = error_of(c.body, ErrorCode::InvalidArgument);
      c.body();
    });
    CHECK(thrown == reentry_message(c.call));
    CHECK(r.status == LoadStatus::Failed);
    CHECK(r.message == reentry_message(c.call));
    CHECK(r.backends.empty());
    CHECK(g_shutdowns == 0);
    check_rolled_back();
    // The nested call did nothing: no report of its own, the reference still there, and
    // neither no_devices nor testdev loaded.
    CHECK(plugin_reports().size() == reports_before + 2);  // the failed load, check_rolled_back's
    CHECK(has_backend("reference"));
    CHECK_FALSE(has_backend("no_devices_dev"));
    CHECK_FALSE(has_backend("test_dev"));
  }
  // A plugin that catches the error and returns OK still fails: the call was a bug.
  const PluginLoadReport caught =
      load_hostile([] { (void)error_of([] { unregister_plugin("reference"); }); });
  CHECK(caught.status == LoadStatus::Failed);
  CHECK(caught.message == reentry_message("unregister_plugin"));
  CHECK(g_shutdowns == 1);  // its init succeeded, so its shutdown ran
  check_rolled_back();
  const Tensor a = from_vector<float>({3}, {1}, Device{device_types::Reference, 0});
  CHECK(to_vector<float>(add(a, a)) == std::vector<float>{6});
}

TEST_CASE(
    "registering after init returned, or from another thread, is refused and changes "
    "nothing") {
  const PluginLoadReport r = load_hostile(nullptr);
  REQUIRE(r.status == LoadStatus::Loaded);
  const std::string outside_kernel =
      "register_kernel(sub.Tensor) by plugin 'hostile' outside its init: backends and kernels "
      "may only be registered from init, on the thread that runs it (after init returns, or "
      "from another thread, the call is refused and changes nothing)";
  auto register_sub = [] {
    const bp_status s = g_host->register_kernel(g_host->host, g_backend, "sub.Tensor",
                                                BP_DTYPE_BIT(BP_DTYPE_F32), noop_kernel, nullptr);
    return std::pair{s, std::exchange(detail::thread_plugin_error(), {}).message};
  };
  // After init, on the thread that ran it.
  const std::pair<bp_status, std::string> after = register_sub();
  CHECK(after.first == BP_ERR_INVALID_ARGUMENT);
  CHECK(after.second == outside_kernel);
  // From another thread.
  std::pair<bp_status, std::string> other;
  std::thread([&] { other = register_sub(); }).join();
  CHECK(other.first == BP_ERR_INVALID_ARGUMENT);
  CHECK(other.second == outside_kernel);
  // A second backend, from the thread that ran init.
  uint32_t id = 0;
  CHECK(g_host->register_backend(g_host->host, "hostile_late", &kDeviceApi, nullptr, &id) ==
        BP_ERR_INVALID_ARGUMENT);
  CHECK(std::exchange(detail::thread_plugin_error(), {}).message ==
        "register_backend(hostile_late) by plugin 'hostile' outside its init: backends and "
        "kernels may only be registered from init, on the thread that runs it (after init "
        "returns, or from another thread, the call is refused and changes nothing)");
  // From inside one of its kernels, while a call is dispatched to it.
  const Tensor h = empty({2}, ScalarType::Float32, Device::parse("hostile_dev:0"));
  (void)mul(h, h);
  CHECK(g_kernel_status == BP_ERR_INVALID_ARGUMENT);
  CHECK(g_kernel_error == outside_kernel);
  // The tables are as init left them.
  CHECK_FALSE(has_kernel_from("sub.Tensor", "hostile"));
  CHECK(has_kernel_from("mul.Tensor", "hostile"));
  CHECK_FALSE(has_backend("hostile_late"));
  unregister_plugin("hostile");
  // After unregistration the stale pointer is refused the same way.
  CHECK(register_sub() ==
        std::pair<bp_status, std::string>{BP_ERR_INVALID_ARGUMENT, outside_kernel});
}

TEST_CASE("each bad host-API call from init is refused with what is wrong, and rolled back") {
  struct Expected {
    std::string fixture;
    std::string message;
  };
  const std::vector<Expected> expected = {
      {"foreign_backend",
       "init failed with status 1 (invalid argument): register_kernel(add.Tensor): backend id 0 "
       "is backend 'reference' of plugin 'reference', not a backend of this plugin"},
      {"unknown_backend",
       "init failed with status 1 (invalid argument): register_kernel(add.Tensor): backend id 63 "
       "is not a registered backend; pass the id register_backend returned"},
      {"backend_twice",
       "init failed with status 1 (invalid argument): register_backend('backend_twice_dev'): "
       "this plugin already registered a backend named 'backend_twice_dev'"},
      {"null_kernel",
       "init failed with status 1 (invalid argument): register_kernel(add.Tensor): the kernel "
       "function is NULL"},
      {"empty_mask",
       "init failed with status 1 (invalid argument): register_kernel(add.Tensor): the dtype "
       "mask is empty"},
      {"unknown_dtype_bits",
       "init failed with status 1 (invalid argument): register_kernel(add.Tensor): dtype mask "
       "0x500 has bits beyond the 10 dtypes of this runtime (BP_DTYPES_ALL is 0x3ff)"},
  };
  static_assert(device_types::Reference == 0, "foreign_backend registers for slot 0");
  static_assert(BP_DTYPE_COUNT == 10 && BP_DTYPE_F32 == 8, "update the expected dtype masks");
  for (const Expected& e : expected) {
    INFO(e.fixture);
    const PluginLoadReport r = load_plugin(fixture(e.fixture), {.warn = false});
    CHECK(r.status == LoadStatus::Failed);  // the plugin's own mistake: failed, not refused
    CHECK(r.plugin == e.fixture);
    CHECK(r.message == e.message);
    CHECK(r.backends.empty());
    // Its backend and the good kernel it registered first are gone; the reference backend
    // did not get its kernel.
    CHECK_FALSE(has_backend(e.fixture + "_dev"));
    CHECK_FALSE(has_kernel_from("mul.Tensor", e.fixture));
    CHECK_FALSE(has_kernel_from("add.Tensor", e.fixture));
  }
  const Tensor a = from_vector<float>({1, 2}, {2}, Device{device_types::Reference, 0});
  CHECK(to_vector<float>(add(a, a)) == std::vector<float>{2, 4});
}

}  // namespace bp::test
