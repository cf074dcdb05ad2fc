// Plugin discovery: search paths and BACKPLANE_PLUGIN_PATH are scanned for
// libbackplane_plugin_*.so in name order, each file is loaded once, and a broken plugin is
// reported without stopping the others.
#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

namespace fs = std::filesystem;

namespace {

// A fresh directory holding a working plugin, a broken one and an unrelated file.
struct PluginDir {
  fs::path dir = fs::temp_directory_path() / ("bp_discovery_" + std::to_string(::getpid()));
  PluginDir() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path fixtures = BP_FIXTURE_DIR;
    fs::copy_file(fixtures / "libbp_fixture_testdev.so", dir / "libbackplane_plugin_testdev.so");
    fs::copy_file(fixtures / "not_a_library.so", dir / "libbackplane_plugin_broken.so");
    fs::copy_file(fixtures / "libbp_fixture_no_entry.so", dir / "libnot_a_plugin_name.so");
  }
  ~PluginDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

bp::DiscoveryOptions only(std::vector<fs::path> search_paths) {
  bp::DiscoveryOptions o;
  o.search_paths = std::move(search_paths);
  o.use_environment = false;
  o.use_install_dir = false;
  o.warn = false;
  return o;
}

}  // namespace

TEST_CASE("a search path yields its plugin files in name order, broken ones reported") {
  PluginDir d;
  auto reports = bp::discover_plugins(only({d.dir}));
  REQUIRE(reports.size() == 2);  // libnot_a_plugin_name.so is not a candidate
  CHECK(reports[0].status == bp::LoadStatus::Failed);
  CHECK(reports[0].plugin.find("libbackplane_plugin_broken.so") != std::string::npos);
  CHECK(reports[1].status == bp::LoadStatus::Loaded);
  CHECK(reports[1].plugin == "testdev");
  bp::unregister_plugin("testdev");
}

TEST_CASE("BACKPLANE_PLUGIN_PATH lists directories separated by colons") {
  PluginDir d;
  const std::string value = "/nonexistent/dir::" + d.dir.string();
  ::setenv("BACKPLANE_PLUGIN_PATH", value.c_str(), 1);
  bp::DiscoveryOptions o = only({});
  o.use_environment = true;
  auto reports = bp::discover_plugins(o);
  ::unsetenv("BACKPLANE_PLUGIN_PATH");
  REQUIRE(reports.size() == 2);
  CHECK(reports[1].status == bp::LoadStatus::Loaded);
  bp::unregister_plugin("testdev");
}

TEST_CASE("a file named explicitly and found again in a search path is loaded once") {
  PluginDir d;
  bp::DiscoveryOptions o = only({d.dir});
  o.plugins = {d.dir / "libbackplane_plugin_testdev.so"};
  auto reports = bp::discover_plugins(o);
  int testdev = 0;
  for (const auto& r : reports) testdev += r.plugin == "testdev";
  CHECK(testdev == 1);
  CHECK(reports.size() == 2);
  bp::unregister_plugin("testdev");
}

TEST_CASE("a missing explicit file is reported; a missing directory is skipped") {
  auto reports = bp::discover_plugins(only({"/nonexistent/plugins"}));
  CHECK(reports.empty());
  bp::DiscoveryOptions o = only({});
  o.plugins = {"/nonexistent/libbackplane_plugin_x.so"};
  reports = bp::discover_plugins(o);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].status == bp::LoadStatus::Failed);
  CHECK(reports[0].message == "no such file");
}

TEST_CASE("the install plugin folder is under the install prefix") {
  CHECK(bp::install_plugin_dir().string().ends_with("backplane/plugins"));
}
