// Plugin discovery as every `backplane` subcommand does it: the built-in plugins, the
// files given with --plugin, BACKPLANE_PLUGIN_PATH, the runtime's install folder, and the
// plugin folder next to this program (so a relocated install finds its own plugins).
#pragma once

#include <backplane/dispatch/runtime.hpp>

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace bp::cli {

struct PluginOptions {
  std::vector<std::string> plugins;  // --plugin PATH, repeatable
};

// Adds --plugin to a subcommand.
void add_plugin_options(CLI::App& command, PluginOptions& options);

struct LoadedPlugin {
  PluginLoadReport report;
  bool explicit_file = false;  // named with --plugin
};

// Loads every plugin (each file once) and returns one entry per candidate: the plugins
// built into the runtime first, then the --plugin files, then the ones found in folders.
// Nothing is printed; a broken plugin is an entry with status failed/refused.
std::vector<LoadedPlugin> load_plugins(const PluginOptions& options);

// The plugin folder of an install laid out like this program's (<bindir>/../lib/...).
std::filesystem::path plugin_dir_next_to_program();

}  // namespace bp::cli
