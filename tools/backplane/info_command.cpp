// `backplane info [--json] [--device SEL] [--config FILE] [--plugin PATH]...`: the runtime
// (version, plugin ABI, install plugin folder), the config it read and every effective
// setting with where it came from, the default device, and every plugin it found: name,
// file, version, load status and reason (skipped ones too), and the devices of its
// backends under their canonical selector ("cpu:0").
//
// Exit code: 0, or 1 when a file named with --plugin did not load (failed or refused) so a
// vendor's script can run `backplane info --plugin my.so` as a check; plugins discovered in
// folders never change the exit code (the report shows them).
#include "command.hpp"
#include "device_attributes_text.hpp"
#include "plugin_options.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>
#include <backplane/tensor_api.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bp::cli {
namespace {

namespace fs = std::filesystem;

struct InfoOptions {
  bool json = false;
  PluginOptions plugins;
};

// The devices of the backends a plugin registered, in backend then index order.
std::vector<DeviceInfo> devices_of(const PluginLoadReport& report,
                                   const std::vector<DeviceInfo>& all) {
  std::vector<DeviceInfo> mine;
  if (report.status != LoadStatus::Loaded) return mine;
  for (const std::string& backend : report.backends) {
    const int type = find_device_type(backend);
    for (const DeviceInfo& d : all)
      if (type >= 0 && d.device.type == type) mine.push_back(d);
  }
  return mine;
}

// A report whose descriptor could not be read (or was never opened: skipped) has no
// version, vendor or ABI to show.
bool has_descriptor(const PluginLoadReport& r) {
  if (r.status == LoadStatus::Skipped) return !r.version.empty();
  return !(r.status == LoadStatus::Failed && r.version.empty() && r.plugin == r.path);
}

// The default device, or why there is none.
struct DefaultDevice {
  std::optional<Device> device;
  std::string reason;
};
DefaultDevice find_default_device() {
  try {
    return {default_device(), ""};
  } catch (const Error& e) {
    return {std::nullopt, e.what()};
  }
}

nlohmann::ordered_json or_null(const std::string& s, bool known) {
  return known ? nlohmann::ordered_json(s) : nlohmann::ordered_json(nullptr);
}

// The install's plugin folder as this program finds it: the one next to it when it exists
// (an install moved to another prefix), else the folder the runtime was built for.
fs::path effective_plugin_dir(const RuntimeInfo& runtime) {
  std::error_code ec;
  const fs::path next = plugin_dir_next_to_program();
  if (!next.empty() && fs::is_directory(next, ec)) return next;
  return runtime.install_plugin_dir;
}

nlohmann::ordered_json to_json(const RuntimeInfo& runtime, const LoadedRuntime& loaded,
                               const DefaultDevice& def,
                               const std::vector<DeviceInfo>& all_devices) {
  const std::vector<LoadedPlugin>& plugins = loaded.plugins;
  nlohmann::ordered_json out;
  out["runtime"] = {{"version", runtime.version},
                    {"abi", {{"major", runtime.abi_major}, {"minor", runtime.abi_minor}}},
                    {"plugin_dir", effective_plugin_dir(runtime).string()},
                    {"install_plugin_dir", runtime.install_plugin_dir.string()},
                    {"host_cpu", host_cpu_model()}};
  nlohmann::ordered_json settings = nlohmann::ordered_json::array();
  for (const Config::Entry& e : loaded.config.entries())
    settings.push_back(
        {{"key", e.key}, {"value", e.value}, {"origin", or_null(e.origin, !e.origin.empty())}});
  const std::string file = loaded.config.source.string();
  out["config"] = {{"file", or_null(file, !file.empty())}, {"settings", std::move(settings)}};
  out["default_device"] =
      def.device ? nlohmann::ordered_json(def.device->str()) : nlohmann::ordered_json(nullptr);
  if (!def.device) out["no_default_device_reason"] = def.reason;
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const LoadedPlugin& p : plugins) {
    const PluginLoadReport& r = p.report;
    const bool known = has_descriptor(r);
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (const DeviceInfo& d : devices_of(r, all_devices))
      devices.push_back({{"selector", d.device.str()},
                         {"name", d.name},
                         {"vendor", d.vendor},
                         {"total_memory", d.total_memory},
                         {"compute_units", d.compute_units},
                         {"architecture", d.architecture},
                         {"attributes", attributes_json(d.device)},
                         {"host_accessible", d.host_accessible}});
    list.push_back({{"name", or_null(r.plugin, known)},
                    {"path", or_null(r.path, !r.path.empty())},
                    {"version", or_null(r.version, known)},
                    {"status", std::string(to_string(r.status))},
                    {"reason", r.message},
                    {"devices", std::move(devices)}});
  }
  out["plugins"] = std::move(list);
  return out;
}

