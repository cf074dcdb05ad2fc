// `backplane info` (tools/backplane/info_command.cpp), run as a program: the JSON report
// (runtime, built-in reference backend, a fixture plugin by --plugin, a BACKPLANE_PLUGIN_PATH
// folder with loaded, refused and failed plugins), the exit status, and the text report. Expected
// values are literals from the plugins' sources and the build (version, ABI header, install
// folder).
#include "cli_fixture.hpp"

#include <backplane/plugin.h>

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
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

TEST_CASE("info --json describes the runtime and the built-in reference backend") {
  const ProgramResult r = run_cli({"info", "--json"});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  std::vector<std::string> keys;
  for (const auto& [key, value] : report.items()) keys.push_back(key);
  // nlohmann::json sorts keys.
  CHECK(keys == std::vector<std::string>{"config", "default_device", "plugins", "runtime"});
  CHECK(report.at("default_device") == "reference:0");
  const nlohmann::json& runtime = report.at("runtime");
  CHECK(runtime.at("version") == BP_CLI_EXPECTED_VERSION);
  CHECK(runtime.at("abi") == nlohmann::json{{"major", BP_ABI_MAJOR}, {"minor", BP_ABI_MINOR}});
  CHECK(runtime.at("plugin_dir") == BP_CLI_EXPECTED_PLUGIN_DIR);
  CHECK(runtime.at("host_cpu").is_string());
  CHECK_FALSE(runtime.at("host_cpu").get<std::string>().empty());

  // The built-in plugin comes first and has no file.
  const nlohmann::json& reference = report.at("plugins").at(0);
  CHECK(reference.at("name") == "reference");
  CHECK(reference.at("path").is_null());
  CHECK(reference.at("status") == "loaded");
  CHECK(reference.at("reason") == "");
  CHECK(reference.at("version").is_string());
  const nlohmann::json want_device = {
      {"selector", "reference:0"},
      {"name", "Backplane reference (host, double-precision oracle)"},
      {"vendor", "Backplane"},
      {"total_memory", 0},
      {"compute_units", 1},
      {"architecture", ""},
      {"attributes", nlohmann::json::object()},  // the reference reports none
      {"host_accessible", true}};
  CHECK(reference.at("devices") == nlohmann::json::array({want_device}));
}

