// Runs a program for the CLI tests and captures what it printed and its exit status. The
// environment is the test's minus every BACKPLANE_* variable (BACKPLANE_PLUGIN_PATH only
// when `plugin_path` sets it), plus `env`, so a developer's own plugins and settings never
// change a result.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace bp::test {

struct ProgramResult {
  int exit_code = -1;  // -1 when the program did not exit normally
  std::string out;
  std::string err;
};

using Environment = std::vector<std::pair<std::string, std::string>>;

ProgramResult run_program(const std::string& program, const std::vector<std::string>& args,
                          const std::optional<std::string>& plugin_path = std::nullopt,
                          const Environment& env = {});

}  // namespace bp::test
