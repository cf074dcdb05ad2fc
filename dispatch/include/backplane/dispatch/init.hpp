// bp::init(): how an application starts the runtime the way its user configured it, with
// no rebuild. It reads the config (the file find_config_file() finds, then the BACKPLANE_*
// environment overrides), applies the fallback policy, the forced fallbacks and the default
// device selector, starts tracing when asked, and discovers the plugins: the ones the config
// rules out are reported `skipped` and never opened, each plugin's init receives its
// [backends.<name>] options. docs/config.md describes the settings; the `backplane` tool
// starts the same way, so `backplane info` shows what an application will get.
#pragma once

#include "backplane/dispatch/config.hpp"
#include "backplane/dispatch/runtime.hpp"

#include <filesystem>
#include <optional>
#include <vector>

namespace bp {

namespace detail {
// The plugin folder of the installed package this application was built against, where
// find_package(Backplane) found it (BackplaneConfig.cmake defines BP_PACKAGE_PLUGIN_DIR for
// its consumers): a moved install still finds its plugins, although the static runtime
// was compiled with the prefix it was built for. Empty in the build tree.
inline std::vector<std::filesystem::path> package_plugin_dirs() {
#ifdef BP_PACKAGE_PLUGIN_DIR
  return {std::filesystem::path(BP_PACKAGE_PLUGIN_DIR)};
#else
  return {};
#endif
}
}  // namespace detail

struct InitOptions {
  // The configuration to apply; nullopt reads it with load_config().
  std::optional<Config> config;
  // Plugin files loaded first, and folders searched after the config's search path and
  // before the install folder (a tool adds the plugin folder next to its program here; an
  // application built against an installed package starts with that package's folder).
  std::vector<std::filesystem::path> plugins;
  std::vector<std::filesystem::path> search_paths = detail::package_plugin_dirs();
  bool use_install_dir = true;  // <prefix>/lib/backplane/plugins, searched last
  bool warn = true;             // one stderr line for each plugin refused or failed
  // Throw (see require_usable_backend) when no backend but the built-in reference has a
  // device after loading.
  bool require_device = false;
};

struct InitResult {
  Config config;                          // what was applied, with each setting's origin
  std::vector<PluginLoadReport> plugins;  // every candidate, in the order tried
};

// Starts the runtime from its configuration; see the header comment. Runs once per process:
// a later call loads nothing and returns the first call's result (the first call's options
// win). Throws bp::Error for a bad config (naming file, line and key, or the variable), for
// a config naming a backend or plugin that nothing registered (after loading, as
// Config::validate_backends words it), and for options.require_device. Thread-safe.
InitResult init(InitOptions options = {});

// True once init() has run to the end.
bool initialized();

// The settings of `config` that act on calls, applied to the running runtime: fallback
// policy, forced fallbacks (replacing earlier ones), the default-device selector, the
// allocator mode and tracing (started when config.trace_file is set). init() calls it;
// tests and tools that load plugins themselves may call it directly.
void apply_config(const Config& config);

// Checks the backend and plugin names `config` mentions against the registered backends,
// the plugins that loaded, the backends Backplane ships (cuda, rocm, level_zero, opencl,
// cpu, reference: naming one that is not installed here is not an error) and the plugin
// names of `reports` (a skipped plugin's name is known). Throws like
// Config::validate_backends.
void validate_config_names(const Config& config, const std::vector<PluginLoadReport>& reports);

}  // namespace bp
