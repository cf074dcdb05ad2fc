// Runs a program for the CLI tests and captures what it printed and its exit status. The
// environment is the test's, minus BACKPLANE_PLUGIN_PATH unless `plugin_path` sets it, so
// a developer's own plugins never change a result.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace bp::test {

struct ProgramResult {
  int exit_code = -1;  // -1 when the program did not exit normally
  std::string out;
  std::string err;
};

ProgramResult run_program(const std::string& program, const std::vector<std::string>& args,
                          const std::optional<std::string>& plugin_path = std::nullopt);

}  // namespace bp::test