TEST_CASE("info --plugin loads a plugin file and lists its devices by selector") {
  const ProgramResult r = run_cli({"info", "--json", "--plugin", kTestdevPlugin});
  CHECK(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  const nlohmann::json testdev = find_plugin(report, "name", "testdev");
  REQUIRE(testdev.is_object());
  CHECK(testdev.at("path") == kTestdevPlugin);
  CHECK(testdev.at("version") == "1.0");
  CHECK(testdev.at("status") == "loaded");
  CHECK(testdev.at("reason") == "");
  const nlohmann::json want_device = {
      {"selector", "test_dev:0"},
      {"name", "test device"},
      {"vendor", ""},
      {"total_memory", 1048576},
      {"compute_units", 0},
      {"architecture", "testarch"},
      {"attributes", {{"fixture", "testdev"}, {"flag", ""}, {"level", "2"}}},  // fixture_plugin.cpp
      {"host_accessible", true}};
  CHECK(testdev.at("devices") == nlohmann::json::array({want_device}));
}

TEST_CASE("info loads a file named twice once") {
  // A second spelling of the same file: <dir>/./<name>.
  const std::filesystem::path file(kTestdevPlugin);
  const std::string again = (file.parent_path() / "." / file.filename()).string();
  const ProgramResult r =
      run_cli({"info", "--json", "--plugin", kTestdevPlugin, "--plugin", again});
  CHECK(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  int entries = 0;
  for (const nlohmann::json& p : report.at("plugins")) entries += p.at("name") == "testdev";
  CHECK(entries == 1);
}

TEST_CASE("a missing --plugin file is reported failed, and the exit status is 1") {
  const std::string missing = kFixtureDir + "/libbackplane_plugin_missing.so";
  const ProgramResult r = run_cli({"info", "--json", "--plugin", missing});
  CHECK(r.exit_code == 1);
  const nlohmann::json report = parse_report(r);
  const nlohmann::json entry = find_plugin(report, "path", missing);
  REQUIRE(entry.is_object());
  CHECK(entry.at("name").is_null());  // no descriptor was read
  CHECK(entry.at("version").is_null());
  CHECK(entry.at("status") == "failed");
  CHECK(entry.at("reason") == "no such file");
  CHECK(entry.at("devices") == nlohmann::json::array());
  // The built-in reference backend is still reported.
  CHECK(find_plugin(report, "name", "reference").at("status") == "loaded");
}

TEST_CASE("a --plugin file that is not a library is reported with the loader's reason") {
  const std::string text_file = kFixtureDir + "/not_a_library.so";
  const ProgramResult r = run_cli({"info", "--json", "--plugin", text_file});
  CHECK(r.exit_code == 1);
  const nlohmann::json entry = find_plugin(parse_report(r), "path", text_file);
  REQUIRE(entry.is_object());
  CHECK(entry.at("status") == "failed");
  CHECK(entry.at("reason").get<std::string>().find("invalid ELF header") != std::string::npos);
}

TEST_CASE("a --plugin file without devices is listed with the reason, and info exits 0") {
  const ProgramResult r = run_cli({"info", "--json", "--plugin", kNoDevicesPlugin});
  CHECK(r.exit_code == 0);
  const nlohmann::json entry = find_plugin(parse_report(r), "path", kNoDevicesPlugin);
  REQUIRE(entry.is_object());
  CHECK(entry.at("name") == "no_devices");
  CHECK(entry.at("status") == "no-devices");
  CHECK(entry.at("reason") == "no_devices: no accelerator is attached");
  CHECK(entry.at("devices") == nlohmann::json::array());
}

TEST_CASE("a refused --plugin file is reported with the reason, and info exits 1") {
  const ProgramResult r = run_cli({"info", "--json", "--plugin", kAbiMajorPlugin});
  CHECK(r.exit_code == 1);
  const nlohmann::json entry = find_plugin(parse_report(r), "path", kAbiMajorPlugin);
  REQUIRE(entry.is_object());
  CHECK(entry.at("name") == "abi_major");
  CHECK(entry.at("version") == "0.0.1");
  CHECK(entry.at("status") == "refused");
  CHECK(entry.at("reason") ==
        "built against ABI 2.0, this runtime provides 1.3: the major version must match");
}

TEST_CASE("BACKPLANE_PLUGIN_PATH folders are searched; plugins found there never fail info") {
  // A missing folder and an empty entry in the list are skipped.
  const ProgramResult r =
      run_cli({"info", "--json"}, kFixtureDir + "/no_such_folder::" + kPluginDir);
  CHECK(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);

  const nlohmann::json testdev =
      find_plugin(report, "path", kPluginDir + "/libbackplane_plugin_testdev.so");
  REQUIRE(testdev.is_object());
  CHECK(testdev.at("name") == "testdev");
  CHECK(testdev.at("status") == "loaded");
  REQUIRE(testdev.at("devices").size() == 1);
  CHECK(testdev.at("devices").at(0).at("selector") == "test_dev:0");

  const nlohmann::json refused =
      find_plugin(report, "path", kPluginDir + "/libbackplane_plugin_reference.so");
  REQUIRE(refused.is_object());
  CHECK(refused.at("name") == "reference");
  CHECK(refused.at("status") == "refused");
  CHECK(refused.at("reason").get<std::string>().find("'reference' is already loaded") !=
        std::string::npos);
  CHECK(refused.at("devices") == nlohmann::json::array());  // the built-in one owns them

  const nlohmann::json broken =
      find_plugin(report, "path", kPluginDir + "/libbackplane_plugin_broken.so");
  REQUIRE(broken.is_object());
  CHECK(broken.at("status") == "failed");
  CHECK(broken.at("reason").get<std::string>().find("invalid ELF header") != std::string::npos);

  CHECK(find_plugin(report, "path", kPluginDir + "/libnot_a_plugin_name.so").is_null());
  // Loaded in file-name order after the built-in reference: broken, reference, testdev.
  std::vector<std::string> order;
  for (const nlohmann::json& p : report.at("plugins"))
    if (p.at("path").is_string() && p.at("path").get<std::string>().starts_with(kPluginDir))
      order.push_back(std::filesystem::path(p.at("path").get<std::string>()).filename());
  CHECK(order == std::vector<std::string>{"libbackplane_plugin_broken.so",
                                          "libbackplane_plugin_reference.so",
                                          "libbackplane_plugin_testdev.so"});
}

TEST_CASE("the text report names the runtime, each plugin with its status, and its devices") {
  const std::string missing = kFixtureDir + "/libbackplane_plugin_missing.so";
  const ProgramResult r = run_cli({"info", "--plugin", kTestdevPlugin, "--plugin", missing});
  CHECK(r.exit_code == 1);
  INFO(r.out);
  CHECK(r.out.starts_with(std::string("Backplane runtime ") + BP_CLI_EXPECTED_VERSION +
                          ", plugin ABI " + std::to_string(BP_ABI_MAJOR) + "." +
                          std::to_string(BP_ABI_MINOR) + "\n"));
  CHECK(r.out.find("  reference ") != std::string::npos);
  CHECK(r.out.find("    reference:0  Backplane reference (host, double-precision oracle)") !=
        std::string::npos);
  CHECK(r.out.find("  testdev 1.0 ") != std::string::npos);
  CHECK(r.out.find("    test_dev:0  test device (no vendor; testarch; 1.0 MiB; 0 compute units; "
                   "host-accessible)") != std::string::npos);
  CHECK(r.out.find("  " + missing + ": failed\n    reason: no such file\n") != std::string::npos);
}

// A config file in a fresh folder, removed at the end of the test.
struct ConfigFile {
  std::filesystem::path dir, path;
  explicit ConfigFile(const std::string& text)
      : dir(std::filesystem::temp_directory_path() /
            ("bp_cli_config_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(dir);
    path = dir / "backplane.toml";
    std::ofstream(path) << text;
  }
  ~ConfigFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

TEST_CASE("info shows the config file, every setting with its origin, and the default device") {
  const ConfigFile config(
      "[devices]\npriority = \"test_dev, reference, !broken\"\n"
      "[fallback]\npolicy = \"cpu\"\n[memory]\nallocator = \"direct\"\n");
  const ProgramResult r =
      run_cli({"info", "--json", "--config", config.path.string()}, kPluginDir,
              {{"BACKPLANE_FALLBACK", "error"}, {"BACKPLANE_ALLOCATOR", "caching"}});
  CHECK(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  CHECK(report.at("config").at("file") == config.path.string());
  CHECK(report.at("default_device") == "test_dev:0");
  auto setting = [&](const std::string& key) {
    for (const nlohmann::json& s : report.at("config").at("settings"))
      if (s.at("key") == key) return s;
    return nlohmann::json();
  };
  CHECK(setting("devices.priority") == nlohmann::json{{"key", "devices.priority"},
                                                      {"value", "test_dev:*,reference:*,!broken"},
                                                      {"origin", config.path.string() + ":2"}});
  // The environment overrides the file and says so.
  CHECK(setting("fallback.policy").at("value") == "error");
  CHECK(setting("fallback.policy").at("origin") == "BACKPLANE_FALLBACK");
  CHECK(setting("plugins.search_path").at("origin") == "BACKPLANE_PLUGIN_PATH");
  CHECK(setting("memory.allocator").at("value") == "caching");
  CHECK(setting("memory.allocator").at("origin") == "BACKPLANE_ALLOCATOR");
  CHECK(setting("trace").at("origin").is_null());  // a default

  // The priority negates the plugin named broken: skipped, never opened (a text file, it
  // would fail to load). testdev is not listed, but an out-of-tree file is opened anyway.
  const nlohmann::json broken =
      find_plugin(report, "path", kPluginDir + "/libbackplane_plugin_broken.so");
  REQUIRE(broken.is_object());
  CHECK(broken.at("status") == "skipped");
  CHECK(broken.at("reason") ==
        "backend 'broken' excluded by devices.priority "
        "'test_dev:*,reference:*,!broken' (" +
            config.path.string() + ":2)");
  CHECK(broken.at("version").is_null());
}

TEST_CASE("info --device overrides the config; its text names each setting's origin") {
  const ConfigFile config("[devices]\npriority = \"test_dev\"\n");
  const ProgramResult r = run_cli(
      {"info", "--config", config.path.string(), "--device", "reference,!testdev"}, kPluginDir);
  CHECK(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.find("config file: " + config.path.string() + "\n") != std::string::npos);
  CHECK(r.out.find("default device: reference:0\n") != std::string::npos);
  CHECK(r.out.find("  devices.priority     reference:*,!testdev  (--device)\n") !=
        std::string::npos);
  CHECK(r.out.find("  fallback.policy      error  (default)\n") != std::string::npos);
  CHECK(r.out.find("  testdev: skipped\n    file: " + kPluginDir +
                   "/libbackplane_plugin_testdev.so\n    reason: backend 'testdev' excluded by "
                   "devices.priority 'reference:*,!testdev' (--device)\n") != std::string::npos);
}

TEST_CASE("a bad config or --device is an error naming the file, line and key, exit 1") {
  const ConfigFile config("[devices]\npriorty = \"cpu\"\n");
  const ProgramResult bad_key = run_cli({"info", "--config", config.path.string()});
  CHECK(bad_key.exit_code == 1);
  CHECK(bad_key.out == "");
  CHECK(bad_key.err.starts_with("backplane: error: " + config.path.string() +
                                ":2: devices.priorty: unknown key"));

  const ProgramResult bad_selector = run_cli({"devices", "--device", "cuda:x"});
  CHECK(bad_selector.exit_code == 1);
  CHECK(bad_selector.err.starts_with(
      "backplane: error: --device: device selector 'cuda:x': column 6: expected a device index "
      "or '*' after ':'"));

  const ProgramResult unknown = run_cli({"devices", "--device", "cdua"});
  CHECK(unknown.exit_code == 1);
  CHECK(
      unknown.err.starts_with("backplane: error: --device: devices.priority 'cdua:*': unknown "
                              "backend 'cdua'"));
  CHECK(unknown.err.find("did you mean 'cuda'?") != std::string::npos);

  const ProgramResult env = run_cli({"info"}, std::nullopt, {{"BACKPLANE_FALLBACK", "gpu"}});
  CHECK(env.exit_code == 1);
  CHECK(env.err ==
        "backplane: error: BACKPLANE_FALLBACK: expected \"error\" or \"cpu\", got "
        "\"gpu\"\n");
}

}  // namespace
}  // namespace bp::test
