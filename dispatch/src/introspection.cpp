// The public runtime API (runtime.hpp): plugin registration, backends, devices and the
// computed dispatch table of an op.
#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <cstddef>
#include <fstream>
#include <utility>

namespace bp {

std::string_view to_string(LoadStatus s) {
  switch (s) {
    case LoadStatus::Loaded:
      return "loaded";
    case LoadStatus::Refused:
      return "refused";
    case LoadStatus::Failed:
      return "failed";
    case LoadStatus::NoDevices:
      return "no-devices";
    case LoadStatus::Skipped:
      return "skipped";
  }
  return "?";
}

PluginLoadReport register_plugin(const bp_plugin_descriptor* descriptor, std::string_view origin) {
  return detail::Runtime::get().add_plugin(descriptor, origin);
}

void unregister_plugin(std::string_view plugin_name) {
  detail::Runtime::get().remove_plugin(plugin_name);
}

std::vector<PluginLoadReport> plugin_reports() {
  return detail::Runtime::get().reports();
}

std::vector<BackendInfo> backends() {
  return detail::Runtime::get().backend_infos();
}

std::vector<DeviceInfo> devices() {
  std::vector<DeviceInfo> out;
  for (const BackendInfo& b : backends())
    for (int i = 0; i < b.device_count; ++i)
      out.push_back(device_info(Device(b.type, static_cast<int16_t>(i))));
  return out;
}

DeviceInfo device_info(Device device) {
  detail::Backend& b = detail::Runtime::get().backend_for(device);
  const bp_device_props& p = b.props[static_cast<size_t>(device.index)];
  return DeviceInfo{device,         p.name,          p.vendor,
                    p.total_memory, p.compute_units, (p.flags & BP_DEVICE_HOST_ACCESSIBLE) != 0,
                    p.dtypes,       p.architecture};
}

std::vector<DeviceAttribute> device_attributes(Device device) {
  detail::Backend& b = detail::Runtime::get().backend_for(device);
  constexpr size_t kSlotEnd =
      offsetof(bp_device_api, device_attributes) + sizeof(bp_device_api::device_attributes);
  if (b.api->struct_size < kSlotEnd || !b.api->device_attributes) return {};
  // A plugin writes at most the capacity; the last byte is NUL whatever it wrote.
  char text[1024] = {};
  detail::thread_plugin_error() = {};
  const bp_status s = b.api->device_attributes(b.ctx, device.index, text, sizeof text);
  detail::PluginError err = std::exchange(detail::thread_plugin_error(), {});
  if (s != BP_OK)
    throw Error(ErrorCode::Backend,
                fmt::format("{}: device_attributes returned status {}{}", device.str(), s,
                            err.message.empty() ? std::string() : ": " + err.message));
  text[sizeof text - 1] = '\0';
  return parse_device_attributes(text);
}

std::vector<DeviceAttribute> parse_device_attributes(std::string_view rest) {
  std::vector<DeviceAttribute> out;
  while (!rest.empty()) {
    const size_t start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    const std::string_view pair = rest.substr(0, rest.find(' '));
    rest.remove_prefix(pair.size());
    const size_t eq = pair.find('=');
    out.push_back({std::string(pair.substr(0, eq)), eq == std::string_view::npos
                                                        ? std::string()
                                                        : std::string(pair.substr(eq + 1))});
  }
  return out;
}

std::string device_attribute(const std::vector<DeviceAttribute>& attributes, std::string_view key) {
  for (const DeviceAttribute& a : attributes)
    if (a.key == key) return a.value;
  return {};
}

std::string host_cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos && colon + 2 <= line.size()) return line.substr(colon + 2);
    }
  return "unknown CPU";
}

std::string format_device_attributes(const std::vector<DeviceAttribute>& attributes) {
  std::string out;
  for (const DeviceAttribute& a : attributes) {
    if (!out.empty()) out += ' ';
    out += a.value.empty() ? a.key : a.key + "=" + a.value;
  }
  return out;
}

RawDeviceApi raw_device_api(Device device) {
  detail::Backend& b = detail::Runtime::get().backend_for(device);
  return RawDeviceApi{b.api, b.ctx, device.index, b.name};
}

namespace detail {
std::string dtype_mask_names(uint32_t mask) {
  if (mask == BP_DTYPES_ALL) return "all dtypes";
  std::vector<std::string_view> names;
  for (int t = 0; t < kNumScalarTypes; ++t)
    if (mask & (1u << t)) names.push_back(dtype_name(static_cast<ScalarType>(t)));
  return fmt::format("{}", fmt::join(names, ", "));
}
}  // namespace detail

std::vector<OpTableEntry> op_table(std::string_view op_name) {
  const OpDef& op = Catalog::get().at(op_name);
  detail::Runtime& rt = detail::Runtime::get();
  const detail::OpTable& table = rt.table(op.id);
  std::vector<OpTableEntry> out;
  for (const BackendInfo& b : backends()) {
    const detail::KernelSlot& slot = table.slots[b.type];
    OpTableEntry e;
    e.backend = b.name;
    if (slot.fn) {
      e.kind = EntryKind::Kernel;
      e.plugin = rt.plugin_name(slot.plugin);
      e.dtypes = slot.dtypes;
    } else if (op.kind == OpKind::Composite) {
      e.kind = EntryKind::Composite;
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string dump_op_table(std::string_view op_name) {
  const OpDef& op = Catalog::get().at(op_name);
  std::string out =
      fmt::format("{} ({})\n  schema: {}\n", op.name,
                  op.kind == OpKind::Primitive ? "primitive" : "composite", op.schema.str());
  for (const OpTableEntry& e : op_table(op_name)) {
    switch (e.kind) {
      case EntryKind::Kernel:
        out += fmt::format("  {:<12} kernel     from plugin '{}' for {}\n", e.backend, e.plugin,
                           detail::dtype_mask_names(e.dtypes));
        break;
      case EntryKind::Composite:
        out += fmt::format("  {:<12} composite  decomposition in core\n", e.backend);
        break;
      case EntryKind::Missing:
        out += fmt::format("  {:<12} missing\n", e.backend);
        break;
    }
  }
  return out;
}

}  // namespace bp
