#include "device_attributes_text.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>

namespace bp::cli {

std::string attributes_line(Device device) {
  try {
    return format_device_attributes(device_attributes(device));
  } catch (const Error& e) {
    return std::string("(attributes failed: ") + e.what() + ")";
  }
}

nlohmann::ordered_json attributes_json(Device device) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  try {
    for (const DeviceAttribute& a : device_attributes(device)) out[a.key] = a.value;
  } catch (const Error& e) {
    out = {{"error", e.what()}};
  }
  return out;
}

}  // namespace bp::cli
