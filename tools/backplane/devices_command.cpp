// `backplane devices [--device SEL] [--json | --explain] [--config FILE] [--plugin PATH]...`:
// every device of every loaded backend (or the ones --device picks, in its order) under its
// canonical selector ("cpu:0") with its properties and dtypes, which one is the default
// device (bp::default_device()), and the backends that loaded without a device and why.
// --explain prints how that default was chosen instead (device_choice.hpp).
// docs/cli.md documents the output and the JSON shape.
//
// Exit code: 0, or 1 when a file named with --plugin did not load (failed or refused), as
// for `backplane info`; that plugin is named on stderr (`backplane info` shows the rest).
#include "command.hpp"
#include "device_attributes_text.hpp"
#include "device_choice.hpp"
#include "dtype_text.hpp"
#include "plugin_options.hpp"

#include <backplane/core/catalog.hpp>
#include <backplane/core/dtype_mask.hpp>
#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>
#include <backplane/dispatch/selector.hpp>
#include <backplane/tensor_api.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace bp::cli {
namespace {

struct DevicesOptions {
  bool json = false;
  bool explain = false;
  PluginOptions plugins;
};

std::string human_bytes(uint64_t bytes) {
  if (bytes == 0) return "unknown";
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", value, kUnits[unit]);
}

// The dtypes some kernel of `backend` is registered for (the union of its kernels' masks):
// what the device computes in, as opposed to the dtypes it can store. A device whose
// plugin has f32 kernels only stores every dtype but computes in f32 alone.
uint32_t kernel_dtypes(const std::string& backend) {
  uint32_t mask = 0;
  for (const OpDef& op : Catalog::get().ops())
    for (const OpTableEntry& e : op_table(op.name))
      if (e.backend == backend && e.kind == EntryKind::Kernel) mask |= e.dtypes;
  return mask;
}

// Everything the report shows, gathered once after the plugins loaded.
struct DevicesReport {
  std::vector<BackendInfo> backends;
  std::vector<DeviceInfo> devices;
  std::optional<Device> default_device;
  std::string no_default_reason;  // why there is no default device

  const BackendInfo& backend_of(const DeviceInfo& d) const {
    return *std::find_if(backends.begin(), backends.end(),
                         [&](const BackendInfo& b) { return b.type == d.device.type; });
  }
  bool is_default(const DeviceInfo& d) const {
    return default_device && *default_device == d.device;
  }
};

// With a --device selector, only the devices it picks, in its order.
DevicesReport gather(const std::string& selector_text) {
  DevicesReport report;
  report.backends = backends();
  report.devices = devices();
  if (!selector_text.empty()) {
    std::vector<DeviceInfo> picked;
    for (Device d : DeviceSelector::parse(selector_text).select(report.backends))
      for (const DeviceInfo& info : report.devices)
        if (info.device == d) picked.push_back(info);
    report.devices = std::move(picked);
  }
  try {
    report.default_device = default_device();
  } catch (const Error& e) {
    // The listing is still worth printing: it shows what is (not) there.
    report.no_default_reason = e.what();
  }
  return report;
}

nlohmann::ordered_json to_json(const DevicesReport& report) {
  nlohmann::ordered_json out;
  out["host_cpu"] = host_cpu_model();
  out["default"] = report.default_device ? nlohmann::ordered_json(report.default_device->str())
                                         : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const DeviceInfo& d : report.devices) {
    const BackendInfo& b = report.backend_of(d);
    list.push_back({{"selector", d.device.str()},
                    {"backend", b.name},
                    {"plugin", b.plugin},
                    {"name", d.name},
                    {"vendor", d.vendor},
                    {"total_memory", d.total_memory},
                    {"compute_units", d.compute_units},
                    {"architecture", d.architecture},
                    {"attributes", attributes_json(d.device)},
                    {"host_accessible", d.host_accessible},
                    {"dtypes", dtype_mask_names(d.dtypes)},
                    {"kernel_dtypes", dtype_mask_names(kernel_dtypes(b.name))},
                    {"default", report.is_default(d)}});
  }
  out["devices"] = std::move(list);
  nlohmann::ordered_json empty = nlohmann::ordered_json::array();
  for (const BackendInfo& b : report.backends)
    if (b.device_count == 0)
      empty.push_back({{"backend", b.name}, {"plugin", b.plugin}, {"reason", b.no_device_reason}});
  out["backends_without_devices"] = std::move(empty);
  return out;
}

