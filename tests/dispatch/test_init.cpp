// Runtime start-up from the config (dispatch/src/init.cpp, plugin_discovery.cpp): the
// pre-load filter (a denied or excluded plugin is reported `skipped` and its library is
// never opened), a plugin denied by its descriptor name never runs init, [backends.<name>]
// options reach init, apply_config sets the default device, fallback settings, and
// bp::init() itself with BACKPLANE_CONFIG.
#include "plugin_test_support.hpp"

#include <backplane/dispatch/config.hpp>
#include <backplane/dispatch/fallback.hpp>
#include <backplane/dispatch/init.hpp>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace bp::test {
namespace {

// Whether the dynamic loader has mapped `file` into this process (/proc/self/maps lists
// every mapped file by its path): the proof that a plugin was, or was never, opened.
bool is_mapped(const fs::path& file) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find(fs::weakly_canonical(file).string()) != std::string::npos;
}

DiscoveryOptions with_config(const Config& config) {
  DiscoveryOptions o;
  o.use_install_dir = false;
  o.warn = false;
  o.config = &config;
  return o;
}

bool has_backend(std::string_view name) {
  for (const BackendInfo& b : backends())
    if (b.name == name) return true;
  return false;
}

// Undoes what a test applied: the defaults of every setting, and testdev unloaded.
struct RestoreRuntime {
  ~RestoreRuntime() {
    apply_config(Config{});
    if (has_backend("test_dev")) unregister_plugin("testdev");
  }
};

}  // namespace

TEST_CASE("a plugin denied by plugins.deny is skipped and its library never opened") {
  RestoreRuntime restore;
  ScratchDir d("init_deny");
  const fs::path denied = d.add_plugin("testdev", "testdev");
  // A file that would fail if it were opened: skipped, it is not even read.
  const fs::path junk = d.dir / "libbackplane_plugin_junk.so";
  std::ofstream(junk) << "not a library";
  const Config config =
      Config::parse(fmt::format("[plugins]\nsearch_path = [\"{}\"]\ndeny = [\"testdev\", "
                                "\"libbackplane_plugin_junk.so\"]\n",
                                d.dir.string()),
                    "deny.toml");

  const std::vector<PluginLoadReport> reports = discover_plugins(with_config(config));
  REQUIRE(reports.size() == 2);
  for (const PluginLoadReport& r : reports) {
    CAPTURE(r.path);
    CHECK(r.status == LoadStatus::Skipped);
    CHECK(r.message == "denied by plugins.deny (deny.toml:3)");
    CHECK(r.version.empty());  // the descriptor was never read
  }
  CHECK(reports[0].plugin == "junk");
  CHECK(reports[1].plugin == "testdev");
  CHECK(reports[1].path == fs::absolute(denied).string());
  CHECK_FALSE(is_mapped(denied));
  CHECK_FALSE(has_backend("test_dev"));
  // Skipped candidates are part of the runtime's record, like every other outcome.
  const std::vector<PluginLoadReport> all = plugin_reports();
  CHECK(std::any_of(all.begin(), all.end(), [&](const PluginLoadReport& r) {
    return r.status == LoadStatus::Skipped && r.path == fs::absolute(denied).string();
  }));
}

TEST_CASE("a device selector that leaves a backend out skips its plugin before opening it") {
  RestoreRuntime restore;
  ScratchDir d("init_priority");
  // Named after a backend Backplane ships: the file name says which backend it holds, so a
  // selector can rule it out before it is opened.
  const fs::path excluded = d.add_plugin("testdev", "opencl");
  for (const std::string selector : {"reference", "!opencl", "cuda:0,reference:*"}) {
    CAPTURE(selector);
    Config config = Config::parse(
        fmt::format("[plugins]\nsearch_path = [\"{}\"]\n[devices]\npriority = \"{}\"\n",
                    d.dir.string(), selector),
        "priority.toml");
    const std::vector<PluginLoadReport> reports = discover_plugins(with_config(config));
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].status == LoadStatus::Skipped);
    CHECK(reports[0].plugin == "opencl");
    CHECK(reports[0].message ==
          fmt::format("backend 'opencl' excluded by devices.priority '{}' (priority.toml:4)",
                      DeviceSelector::parse(selector).str()));
    CHECK_FALSE(is_mapped(excluded));
  }
  // The same selector from the environment names the variable.
  Config config =
      Config::parse(fmt::format("[plugins]\nsearch_path = [\"{}\"]\n", d.dir.string()), "env.toml");
  ::setenv("BACKPLANE_DEVICE", "reference:0", 1);
  apply_environment(config);
  ::unsetenv("BACKPLANE_DEVICE");
  std::vector<PluginLoadReport> reports = discover_plugins(with_config(config));
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].message ==
        "backend 'opencl' excluded by devices.priority 'reference:0' (BACKPLANE_DEVICE)");
  CHECK_FALSE(is_mapped(excluded));

  // An out-of-tree plugin's file may register a backend of another name, so a list that
  // does not name it still opens it (its backends are then not selected)...
  ScratchDir other("init_out_of_tree");
  const fs::path out_of_tree = other.add_plugin("testdev", "acme");
  config = Config::parse(fmt::format("[plugins]\nsearch_path = [\"{}\"]\n[devices]\n"
                                     "priority = \"reference\"\n",
                                     other.dir.string()),
                         "list.toml");
  reports = discover_plugins(with_config(config));
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == LoadStatus::Loaded);
  CHECK(is_mapped(out_of_tree));
  unregister_plugin("testdev");
  // ... and a negation of its file's name skips it.
  config = Config::parse(fmt::format("[plugins]\nsearch_path = [\"{}\"]\n[devices]\n"
                                     "priority = \"!acme\"\n",
                                     other.dir.string()),
                         "negation.toml");
  reports = discover_plugins(with_config(config));
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == LoadStatus::Skipped);
  CHECK(reports[0].message ==
        "backend 'acme' excluded by devices.priority '!acme' (negation.toml:4)");
}

