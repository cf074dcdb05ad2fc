// `backplane devices` (tools/backplane/devices_command.cpp), run as a program: the JSON shape,
// the built-in reference device, a fixture plugin's device by --plugin, a backend without
// devices and its reason, the default device, the exit status and the text table. Expected
// values are literals from the plugins' sources (plugins/reference/plugin.cpp,
// tests/dispatch/fixture_plugin.cpp, tests/plugins/no_devices.c).
#include "cli_fixture.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace bp::test {
namespace {

nlohmann::json parse_report(const ProgramResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  nlohmann::json report;
  REQUIRE_NOTHROW(report = nlohmann::json::parse(r.out));
  return report;
}

// The entry of `list` whose `key` equals `value`; a null json when there is none.
nlohmann::json find_entry(const nlohmann::json& list, const std::string& key,
                          const std::string& value) {
  for (const nlohmann::json& e : list)
    if (e.at(key) == value) return e;
  return nullptr;
}

const std::vector<std::string> kAllDtypes = {"bool", "i8",  "u8",   "i16", "i32",
                                             "i64",  "f16", "bf16", "f32", "f64"};

TEST_CASE("devices --json lists the reference device, which is the default when alone") {
  const ProgramResult r = run_cli({"devices", "--json"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "");
  const nlohmann::json report = parse_report(r);
  std::vector<std::string> keys;
  for (const auto& [key, value] : report.items()) keys.push_back(key);
  CHECK(keys ==
        std::vector<std::string>{"backends_without_devices", "default", "devices", "host_cpu"});

  const nlohmann::json want = {{"selector", "reference:0"},
                               {"backend", "reference"},
                               {"plugin", "reference"},
                               {"name", "Backplane reference (host, double-precision oracle)"},
                               {"vendor", "Backplane"},
                               {"total_memory", 0},
                               {"compute_units", 1},
                               {"architecture", ""},
                               {"attributes", nlohmann::json::object()},
                               {"host_accessible", true},
                               {"dtypes", kAllDtypes},
                               {"kernel_dtypes", kAllDtypes},
                               {"default", true}};
  CHECK(report.at("devices") == nlohmann::json::array({want}));
  CHECK(report.at("default") == "reference:0");
  CHECK(report.at("backends_without_devices") == nlohmann::json::array());
}

TEST_CASE("devices --plugin shows the plugin's device with its backend and plugin names") {
  const ProgramResult r = run_cli({"devices", "--json", "--plugin", kTestdevPlugin});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  const nlohmann::json devices = report.at("devices");
  CHECK(find_entry(devices, "selector", "reference:0").is_object());
  const nlohmann::json testdev = find_entry(devices, "selector", "test_dev:0");
  REQUIRE(testdev.is_object());
  CHECK(testdev.at("backend") == "test_dev");
  CHECK(testdev.at("plugin") == "testdev");
  CHECK(testdev.at("name") == "test device");
  CHECK(testdev.at("vendor") == "");
  CHECK(testdev.at("total_memory") == 1048576);
  CHECK(testdev.at("compute_units") == 0);
  CHECK(testdev.at("architecture") == "testarch");  // ABI 1.1
  CHECK(testdev.at("attributes") ==
        nlohmann::json{{"fixture", "testdev"}, {"flag", ""}, {"level", "2"}});  // ABI 1.2
  CHECK(testdev.at("host_accessible") == true);
  CHECK(testdev.at("dtypes") == kAllDtypes);

  // Exactly one device is the default, and it is the one the top-level field names; the
  // reference oracle is never preferred over another device.
  int defaults = 0;
  for (const nlohmann::json& d : devices)
    if (d.at("default") == true) {
      ++defaults;
      CHECK(d.at("selector") == report.at("default"));
    }
  CHECK(defaults == 1);
  CHECK(report.at("default") != "reference:0");
}

TEST_CASE("a backend without devices is listed with its reason, and devices exits 0") {
  const ProgramResult r = run_cli({"devices", "--json", "--plugin", kNoDevicesPlugin});
  CHECK(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  const nlohmann::json want = {{"backend", "no_devices_dev"},
                               {"plugin", "no_devices"},
                               {"reason", "no_devices: no accelerator is attached"}};
  CHECK(report.at("backends_without_devices") == nlohmann::json::array({want}));
  for (const nlohmann::json& d : report.at("devices")) CHECK(d.at("backend") != "no_devices_dev");
}

TEST_CASE("devices exits 1 and names the --plugin file that did not load") {
  const std::string missing = kFixtureDir + "/libbackplane_plugin_missing.so";
  const ProgramResult r = run_cli({"devices", "--json", "--plugin", missing});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "backplane: plugin " + missing + " failed: no such file\n");
  // The devices that did load are still reported.
  CHECK(find_entry(parse_report(r).at("devices"), "selector", "reference:0").is_object());

  const ProgramResult refused = run_cli({"devices", "--plugin", kAbiMajorPlugin});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err.find(kAbiMajorPlugin + " refused: built against ABI 2.0") != std::string::npos);
}

TEST_CASE("devices finds plugins in BACKPLANE_PLUGIN_PATH; a broken one there is not an error") {
  const ProgramResult r = run_cli({"devices", "--json"}, kPluginDir);
  CHECK(r.exit_code == 0);
  CHECK(find_entry(parse_report(r).at("devices"), "selector", "test_dev:0").is_object());
}

TEST_CASE("devices prints an aligned table, the default device and the device-less backends") {
  const ProgramResult r =
      run_cli({"devices", "--plugin", kTestdevPlugin, "--plugin", kNoDevicesPlugin});
  CHECK(r.exit_code == 0);
  INFO(r.out);
  // Columns are padded to their widest cell; the first one marks the default device.
  CHECK(r.out.starts_with("   SELECTOR     BACKEND    PLUGIN     NAME"));
  CHECK(r.out.find("\n   reference:0  reference  reference  Backplane reference (host, "
                   "double-precision oracle)  Backplane  unknown  1      yes   all     all\n") !=
        std::string::npos);
  CHECK(r.out.find("\n*  test_dev:0   test_dev   testdev    test device") != std::string::npos);
  CHECK(r.out.find("  -          1.0 MiB  0      yes   all     all\n") != std::string::npos);
  // Under the table, where the devices compute (the host CPU's model is this machine's).
  CHECK(r.out.find("\n\nhost CPU: ") != std::string::npos);
  CHECK(r.out.find("\ntest_dev:0: fixture=testdev flag level=2\n") != std::string::npos);
  CHECK(r.out.find("\n* default device: test_dev:0\n") != std::string::npos);
  CHECK(r.out.find("\nbackends without devices:\n  no_devices_dev (plugin no_devices): "
                   "no_devices: no accelerator is attached\n") != std::string::npos);
}

TEST_CASE("devices: --help describes the command, and a bad flag is a usage error") {
  const ProgramResult help = run_cli({"devices", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--json") != std::string::npos);
  CHECK(help.out.find("--plugin") != std::string::npos);
  CHECK(help.out.find("Exit status") != std::string::npos);

  const ProgramResult bad = run_cli({"devices", "--no-such-flag"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--no-such-flag") != std::string::npos);
}

TEST_CASE("devices tells the dtypes a device stores from those its kernels compute in") {
  const std::string plugin = std::string(BP_CLI_FIXTURE_DIR) + "/libbp_fixture_template.so";
  const ProgramResult json = run_cli({"devices", "--json", "--plugin", plugin});
  REQUIRE(json.exit_code == 0);
  const nlohmann::json device =
      find_entry(parse_report(json).at("devices"), "selector", "template_device:0");
  REQUIRE(device.is_object());
  CHECK(device.at("dtypes") == kAllDtypes);  // HostMemoryDevice stores every dtype
  CHECK(device.at("kernel_dtypes") == nlohmann::json::array({"f32"}));
  const ProgramResult text = run_cli({"devices", "--plugin", plugin});
  REQUIRE(text.exit_code == 0);
  INFO(text.out);
  CHECK(text.out.find("HOST  STORES  COMPUTES\n") != std::string::npos);
  CHECK(text.out.find("yes   all     f32\n") != std::string::npos);
}

}  // namespace
}  // namespace bp::test
