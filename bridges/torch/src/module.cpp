// backplane.torch._C: the Python side of the bridge. `start` runs once when
// backplane/torch/__init__.py is imported: it starts the Backplane runtime as bp::init()
// does for any application (config file, BACKPLANE_* variables, plugin discovery), maps
// the PrivateUse1 indices onto the devices the runtime's selector admits (the default device
// first), reads BACKPLANE_TORCH_FALLBACK and registers the generic kernel for every mapped
// aten operator. The rest reads or changes that state (docs/pytorch.md).
#include "cpu_fallback.hpp"
#include "device_map.hpp"
#include "generic_kernel.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/selector.hpp>

#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace bp::torch_bridge {
namespace {

// The default mapping: the default device first, then every other device the configured
// priority admits, in its order.
std::vector<Device> default_devices(const Config& config) {
  const std::vector<BackendInfo> backends = bp::backends();
  std::vector<Device> devices = config.devices.priority.value.select(backends);
  const Device first = config.default_selector().first_available(backends);
  std::erase(devices, first);
  devices.insert(devices.begin(), first);
  return devices;
}

void start(const std::vector<std::string>& search_paths) {
  InitOptions options;
  for (const std::string& path : search_paths) options.search_paths.emplace_back(path);
  const InitResult result = bp::init(options);
  if (const char* mode = std::getenv("BACKPLANE_TORCH_FALLBACK"); mode != nullptr && *mode) {
    const std::optional<FallbackMode> parsed = parse_fallback_mode(mode);
    BP_CHECK(parsed.has_value(), ErrorCode::InvalidArgument,
             "BACKPLANE_TORCH_FALLBACK='{}': expected 'warn' or 'error'", mode);
    set_fallback_mode(*parsed);
  }
  if (mapped_device_count() == 0) set_mapped_devices(default_devices(result.config));
  register_mapped_operators();
}

std::vector<std::string> device_names() {
  std::vector<std::string> names;
  for (const Device& device : mapped_devices()) names.push_back(device.str());
  return names;
}

void set_devices(const std::vector<std::string>& names) {
  std::vector<Device> devices;
  for (const std::string& name : names) {
    const Device device = Device::parse(name);
    device_info(device);  // throws bp::Error naming an unknown device
    devices.push_back(device);
  }
  set_mapped_devices(devices);
  set_current_index(0);
}

std::string device_name(int index) {
  const std::vector<Device> devices = mapped_devices();
  BP_CHECK(index >= 0 && index < static_cast<int>(devices.size()), ErrorCode::Device,
           "backplane.torch.device_name({}): privateuseone:{} is not mapped ({})", index, index,
           describe_mapping());
  return devices[static_cast<size_t>(index)].str();
}

void set_fallback(const std::string& mode) {
  const std::optional<FallbackMode> parsed = parse_fallback_mode(mode);
  BP_CHECK(parsed.has_value(), ErrorCode::InvalidArgument,
           "backplane.torch.set_fallback('{}'): expected 'warn' or 'error'", mode);
  set_fallback_mode(*parsed);
}

// (aten overload, Backplane op, form) for each mapped operator.
std::vector<std::tuple<std::string, std::string, std::string>> mapped_ops() {
  std::vector<std::tuple<std::string, std::string, std::string>> rows;
  for (const OpMapping& mapping : register_mapped_operators())
    rows.emplace_back(mapping.aten_name, Catalog::get().at(mapping.op).name,
                      std::string(to_string(mapping.form)));
  return rows;
}

}  // namespace
}  // namespace bp::torch_bridge

PYBIND11_MODULE(_C, m) {
  namespace tb = bp::torch_bridge;
  m.doc() = "Backplane devices as PyTorch PrivateUse1 devices (docs/pytorch.md)";
  m.def("start", &tb::start, pybind11::arg("search_paths"));
  m.def("devices", &tb::device_names);
  m.def("set_devices", &tb::set_devices, pybind11::arg("devices"));
  m.def("device_name", &tb::device_name, pybind11::arg("index"));
  m.def("fallback_counts", &tb::fallback_counts);
  m.def("reset_fallback_counts", &tb::reset_fallback_counts);
  m.def("set_fallback", &tb::set_fallback, pybind11::arg("mode"));
  m.def("fallback_mode", [] { return std::string(tb::to_string(tb::fallback_mode())); });
  m.def("mapped_ops", &tb::mapped_ops);
}