TEST_CASE("a plugin denied by its descriptor name is opened but its init never runs") {
  RestoreRuntime restore;
  // The fixture's file name (libbp_fixture_testdev.so) does not say which plugin it is.
  const Config config = Config::parse("[plugins]\ndeny = [\"testdev\"]\n", "descriptor.toml");
  DiscoveryOptions o = with_config(config);
  o.plugins = {fixture("testdev")};
  const std::vector<PluginLoadReport> reports = discover_plugins(o);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == LoadStatus::Skipped);
  CHECK(reports[0].plugin == "testdev");
  CHECK(reports[0].version == "1.0");
  CHECK(reports[0].message ==
        "denied by plugins.deny (descriptor.toml:2); its library was opened because the file "
        "name does not name the plugin");
  CHECK_FALSE(has_backend("test_dev"));
}

TEST_CASE("[backends.<plugin>] options are the text the plugin's init receives") {
  RestoreRuntime restore;
  const Config config =
      Config::parse("[backends.testdev]\noptions = \"lanes = 4\"\n", "options.toml");
  DiscoveryOptions o = with_config(config);
  o.plugins = {fixture("testdev")};
  const std::vector<PluginLoadReport> reports = discover_plugins(o);
  REQUIRE(reports.size() == 1);
  REQUIRE_MESSAGE(reports[0].status == LoadStatus::Loaded, reports[0].message);
  // The fixture names its device after the options it was given.
  CHECK(device_info(Device::parse("test_dev:0")).name == "test device (options: lanes = 4)");
  unregister_plugin("testdev");

  // Without options the plugin gets "" (never NULL).
  const Config none = Config::parse("", "none.toml");
  DiscoveryOptions plain = with_config(none);
  plain.plugins = {fixture("testdev")};
  REQUIRE(discover_plugins(plain).at(0).status == LoadStatus::Loaded);
  CHECK(device_info(Device::parse("test_dev:0")).name == "test device");
}

TEST_CASE("apply_config: the default device is the first available in the selector's order") {
  RestoreRuntime restore;
  REQUIRE(load_plugin(fixture("testdev")).status == LoadStatus::Loaded);
  auto default_for = [](const std::string& toml) {
    apply_config(Config::parse(toml, "default.toml"));
    return default_device().str();
  };
  CHECK(default_for("[devices]\npriority = \"test_dev,reference\"\n") == "test_dev:0");
  CHECK(default_for("[devices]\npriority = \"reference,test_dev\"\n") == "reference:0");
  // cuda is not loaded here: the next one in the list is taken.
  CHECK(default_for("[devices]\npriority = \"cuda:0,test_dev:0\"\n") == "test_dev:0");
  // devices.default wins over the priority.
  CHECK(default_for("[devices]\npriority = \"test_dev,reference\"\ndefault = \"reference:0\"\n") ==
        "reference:0");
  // Without a selector: out-of-tree backends before the reference oracle.
  CHECK(default_for("") == "test_dev:0");
  // Factories without a device follow it.
  apply_config(Config::parse("[devices]\ndefault = \"reference\"\n", "default.toml"));
  CHECK(zeros({2}).device().str() == "reference:0");

  apply_config(Config::parse("[devices]\npriority = \"test_dev:3\"\n", "default.toml"));
  const std::string message = error_of([] { default_device(); }, ErrorCode::Device);
  CHECK(message.find("test_dev:3") != std::string::npos);
  CHECK(message.find("test_dev (1 device)") != std::string::npos);

  // The answer is cached per selector and set of backends: a backend that goes away
  // changes it.
  apply_config(Config::parse("[devices]\npriority = \"test_dev,reference\"\n", "default.toml"));
  CHECK(default_device().str() == "test_dev:0");
  CHECK(default_device().str() == "test_dev:0");  // from the cache
  unregister_plugin("testdev");
  CHECK(default_device().str() == "reference:0");
}

