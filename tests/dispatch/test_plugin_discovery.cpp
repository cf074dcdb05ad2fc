// Plugin discovery: search paths and BACKPLANE_PLUGIN_PATH are scanned for
// libbackplane_plugin_*.so in name order, each file is loaded once, a broken plugin is
// reported (one warning line) without stopping the others, and require_device turns "no
// usable backend" into an error that lists every candidate. Also runtime_info().
#include "plugin_test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>

namespace bp::test {
namespace {

// A fresh directory holding a working plugin, a broken one and an unrelated library.
struct PluginDir : ScratchDir {
  PluginDir() : ScratchDir("discovery") {
    add_plugin("testdev", "testdev");
    add_plugin("not_a_library.so", "broken");
    fs::copy_file(fixture("no_entry"), dir / "libnot_a_plugin_name.so");
  }
};

DiscoveryOptions only(std::vector<fs::path> search_paths) {
  DiscoveryOptions o;
  o.search_paths = std::move(search_paths);
  o.use_environment = false;
  o.use_install_dir = false;
  o.warn = false;
  return o;
}

std::string discovery_error(const DiscoveryOptions& o) {
  try {
    discover_plugins(o);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a search path yields its plugin files in name order, broken ones reported") {
  PluginDir d;
  auto reports = discover_plugins(only({d.dir}));
  REQUIRE(reports.size() == 2);  // libnot_a_plugin_name.so is not a candidate
  CHECK(reports[0].status == LoadStatus::Failed);
  CHECK(reports[0].plugin.find("libbackplane_plugin_broken.so") != std::string::npos);
  CHECK(reports[1].status == LoadStatus::Loaded);
  CHECK(reports[1].plugin == "testdev");
  unregister_plugin("testdev");
}

TEST_CASE("discovery warns once per refused or failed plugin and still loads the others") {
  ScratchDir d("discovery_warn");
  d.add_plugin("abi_minor", "a_abi_minor");
  d.add_plugin("not_a_library.so", "b_text");
  d.add_plugin("no_devices", "c_no_devices");
  d.add_plugin("testdev", "d_testdev");
  DiscoveryOptions o = only({d.dir});
  o.warn = true;
  std::vector<PluginLoadReport> reports;
  const std::string err = capture_stderr([&] { reports = discover_plugins(o); });
  REQUIRE(reports.size() == 4);
  CHECK(reports[3].status == LoadStatus::Loaded);
  const std::vector<std::string> lines = lines_of(err);
  REQUIRE(lines.size() == 2);  // no-devices and loaded plugins are not warned about
  CHECK(lines[0] ==
        fmt::format("backplane: warning: plugin abi_minor ({}) was refused: built against ABI "
                    "1.4, this runtime provides 1.3: a plugin newer than the runtime is refused "
                    "(update Backplane)",
                    (d.dir / "libbackplane_plugin_a_abi_minor.so").string()));
  CHECK(lines[1].starts_with(
      fmt::format("backplane: warning: plugin {} failed to load: not a loadable shared library: ",
                  (d.dir / "libbackplane_plugin_b_text.so").string())));
  unregister_plugin("no_devices");
  unregister_plugin("testdev");
}

TEST_CASE("BACKPLANE_PLUGIN_PATH lists directories separated by colons") {
  PluginDir d;
  const std::string value = "/nonexistent/dir::" + d.dir.string();
  ::setenv("BACKPLANE_PLUGIN_PATH", value.c_str(), 1);
  DiscoveryOptions o = only({});
  o.use_environment = true;
  auto reports = discover_plugins(o);
  ::unsetenv("BACKPLANE_PLUGIN_PATH");
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].status == LoadStatus::Loaded);
  unregister_plugin("testdev");
}

TEST_CASE("a file named explicitly and found again in a search path is loaded once") {
  PluginDir d;
  DiscoveryOptions o = only({d.dir});
  o.plugins = {d.dir / "libbackplane_plugin_testdev.so"};
  auto reports = discover_plugins(o);
  int testdev = 0;
  for (const auto& r : reports) testdev += r.plugin == "testdev";
  CHECK(testdev == 1);
  CHECK(reports.size() == 2);
  unregister_plugin("testdev");
}

TEST_CASE("a missing explicit file is reported; a missing directory is skipped") {
  auto reports = discover_plugins(only({"/nonexistent/plugins"}));
  CHECK(reports.empty());
  DiscoveryOptions o = only({});
  o.plugins = {"/nonexistent/libbackplane_plugin_x.so"};
  reports = discover_plugins(o);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == LoadStatus::Failed);
  CHECK(reports[0].message == "no such file");
}