void print_text(const DevicesReport& report) {
  // One row per device; the first column marks the default device.
  using Row = std::array<std::string, 11>;
  std::vector<Row> rows = {{"", "SELECTOR", "BACKEND", "PLUGIN", "NAME", "VENDOR", "MEMORY",
                            "UNITS", "HOST", "STORES", "COMPUTES"}};
  for (const DeviceInfo& d : report.devices) {
    const BackendInfo& b = report.backend_of(d);
    rows.push_back({report.is_default(d) ? "*" : "", d.device.str(), b.name, b.plugin, d.name,
                    d.vendor.empty() ? "-" : d.vendor, human_bytes(d.total_memory),
                    std::to_string(d.compute_units), d.host_accessible ? "yes" : "no",
                    dtype_summary(d.dtypes), dtype_summary(kernel_dtypes(b.name))});
  }
  std::array<size_t, std::tuple_size_v<Row>> width{};
  for (const Row& row : rows)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const Row& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c)
      line += c + 1 < row.size() ? fmt::format("{:<{}}  ", row[c], width[c]) : row[c];
    fmt::print("{}\n", line);
  }
  // Where each device computes (the CPU's ISA level, ...), so that listings from two
  // machines can be compared; too wide for a column.
  fmt::print("\nhost CPU: {}\n", host_cpu_model());
  for (const DeviceInfo& d : report.devices)
    if (const std::string line = attributes_line(d.device); !line.empty())
      fmt::print("{}: {}\n", d.device.str(), line);
  if (report.default_device)
    fmt::print("\n* default device: {}\n", report.default_device->str());
  else
    fmt::print("\nno default device: {}\n", report.no_default_reason);

  bool header = false;
  for (const BackendInfo& b : report.backends) {
    if (b.device_count != 0) continue;
    if (!header) fmt::print("\nbackends without devices:\n");
    header = true;
    fmt::print("  {} (plugin {}): {}\n", b.name, b.plugin,
               b.no_device_reason.empty() ? "no reason given" : b.no_device_reason);
  }
}

int run_devices(const DevicesOptions& options) {
  const LoadedRuntime runtime = load_plugins(options.plugins);
  const std::vector<LoadedPlugin>& plugins = runtime.plugins;
  const DevicesReport report = gather(options.plugins.device);
  if (options.explain)
    fmt::print("{}", explain_device_choice(runtime));
  else if (options.json)
    fmt::print("{}\n", to_json(report).dump(2));
  else
    print_text(report);
  int code = kExitOk;
  for (const LoadedPlugin& p : plugins)
    if (p.explicit_file &&
        (p.report.status == LoadStatus::Failed || p.report.status == LoadStatus::Refused)) {
      fmt::print(stderr, "backplane: plugin {} {}: {}\n", p.report.path, to_string(p.report.status),
                 p.report.message);
      code = kExitFailure;
    }
  return code;
}

}  // namespace

void add_devices_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<DevicesOptions>();
  CLI::App* command = app.add_subcommand(
      "devices",
      "List every device of every loaded backend under its selector, with its properties, "
      "dtypes and the default device; backends without devices say why");
  command->add_flag(
      "--json", options->json,
      "Print JSON: {host_cpu, default: selector|null, devices: [{selector, backend, plugin, "
      "name, vendor, total_memory, compute_units, architecture, attributes: {key: value}, "
      "host_accessible, dtypes: [name], default}], backends_without_devices: [{backend, plugin, "
      "reason}]}");
  command
      ->add_flag("--explain", options->explain,
                 "Print how the config, the environment and the selector chose the default "
                 "device: the selector and where it was set, each candidate device kept or "
                 "dropped and why, and the plugins never opened")
      ->excludes("--json");
  add_device_option(*command, options->plugins, "Only the devices this selector picks");
  add_plugin_options(*command, options->plugins);
  command->footer(
      "In the table, MEMORY 'unknown' means the plugin reported 0 bytes, DTYPES 'int' all "
      "integer types and 'float' all floating types, and '*' marks the default device.\n"
      "Exit status: 0; 1 when a --plugin file failed to load or was refused; 2 for a bad "
      "command line.\n");
  command->callback([options, &exit_code] { exit_code = run_devices(*options); });
}

}  // namespace bp::cli