TEST_CASE("apply_config sets the fallback policy and the forced ops, and resets them") {
  RestoreRuntime restore;
  apply_config(Config::parse("[fallback]\npolicy = \"cpu\"\n[fallback.ops]\ntest_dev = [\"add\"]\n",
                             "fallback.toml"));
  CHECK(fallback_policy() == FallbackPolicy::Cpu);
  CHECK(is_fallback_forced("test_dev", "add.Tensor"));
  CHECK(is_fallback_forced("test_dev", "add.Scalar"));
  CHECK_FALSE(is_fallback_forced("test_dev", "mul.Tensor"));
  apply_config(Config{});
  CHECK(fallback_policy() == FallbackPolicy::Error);
  CHECK_FALSE(is_fallback_forced("test_dev", "add.Tensor"));
}

TEST_CASE("apply_config starts the trace BACKPLANE_TRACE names") {
  RestoreRuntime restore;
  ScratchDir d("init_trace");
  Config config;
  ::setenv("BACKPLANE_TRACE", (d.dir / "trace.json").c_str(), 1);
  apply_environment(config);
  ::unsetenv("BACKPLANE_TRACE");
  CHECK(config.trace_file.origin == "BACKPLANE_TRACE");
  apply_config(config);
  REQUIRE(tracing());
  (void)add(ones({2}), ones({2}));
  CHECK(stop_trace() >= 1);
  std::ifstream in(d.dir / "trace.json");
  const nlohmann::json trace = nlohmann::json::parse(in);
  bool found = false;
  for (const nlohmann::json& e : trace.at("traceEvents")) found |= e.at("name") == "add.Tensor";
  CHECK(found);
}

TEST_CASE("names in the config are checked against what loaded, shipped and skipped") {
  RestoreRuntime restore;
  const std::vector<PluginLoadReport> none;
  // Backends Backplane ships may be named on a machine that lacks them.
  CHECK_NOTHROW(validate_config_names(
      Config::parse("[devices]\npriority = \"cuda,rocm,level_zero,opencl,cpu\"\n", "ok.toml"),
      none));
  CHECK(error_of(
            [&] {
              validate_config_names(
                  Config::parse("[devices]\npriority = \"cdua,cpu\"\n", "typo.toml"), none);
            },
            ErrorCode::InvalidArgument)
            .starts_with("typo.toml:2: devices.priority 'cdua:*,cpu:*': unknown backend 'cdua' "));
  CHECK(error_of([&] {
          validate_config_names(Config::parse("[backends.acme]\noptions = \"x\"\n", "options.toml"),
                                none);
        }).starts_with("options.toml:2: backends.acme: unknown backend 'acme'"));
  // A plugin that was skipped still has a known name.
  PluginLoadReport skipped;
  skipped.plugin = "acme";
  skipped.path = "/opt/acme/libbackplane_plugin_acme.so";
  skipped.status = LoadStatus::Skipped;
  CHECK_NOTHROW(validate_config_names(
      Config::parse("[backends.acme]\noptions = \"x\"\n[plugins]\ndeny = [\"acme\"]\n", "a.toml"),
      {skipped}));
}

// bp::init() runs once per process: this is the only test of this file that calls it, and
// the last one.
TEST_CASE("bp::init reads BACKPLANE_CONFIG, skips what it rules out and runs once") {
  RestoreRuntime restore;
  ScratchDir d("init_once");
  d.add_plugin("testdev", "test_dev");
  d.add_plugin("testdev", "other");
  const fs::path file = d.dir / "backplane.toml";
  std::ofstream(file) << "[plugins]\nsearch_path = [\".\"]\ndeny = [\"other\"]\n"
                         "[devices]\npriority = \"test_dev,reference\"\n"
                         "[backends.testdev]\noptions = \"from init\"\n";
  ::setenv("BACKPLANE_CONFIG", file.c_str(), 1);
  InitOptions options;
  options.use_install_dir = false;
  options.warn = false;
  const InitResult first = init(options);
  ::unsetenv("BACKPLANE_CONFIG");
  CHECK(initialized());
  CHECK(first.config.source == file);
  REQUIRE(first.plugins.size() == 2);
  CHECK(first.plugins[0].plugin == "other");
  CHECK(first.plugins[0].status == LoadStatus::Skipped);
  CHECK(first.plugins[1].plugin == "testdev");
  CHECK(first.plugins[1].status == LoadStatus::Loaded);
  CHECK(default_device().str() == "test_dev:0");
  CHECK(device_info(default_device()).name == "test device (options: from init)");
  // A second call loads nothing and returns the first result.
  const InitResult second = init();
  CHECK(second.plugins.size() == 2);
  CHECK(second.config.source == file);
}

}  // namespace bp::test
