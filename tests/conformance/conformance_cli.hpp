// Shared by the conformance CLI tests: the built `backplane` program, the CPU plugin and
// the fixture folder (compile definitions from tests/CMakeLists.txt), a scratch file name,
// and reading a JSON report back.
#pragma once

#include "run_program.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace bp::test {

inline const std::string kCli = BP_CLI_PATH;
inline const std::string kCpuPlugin = std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so";
inline const std::string kFixtureDir = BP_FIXTURE_DIR;

// A file name in a per-process scratch folder (tests run in parallel under ctest).
inline std::string scratch_file(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("bp_conformance_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "no report at " << path);
  return nlohmann::json::parse(in);
}

inline ProgramResult run_conformance(std::vector<std::string> args) {
  args.insert(args.begin(), "conformance");
  return run_program(kCli, args);
}

}  // namespace bp::test
