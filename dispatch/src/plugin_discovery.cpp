// Plugin discovery: explicit files, search paths, BACKPLANE_PLUGIN_PATH, then the install's
// plugin folder; every candidate loaded once and reported.
#include "backplane/core/error.hpp"
#include "backplane/dispatch/runtime.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>

#ifndef BP_INSTALL_PLUGIN_DIR
#define BP_INSTALL_PLUGIN_DIR "/usr/local/lib/backplane/plugins"
#endif

namespace bp {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kPluginPrefix = "libbackplane_plugin_";
constexpr std::string_view kPluginSuffix = ".so";

bool is_plugin_file_name(const std::string& name) {
  return name.size() > kPluginPrefix.size() + kPluginSuffix.size() &&
         name.starts_with(kPluginPrefix) && name.ends_with(kPluginSuffix);
}

// The plugin files of one directory in name order; none when it does not exist.
std::vector<fs::path> plugins_in(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (is_plugin_file_name(entry.path().filename().string())) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> split_path_list(std::string_view list) {
  std::vector<fs::path> dirs;
  while (!list.empty()) {
    const size_t colon = list.find(':');
    const std::string_view item = list.substr(0, colon);
    if (!item.empty()) dirs.emplace_back(item);
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return dirs;
}

}  // namespace

fs::path install_plugin_dir() {
  return fs::path(BP_INSTALL_PLUGIN_DIR);
}

std::vector<PluginLoadReport> discover_plugins(const DiscoveryOptions& options) {
  std::vector<fs::path> candidates = options.plugins;
  std::vector<fs::path> dirs = options.search_paths;
  if (options.use_environment)
    if (const char* env = std::getenv("BACKPLANE_PLUGIN_PATH"))
      for (fs::path& d : split_path_list(env)) dirs.push_back(std::move(d));
  if (options.use_install_dir) dirs.push_back(install_plugin_dir());
  for (const fs::path& dir : dirs)
    for (fs::path& f : plugins_in(dir)) candidates.push_back(std::move(f));

  std::vector<PluginLoadReport> reports;
  std::set<fs::path> seen;
  for (const fs::path& file : candidates) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(file, ec);
    if (!seen.insert(ec ? file : canonical).second) continue;  // found twice: load once
    PluginLoadReport report = load_plugin(file);
    if (options.warn && report.status == LoadStatus::Failed)
      fmt::print(stderr, "backplane: warning: plugin {} failed to load: {}\n", report.plugin,
                 report.message);
    reports.push_back(std::move(report));
  }
  return reports;
}

}  // namespace bp
