// `backplane devices --explain` (tools/backplane/device_choice.cpp), run as a program: the
// selector and where it was set, each candidate kept or dropped and why (excluded, not
// listed, an index the backend lacks, a backend without devices), the plugins never opened
// or unusable with their reasons, and a verdict that is the one `devices --json` reports.
#include "cli_fixture.hpp"

#include <doctest/doctest.h>

#include <string>

namespace bp::test {
namespace {

bool has(const ProgramResult& r, const std::string& text) {
  INFO("looking for: " << text << "\nstdout:\n" << r.out << "stderr:\n" << r.err);
  return r.out.find(text) != std::string::npos;
}

TEST_CASE("devices --explain: no selector, the built-in order, a backend without devices") {
  const std::vector<std::string> plugins = {"--plugin", kTestdevPlugin, "--plugin",
                                            kNoDevicesPlugin};
  std::vector<std::string> args = {"devices", "--explain"};
  args.insert(args.end(), plugins.begin(), plugins.end());
  const ProgramResult r = run_cli(args);
  REQUIRE(r.exit_code == 0);
  CHECK(has(r, "config file: none found (defaults only)\n"));
  CHECK(has(r,
            "selector: none set (no --device, BACKPLANE_DEVICE, devices.default or "
            "devices.priority): the built-in order cuda, rocm, level_zero, opencl, cpu, "
            "then out-of-tree backends, reference last\n"));
  // Out-of-tree backends come before the reference oracle.
  CHECK(has(r,
            "  test_dev:0       kept: the first kept device is the default\n"
            "  reference:0      kept\n"));
  CHECK(has(r,
            "  no_devices_dev:* dropped: the backend has no device (no_devices: no "
            "accelerator is attached)\n"));
  CHECK(has(r, "plugins never opened or unusable: none\n"));
  CHECK(has(r, "default device: test_dev:0\n"));

  // The explanation's verdict is the runtime's.
  args = {"devices", "--json"};
  args.insert(args.end(), plugins.begin(), plugins.end());
  CHECK(nlohmann::json::parse(run_cli(args).out).at("default") == "test_dev:0");
}

TEST_CASE("devices --explain: BACKPLANE_DEVICE, an index too many, plugins never opened") {
  const ProgramResult r = run_cli({"devices", "--explain"}, kPluginDir,
                                  {{"BACKPLANE_DEVICE", "reference:1,reference:0,!testdev"}});
  REQUIRE(r.exit_code == 0);
  CHECK(has(r,
            "selector: 'reference:1,reference:0,!testdev' from devices.default "
            "(BACKPLANE_DEVICE)\n"));
  CHECK(has(r, "  reference:0      kept: the first kept device is the default\n"));
  CHECK(has(r, "  reference:1      dropped: backend 'reference' has 1 device(s)\n"));
  CHECK(has(r,
            "/libbackplane_plugin_testdev.so: never opened: backend 'testdev' excluded by "
            "devices.priority 'reference:1,reference:0,!testdev' (BACKPLANE_DEVICE)\n"));
  CHECK(has(r, "/libbackplane_plugin_broken.so: failed: not a loadable shared library"));
  CHECK(has(r,
            "/libbackplane_plugin_reference.so: refused: a plugin named 'reference' is "
            "already loaded"));
  CHECK(has(r, "default device: reference:0\n"));
}

TEST_CASE("devices --explain: --device lists, excludes and names an absent backend") {
  const ProgramResult r =
      run_cli({"devices", "--explain", "--plugin", kTestdevPlugin, "--device", "cpu,test_dev"});
  REQUIRE(r.exit_code == 0);
  CHECK(has(r, "selector: 'cpu:*,test_dev:*' from devices.default (--device)\n"));
  CHECK(has(r, "  test_dev:0       kept: the first kept device is the default\n"));
  CHECK(has(r, "  reference:0      dropped: the selector does not list backend 'reference'\n"));
  CHECK(has(r, "  cpu:*            dropped: no loaded plugin registered backend 'cpu'\n"));

  const ProgramResult excluded =
      run_cli({"devices", "--explain", "--plugin", kTestdevPlugin, "--device", "!test_dev"});
  CHECK(has(excluded, "  test_dev:0       dropped: the selector excludes '!test_dev'\n"));
  CHECK(has(excluded, "default device: reference:0\n"));
}

TEST_CASE("devices --explain and --json exclude each other") {
  const ProgramResult r = run_cli({"devices", "--explain", "--json"});
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("excludes") != std::string::npos);
}

}  // namespace
}  // namespace bp::test
