// How every `backplane` subcommand starts the runtime: the config (BACKPLANE_CONFIG or the
// search order of docs/config.md, or --config FILE), the BACKPLANE_* environment, --device
// (which overrides both, like BACKPLANE_DEVICE does the file), then bp::init() with the
// files given with --plugin and the plugin folder next to this program (so a relocated
// install finds its own plugins) before the install's plugin folder.
#pragma once

#include <backplane/dispatch/config.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace bp::cli {

struct PluginOptions {
  std::vector<std::string> plugins;  // --plugin PATH, repeatable
  std::string config;                // --config FILE ("" = the usual search)
  std::string device;                // --device SEL ("" = the config's selector)
};

// Adds --plugin and --config to a subcommand.
void add_plugin_options(CLI::App& command, PluginOptions& options);
// Adds --device SEL; `what` says what the selector picks for this command.
void add_device_option(CLI::App& command, PluginOptions& options, const std::string& what);

struct LoadedPlugin {
  PluginLoadReport report;
  bool explicit_file = false;  // named with --plugin
};

struct LoadedRuntime {
  // One entry per candidate: the plugins built into the runtime first, then the --plugin
  // files, then the config's files and the ones found in folders (skipped ones included).
  std::vector<LoadedPlugin> plugins;
  Config config;  // what was applied, with origins ("--device" for the option)
};

// Starts the runtime as described above. Nothing is printed; a broken plugin is an entry
// with status failed/refused. Throws bp::Error for a bad config, a bad --device or a name
// in either that no backend has.
LoadedRuntime load_plugins(const PluginOptions& options);

// The plugin folder of an install laid out like this program's (<bindir>/../lib/...).
std::filesystem::path plugin_dir_next_to_program();

}  // namespace bp::cli
