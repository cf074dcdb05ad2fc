// Device-API conformance: checks of a device's raw C interface (bp_device_api) — alloc and
// free from 0 bytes to large, alignment, copies in each direction with offsets, stream
// ordering and synchronisation, and error paths. Each check is one case of the suite, id
// `device_api/bytes/<name>`, run in a child process like every other case.
#pragma once

#include <backplane/backplane.hpp>

#include <functional>
#include <string>
#include <vector>

namespace bp::conformance {

inline constexpr const char* kDeviceApiOp = "device_api";
inline constexpr const char* kDeviceApiDtype = "bytes";

struct DeviceCheck {
  std::string name;  // a-z 0-9 '_' '.'
  bool quick = true;
  // Runs the check against the device; returns "" when it passes, else a message that says
  // what was called, with which arguments, and what was wrong.
  std::function<std::string(const RawDeviceApi&)> run;
};

// Every device check, in a fixed order.
const std::vector<DeviceCheck>& device_checks();

}  // namespace bp::conformance
