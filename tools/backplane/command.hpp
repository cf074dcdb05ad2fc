// The subcommands of the `backplane` program. Each lives in its own <name>_command.cpp and
// only exposes an add_<name>_command() that registers it on the CLI11 app; main.cpp calls
// them in the order `backplane --help` lists them. A subcommand's callback runs after the
// whole command line parsed and stores the program's exit code.
#pragma once

#include <CLI/CLI.hpp>

namespace bp::cli {

// Exit codes shared by every subcommand (documented in `backplane --help`).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the command ran and found a problem
inline constexpr int kExitUsage = 2;    // the command line is wrong

// `backplane info`: the runtime, every plugin found and its devices.
void add_info_command(CLI::App& app, int& exit_code);

// `backplane devices`: every device under its selector, its properties, the default device.
void add_devices_command(CLI::App& app, int& exit_code);

// `backplane ops`: per op and backend, native / composite / fallback / missing.
void add_ops_command(CLI::App& app, int& exit_code);

// `backplane conformance`: the conformance suite against one device; `conformance merge`.
void add_conformance_command(CLI::App& app, int& exit_code);

// `backplane verify`: checks a conformance certificate (seal, plugin file, a rerun).
void add_verify_command(CLI::App& app, int& exit_code);

// `backplane run`: plugins, the quick suite and the example models on every device.
void add_run_command(CLI::App& app, int& exit_code);

// `backplane inspect`: a plugin file's capability manifest, read without loading it.
void add_inspect_command(CLI::App& app, int& exit_code);

// `backplane new-plugin`: a new out-of-tree plugin folder from the template, renamed.
void add_new_plugin_command(CLI::App& app, int& exit_code);

// `backplane python-path`: the folder of the backplane Python package (the PyTorch bridge).
void add_python_path_command(CLI::App& app, int& exit_code);

}  // namespace bp::cli