std::string human_bytes(uint64_t bytes) {
  if (bytes == 0) return "memory unknown";
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

void print_config(const Config& config, const DefaultDevice& def) {
  if (config.source.empty())
    fmt::print(
        "config file: none (defaults; searched BACKPLANE_CONFIG, ./backplane.toml, "
        "$XDG_CONFIG_HOME/backplane/config.toml, /etc/backplane/config.toml)\n");
  else
    fmt::print("config file: {}\n", config.source.string());
  if (def.device)
    fmt::print("default device: {}\n", def.device->str());
  else
    fmt::print("default device: none ({})\n", def.reason);
  const std::vector<Config::Entry> entries = config.entries();
  size_t width = 0;
  for (const Config::Entry& e : entries) width = std::max(width, e.key.size());
  fmt::print("\nsettings (where each comes from):\n");
  for (const Config::Entry& e : entries) {
    const bool empty = e.value.empty() || e.value == "[]";
    fmt::print("  {:<{}}  {}  ({})\n", e.key, width, empty ? "-" : e.value,
               e.origin.empty() ? "default" : e.origin);
  }
}

void print_text(const RuntimeInfo& runtime, const LoadedRuntime& loaded, const DefaultDevice& def,
                const std::vector<DeviceInfo>& all_devices) {
  const std::vector<LoadedPlugin>& plugins = loaded.plugins;
  fmt::print("Backplane runtime {}, plugin ABI {}.{}\n", runtime.version, runtime.abi_major,
             runtime.abi_minor);
  const fs::path plugin_dir = effective_plugin_dir(runtime);
  if (plugin_dir == runtime.install_plugin_dir)
    fmt::print("install plugin folder: {}\n", plugin_dir.string());
  else
    fmt::print("install plugin folder: {} (next to this program; built for {})\n",
               plugin_dir.string(), runtime.install_plugin_dir.string());
  fmt::print("host CPU: {}\n", host_cpu_model());
  print_config(loaded.config, def);
  fmt::print("\n{} plugin{}:\n", plugins.size(), plugins.size() == 1 ? "" : "s");
  for (const LoadedPlugin& p : plugins) {
    const PluginLoadReport& r = p.report;
    if (has_descriptor(r))
      fmt::print("  {} {} ({}, ABI {}.{}): {}\n", r.plugin, r.version,
                 r.vendor.empty() ? "no vendor" : r.vendor, r.abi_major, r.abi_minor,
                 to_string(r.status));
    else if (r.status == LoadStatus::Skipped)
      fmt::print("  {}: skipped\n    file: {}\n", r.plugin, r.path);
    else
      fmt::print("  {}: {}\n", r.path, to_string(r.status));
    if (has_descriptor(r)) fmt::print("    file: {}\n", r.path.empty() ? "built-in" : r.path);
    if (!r.message.empty()) fmt::print("    reason: {}\n", r.message);
    for (const DeviceInfo& d : devices_of(r, all_devices)) {
      fmt::print("    {}  {} ({}{}{}; {}; {} compute unit{}{})\n", d.device.str(), d.name,
                 d.vendor.empty() ? "no vendor" : d.vendor, d.architecture.empty() ? "" : "; ",
                 d.architecture, human_bytes(d.total_memory), d.compute_units,
                 d.compute_units == 1 ? "" : "s", d.host_accessible ? "; host-accessible" : "");
      if (const std::string line = attributes_line(d.device); !line.empty())
        fmt::print("      attributes: {}\n", line);
    }
  }
}

int run_info(const InfoOptions& options) {
  const LoadedRuntime loaded = load_plugins(options.plugins);
  const std::vector<LoadedPlugin>& plugins = loaded.plugins;
  const RuntimeInfo runtime = runtime_info();
  const std::vector<DeviceInfo> all_devices = devices();
  const DefaultDevice def = find_default_device();
  if (options.json)
    fmt::print("{}\n", to_json(runtime, loaded, def, all_devices).dump(2));
  else
    print_text(runtime, loaded, def, all_devices);
  const bool explicit_failed = std::any_of(plugins.begin(), plugins.end(), [](const auto& p) {
    return p.explicit_file &&
           (p.report.status == LoadStatus::Failed || p.report.status == LoadStatus::Refused);
  });
  return explicit_failed ? kExitFailure : kExitOk;
}

}  // namespace

void add_info_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<InfoOptions>();
  CLI::App* info = app.add_subcommand(
      "info", "Show the runtime, the plugins it found (loaded or not, and why) and their devices");
  info->add_flag(
      "--json", options->json,
      "Print JSON: {runtime: {version, abi: {major, minor}, plugin_dir, host_cpu}, config: "
      "{file, settings: [{key, value, origin}]}, default_device, plugins: [{name, "
      "path, version, status, reason, devices: [{selector, name, vendor, "
      "total_memory, compute_units, architecture, attributes: {key: value}, "
      "host_accessible}]}]}");
  add_device_option(*info, options->plugins, "Start the runtime with this device selector");
  add_plugin_options(*info, options->plugins);
  info->footer(
      "Plugins are searched in --plugin files, the config's plugins.load, "
      "BACKPLANE_PLUGIN_PATH (folders separated by ':'), the config's plugins.search_path, the "
      "plugin folder next to this program and the install plugin folder; a plugin the config "
      "denies or whose backend the device selector leaves out is skipped, never opened.\n"
      "Exit status: 0; 1 when a --plugin file failed to load or was refused; 2 for a bad "
      "command line.\n");
  info->callback([options, &exit_code] { exit_code = run_info(*options); });
}

}  // namespace bp::cli