TEST_CASE("require_device: no usable plugin is an error listing every candidate") {
  OnlyReferenceUsable only_reference;
  ScratchDir d("require_device");
  const fs::path nodev = d.add_plugin("no_devices", "a_no_devices");
  const fs::path text = d.add_plugin("not_a_library.so", "b_text");
  DiscoveryOptions o = only({d.dir});
  o.require_device = true;
  const std::string message = discovery_error(o);
  const std::string head =
      "no usable backend: no loaded plugin other than the built-in reference has a device; "
      "tried 2 plugin(s):\n";
  CHECK(message.starts_with(head));
  const std::vector<std::string> lines = lines_of(message.substr(head.size()));
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == fmt::format("  no_devices ({}): no-devices: no_devices: no accelerator is "
                                "attached",
                                nodev.string()));
  CHECK(lines[1].starts_with(
      fmt::format("  {}: failed: not a loadable shared library: ", text.string())));
  // The candidates were loaded all the same: the no-devices backend is there to say why.
  bool listed = false;
  for (const BackendInfo& b : backends()) listed = listed || b.name == "no_devices_dev";
  CHECK(listed);
  unregister_plugin("no_devices");
}

TEST_CASE("require_device: finding no plugin at all names the places searched") {
  OnlyReferenceUsable only_reference;
  DiscoveryOptions o = only({"/nonexistent/a", "/nonexistent/b"});
  o.require_device = true;
  CHECK(discovery_error(o) ==
        "no usable backend: no loaded plugin other than the built-in reference has a device; "
        "no plugin was found (searched: /nonexistent/a, /nonexistent/b); name plugin files or "
        "directories, or set BACKPLANE_PLUGIN_PATH");
}

TEST_CASE("require_device: one plugin with a device is enough") {
  OnlyReferenceUsable only_reference;
  ScratchDir d("require_device_ok");
  d.add_plugin("no_devices", "a_no_devices");
  d.add_plugin("testdev", "b_testdev");
  DiscoveryOptions o = only({d.dir});
  o.require_device = true;
  std::vector<PluginLoadReport> reports;
  CHECK_NOTHROW(reports = discover_plugins(o));
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].status == LoadStatus::Loaded);
  CHECK_NOTHROW(require_usable_backend({}));  // what is loaded counts, not only this run
  unregister_plugin("testdev");
  CHECK_THROWS_AS(require_usable_backend(reports), Error);
  unregister_plugin("no_devices");
}

TEST_CASE("require_usable_backend lists the reports it is given") {
  OnlyReferenceUsable only_reference;
  PluginLoadReport refused;
  refused.plugin = "acme";
  refused.path = "/opt/acme/libbackplane_plugin_acme.so";
  refused.status = LoadStatus::Refused;
  refused.message = "built against ABI 2.0, this runtime provides 1.0";
  std::string message;
  try {
    require_usable_backend({refused});
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK(message ==
        "no usable backend: no loaded plugin other than the built-in reference has a device; "
        "tried 1 plugin(s):\n  acme (/opt/acme/libbackplane_plugin_acme.so): refused: built "
        "against ABI 2.0, this runtime provides 1.0");
}

TEST_CASE("the install plugin folder is under the install prefix") {
  CHECK(install_plugin_dir().string().ends_with("backplane/plugins"));
}

TEST_CASE("runtime_info: the project's version, the ABI and the install plugin folder") {
  const RuntimeInfo info = runtime_info();
  CHECK(info.version == BP_PROJECT_VERSION);
  CHECK(info.abi_major == BP_ABI_MAJOR);
  CHECK(info.abi_minor == BP_ABI_MINOR);
  CHECK(info.install_plugin_dir == install_plugin_dir());
}

}  // namespace bp::test
