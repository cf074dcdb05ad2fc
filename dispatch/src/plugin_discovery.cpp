// Plugin discovery: explicit files, search paths, BACKPLANE_PLUGIN_PATH, then the install's
// plugin folder; every candidate loaded once and reported. Also the "zero usable backends"
// check and the runtime's own version information.
#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"
#include "backplane/dispatch/config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>

// Both come from the build (CMakeLists.txt): the project's version and the install prefix.
#ifndef BP_VERSION
#error "BP_VERSION (the project's version) must be defined by the build"
#endif
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

// The message of require_usable_backend: every candidate with its status and reason.
std::string no_usable_backend_message(const std::vector<PluginLoadReport>& tried,
                                      const std::vector<fs::path>& searched) {
  std::string text =
      "no usable backend: no loaded plugin other than the built-in reference has a device";
  if (tried.empty()) {
    text += "; no plugin was found";
    if (!searched.empty()) {
      std::vector<std::string> dirs;
      for (const fs::path& d : searched) dirs.push_back(d.string());
      text += fmt::format(" (searched: {})", fmt::join(dirs, ", "));
    }
    return text + "; name plugin files or directories, or set BACKPLANE_PLUGIN_PATH";
  }
  text += fmt::format("; tried {} plugin(s):", tried.size());
  for (const PluginLoadReport& r : tried) {
    const bool named = !r.path.empty() && r.plugin != r.path;
    text += fmt::format("\n  {}{}{}{}: {}{}{}", r.plugin, named ? " (" : "", named ? r.path : "",
                        named ? ")" : "", to_string(r.status), r.message.empty() ? "" : ": ",
                        r.message);
  }
  return text;
}

bool has_usable_backend() {
  for (const BackendInfo& b : backends())
    if (b.type != device_types::Reference && b.device_count > 0) return true;
  return false;
}

}  // namespace

fs::path install_plugin_dir() {
  return fs::path(BP_INSTALL_PLUGIN_DIR);
}

RuntimeInfo runtime_info() {
  return RuntimeInfo{BP_VERSION, BP_ABI_MAJOR, BP_ABI_MINOR, install_plugin_dir()};
}

void require_usable_backend(const std::vector<PluginLoadReport>& tried) {
  if (!has_usable_backend()) BP_FAIL(ErrorCode::Device, "{}", no_usable_backend_message(tried, {}));
}

std::vector<PluginLoadReport> discover_plugins(const DiscoveryOptions& options) {
  const Config* config = options.config;
  std::vector<fs::path> candidates = options.plugins;
  if (config)
    candidates.insert(candidates.end(), config->plugins.load.value.begin(),
                      config->plugins.load.value.end());
  std::vector<fs::path> dirs;
  if (config) {
    dirs = config->plugins.search_path.value;
  } else if (options.use_environment) {
    if (const char* env = std::getenv("BACKPLANE_PLUGIN_PATH")) dirs = split_path_list(env);
  }
  dirs.insert(dirs.end(), options.search_paths.begin(), options.search_paths.end());
  if (options.use_install_dir) dirs.push_back(install_plugin_dir());
  for (const fs::path& dir : dirs)
    for (fs::path& f : plugins_in(dir)) candidates.push_back(std::move(f));

  std::vector<PluginLoadReport> reports;
  std::set<fs::path> seen;
  for (const fs::path& file : candidates) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(file, ec);
    if (!seen.insert(ec ? file : canonical).second) continue;  // found twice: load once
    // The pre-load filter: a plugin the config rules out is never opened (its static
    // constructors, its vendor runtime and its driver are never touched).
    if (const std::optional<std::string> reason =
            config ? config->skip_reason(file) : std::nullopt) {
      reports.push_back(detail::skipped_plugin(file, *reason));
      continue;
    }
    PluginLoadReport report = detail::open_plugin(file, config);
    if (options.warn) detail::warn_if_unusable(report);
    reports.push_back(std::move(report));
  }
  if (options.require_device && !has_usable_backend())
    BP_FAIL(ErrorCode::Device, "{}", no_usable_backend_message(reports, dirs));
  return reports;
}

}  // namespace bp
