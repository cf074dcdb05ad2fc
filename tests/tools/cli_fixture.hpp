// Shared by the CLI tests: where the built `backplane` program and the fixture plugins are
// (compile definitions from tests/CMakeLists.txt), and the JSON report of `backplane info`.
#pragma once

#include "run_program.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace bp::test {

inline const std::string kCli = BP_CLI_PATH;
inline const std::string kTestdevPlugin = BP_CLI_TESTDEV_PLUGIN;       // backend test_dev
inline const std::string kNoDevicesPlugin = BP_CLI_NO_DEVICES_PLUGIN;  // 0 devices, a reason
inline const std::string kAbiMajorPlugin = BP_CLI_ABI_MAJOR_PLUGIN;    // built for ABI 2.0
inline const std::string kFixtureDir = BP_CLI_FIXTURE_DIR;
// testdev, reference (refused), broken (a text file) as libbackplane_plugin_*.so, and
// libnot_a_plugin_name.so, which discovery must not open.
inline const std::string kPluginDir = BP_CLI_PLUGIN_DIR;

inline ProgramResult run_cli(const std::vector<std::string>& args,
                             const std::optional<std::string>& plugin_path = std::nullopt,
                             const Environment& env = {}) {
  return run_program(kCli, args, plugin_path, env);
}

// The entry of `plugins` whose field `key` equals `value`; a null json when there is none.
inline nlohmann::json find_plugin(const nlohmann::json& report, const std::string& key,
                                  const std::string& value) {
  for (const nlohmann::json& p : report.at("plugins"))
    if (p.at(key).is_string() && p.at(key).get<std::string>() == value) return p;
  return nullptr;
}

}  // namespace bp::test
