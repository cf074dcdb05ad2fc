// The explanation of the default device's choice (device_choice.hpp). It asks the selector
// the runtime uses (Config::default_selector, DeviceSelector::select), so it cannot tell
// another story than the choice itself: a test compares its verdict with default_device().
#include "device_choice.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>
#include <backplane/dispatch/selector.hpp>
#include <backplane/tensor_api.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace bp::cli {
namespace {

std::string join(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// Which selector decides, and where it was set.
std::string selector_source(const Config& config) {
  const auto& d = config.devices;
  std::string out =
      fmt::format("config file: {}\n",
                  config.source.empty() ? "none found (defaults only)" : config.source.string());
  if (d.default_device.value)
    return out + fmt::format("selector: '{}' from devices.default ({})\n",
                             d.default_device.value->str(), d.default_device.origin);
  if (!d.priority.value.is_default())
    return out + fmt::format("selector: '{}' from devices.priority ({})\n", d.priority.value.str(),
                             d.priority.origin);
  return out + fmt::format(
                   "selector: none set (no --device, BACKPLANE_DEVICE, devices.default or "
                   "devices.priority): the built-in order {}, then out-of-tree backends, "
                   "reference last\n",
                   join(DeviceSelector::default_priority()));
}

// Why the selector leaves out `device` of `backend`, or "" when it keeps it.
std::string drop_reason(const DeviceSelector& selector, const BackendInfo& backend, int index) {
  const auto& excluded = selector.excluded();
  if (std::find(excluded.begin(), excluded.end(), backend.name) != excluded.end())
    return fmt::format("the selector excludes '!{}'", backend.name);
  if (selector.items().empty()) return "";
  bool listed = false;
  for (const DeviceSelector::Item& item : selector.items()) {
    if (item.backend != backend.name) continue;
    listed = true;
    if (!item.index || *item.index == index) return "";
  }
  if (!listed) return fmt::format("the selector does not list backend '{}'", backend.name);
  return fmt::format("the selector lists other devices of '{}'", backend.name);
}

std::string candidates(const DeviceSelector& selector, const std::vector<BackendInfo>& backends) {
  const std::vector<Device> kept = selector.select(backends);
  std::string out = "candidates, in the order the selector tries them:\n";
  for (size_t i = 0; i < kept.size(); ++i)
    out += fmt::format("  {:<16} kept{}\n", kept[i].str(),
                       i == 0 ? ": the first kept device is the default" : "");
  for (const BackendInfo& b : backends) {
    if (b.device_count == 0) {
      out += fmt::format("  {:<16} dropped: the backend has no device ({})\n", b.name + ":*",
                         b.no_device_reason.empty() ? "no reason given" : b.no_device_reason);
      continue;
    }
    for (int i = 0; i < b.device_count; ++i) {
      const Device d(b.type, static_cast<int16_t>(i));
      if (std::find(kept.begin(), kept.end(), d) != kept.end()) continue;
      out += fmt::format("  {:<16} dropped: {}\n", d.str(), drop_reason(selector, b, i));
    }
  }
  // Listed, but no such device: nothing registered the backend (its plugin is absent,
  // skipped or broken), or the backend has fewer devices.
  for (const DeviceSelector::Item& item : selector.items()) {
    const std::string text = item.backend + (item.index ? ":" + std::to_string(*item.index) : ":*");
    const auto b = std::find_if(backends.begin(), backends.end(),
                                [&](const BackendInfo& info) { return info.name == item.backend; });
    if (b == backends.end())
      out += fmt::format("  {:<16} dropped: no loaded plugin registered backend '{}'\n", text,
                         item.backend);
    else if (item.index && *item.index >= b->device_count && b->device_count > 0)
      out += fmt::format("  {:<16} dropped: backend '{}' has {} device(s)\n", text, b->name,
                         b->device_count);
  }
  return out;
}

// Plugins the runtime never opened (skipped, with the setting that excluded them) or could
// not use (refused, failed).
std::string unopened_plugins(const std::vector<LoadedPlugin>& plugins) {
  std::string out;
  for (const LoadedPlugin& p : plugins) {
    const PluginLoadReport& r = p.report;
    if (r.status == LoadStatus::Loaded || r.status == LoadStatus::NoDevices) continue;
    const std::string name = r.path.empty() ? r.plugin : r.path;
    out += fmt::format("  {}: {}{}{}\n", name,
                       r.status == LoadStatus::Skipped ? "never opened" : to_string(r.status),
                       r.message.empty() ? "" : ": ", r.message);
  }
  return out.empty() ? "plugins never opened or unusable: none\n"
                     : "plugins never opened or unusable:\n" + out;
}

}  // namespace

std::string explain_device_choice(const LoadedRuntime& runtime) {
  const DeviceSelector& selector = runtime.config.default_selector();
  const std::vector<BackendInfo> available = backends();
  std::string out = "how the default device is chosen\n" + selector_source(runtime.config);
  out += candidates(selector, available);
  out += unopened_plugins(runtime.plugins);
  try {
    out += fmt::format("default device: {}\n", default_device().str());
  } catch (const Error& e) {
    out += fmt::format("no default device: {}\n", e.what());
  }
  return out;
}

}  // namespace bp::cli
