// Plugin discovery for the `backplane` subcommands (see plugin_options.hpp).
#include "plugin_options.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>
#include <system_error>

namespace bp::cli {
namespace fs = std::filesystem;

namespace {

fs::path canonical_or_self(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? p : c;
}

}  // namespace

void add_plugin_options(CLI::App& command, PluginOptions& options) {
  command
      .add_option("--plugin", options.plugins,
                  "Load this plugin file as well (repeatable); a file that fails to load "
                  "makes the command exit with 1")
      ->type_name("PATH");
}

fs::path plugin_dir_next_to_program() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  return (self.parent_path() / BP_CLI_RELATIVE_PLUGIN_DIR).lexically_normal();
}

std::vector<LoadedPlugin> load_plugins(const PluginOptions& options) {
  // The runtime registers its built-in plugins on first use: take their reports before
  // discovery adds to the list.
  std::vector<LoadedPlugin> result;
  for (PluginLoadReport& r : plugin_reports()) result.push_back({std::move(r), false});

  // The runtime's order (explicit files, BACKPLANE_PLUGIN_PATH, install folder) with the
  // folder next to this program just before the install folder: the environment still
  // overrides an install, and a relocated install finds its own plugins.
  DiscoveryOptions discovery;
  discovery.plugins.assign(options.plugins.begin(), options.plugins.end());
  discovery.use_environment = false;
  if (const char* env = std::getenv("BACKPLANE_PLUGIN_PATH"))
    for (std::string_view list = env; !list.empty();) {
      const size_t colon = std::min(list.find(':'), list.size());
      if (colon > 0) discovery.search_paths.emplace_back(list.substr(0, colon));
      list.remove_prefix(std::min(colon + 1, list.size()));
    }
  if (fs::path next = plugin_dir_next_to_program(); !next.empty())
    discovery.search_paths.push_back(std::move(next));
  discovery.warn = false;  // the subcommand reports every plugin itself

  std::set<fs::path> explicit_files;
  for (const std::string& p : options.plugins) explicit_files.insert(canonical_or_self(p));
  for (PluginLoadReport& r : discover_plugins(discovery)) {
    const bool is_explicit = explicit_files.contains(canonical_or_self(r.path));
    result.push_back({std::move(r), is_explicit});
  }
  return result;
}

}  // namespace bp::cli
