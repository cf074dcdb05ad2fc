// The `backplane` program: one subcommand per task (run, info, devices, ops, conformance,
// verify, inspect, new-plugin, python-path), each in its own <name>_command.cpp. This file
// only parses the command line and maps errors to exit codes: 2 for a bad command line
// (CLI11's message on stderr), 1 for a runtime error (bp::Error or any other exception, one
// line on stderr).
#include "command.hpp"

#include <backplane/dispatch/runtime.hpp>

#include <fmt/format.h>

#include <exception>

int main(int argc, char** argv) {
  int exit_code = bp::cli::kExitOk;
  CLI::App app{"backplane: inspect the Backplane runtime, its plugins and devices", "backplane"};
  // At most one subcommand; "none" is checked after parsing so that an unknown word is
  // reported as such rather than as a missing subcommand.
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", [] { return "backplane " + bp::runtime_info().version; });
  bp::cli::add_run_command(app, exit_code);
  bp::cli::add_info_command(app, exit_code);
  bp::cli::add_devices_command(app, exit_code);
  bp::cli::add_ops_command(app, exit_code);
  bp::cli::add_conformance_command(app, exit_code);
  bp::cli::add_verify_command(app, exit_code);
  bp::cli::add_inspect_command(app, exit_code);
  bp::cli::add_new_plugin_command(app, exit_code);
  bp::cli::add_python_path_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; everything else is bad usage.
    const int code = app.exit(e);
    return code == 0 ? bp::cli::kExitOk : bp::cli::kExitUsage;
  } catch (const std::exception& e) {
    fmt::print(stderr, "backplane: error: {}\n", e.what());
    return bp::cli::kExitFailure;
  }
  if (app.get_subcommands().empty()) {
    fmt::print(stderr, "backplane: a subcommand is required\n{}", app.help());
    return bp::cli::kExitUsage;
  }
  return exit_code;
}
