// bp::init(): config, environment, fallback settings, default device and plugin discovery
// in the order an application needs them (init.hpp).
#include "backplane/dispatch/init.hpp"

#include "runtime_impl.hpp"

#include "backplane/core/device.hpp"
#include "backplane/core/error.hpp"
#include "backplane/dispatch/fallback.hpp"
#include "backplane/dispatch/memory.hpp"
#include "backplane/dispatch/trace.hpp"

#include <algorithm>
#include <mutex>

namespace bp {
namespace {

struct InitState {
  std::mutex mu;
  std::optional<InitResult> result;
};

InitState& init_state() {
  static InitState state;
  return state;
}

void add_unique(std::vector<std::string>& names, std::string name) {
  if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end())
    names.push_back(std::move(name));
}

}  // namespace

void apply_config(const Config& config) {
  set_fallback_policy(config.fallback.policy.value);
  clear_forced_fallbacks();
  for (const auto& [backend, setting] : config.fallback.ops)
    for (const std::string& op : config.forced_ops(backend)) force_fallback(backend, op);
  detail::Runtime::get().set_default_selector(config.default_selector());
  set_allocator_mode(config.memory.allocator.value);
  // Started, never stopped, here: a trace the application started itself goes on until it
  // stops it (or until exit, where the file is written).
  if (!config.trace_file.value.empty()) start_trace(config.trace_file.value);
}

void validate_config_names(const Config& config, const std::vector<PluginLoadReport>& reports) {
  std::vector<std::string> backend_names;
  for (const BackendInfo& b : backends()) add_unique(backend_names, b.name);
  for (std::string_view shipped : DeviceSelector::default_priority())
    add_unique(backend_names, std::string(shipped));
  add_unique(backend_names, "reference");
  // A plugin that was skipped or did not load still has a name the config may use: the
  // in-tree plugins are named after their backend, so its name is a backend name too.
  std::vector<std::string> plugin_names;
  for (const PluginLoadReport& r : reports) {
    if (r.plugin != r.path) add_unique(plugin_names, r.plugin);
    if (std::optional<std::string> from_file = plugin_name_from_file(r.path))
      add_unique(plugin_names, *from_file);
  }
  for (const PluginLoadReport& r : plugin_reports())
    if (r.status == LoadStatus::Loaded || r.status == LoadStatus::NoDevices)
      add_unique(plugin_names, r.plugin);
  for (const std::string& p : plugin_names) add_unique(backend_names, p);
  config.validate_backends(backend_names, plugin_names);
}

InitResult init(InitOptions options) {
  InitState& state = init_state();
  std::lock_guard lock(state.mu);
  if (state.result) return *state.result;

  InitResult result;
  result.config = options.config ? std::move(*options.config) : load_config();
  // Settings first: a plugin's init may already allocate or run ops.
  apply_config(result.config);

  DiscoveryOptions discovery;
  discovery.plugins = std::move(options.plugins);
  discovery.search_paths = std::move(options.search_paths);
  discovery.use_install_dir = options.use_install_dir;
  discovery.warn = options.warn;
  discovery.config = &result.config;
  result.plugins = discover_plugins(discovery);
  validate_config_names(result.config, result.plugins);
  if (options.require_device) require_usable_backend(result.plugins);
  state.result = result;
  return result;
}

bool initialized() {
  InitState& state = init_state();
  std::lock_guard lock(state.mu);
  return state.result.has_value();
}

}  // namespace bp
