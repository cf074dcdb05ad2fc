// The device-API checks of device enumeration: device_count and device_properties.
#include "checks.hpp"

namespace bp::conformance::device_api {

void check_properties(const Dev& dev) {
  int32_t count = -1;
  const char* reason = nullptr;
  const bp_status s = dev.api().device_count(dev.ctx(), &count, &reason);
  if (s != BP_OK) fail(fmt::format("device_count returned {}", status_str(s)));
  if (count < dev.index() + 1)
    fail(fmt::format("device_count returned {} devices, but device index {} is in use", count,
                     dev.index()));
  bp_device_props props{};
  props.struct_size = sizeof props;
  const bp_status ps = dev.api().device_properties(dev.ctx(), dev.index(), &props);
  const std::string call = fmt::format("device_properties(index {})", dev.index());
  if (ps != BP_OK) fail(fmt::format("{} returned {}", call, status_str(ps)));
  if (props.struct_size != sizeof props)
    fail(fmt::format("{} changed struct_size from {} to {} (it belongs to the caller)", call,
                     sizeof props, props.struct_size));
  if (std::memchr(props.name, '\0', sizeof props.name) == nullptr)
    fail(
        fmt::format("{}: name is not NUL-terminated within its {} bytes", call, sizeof props.name));
  if (props.name[0] == '\0') fail(fmt::format("{}: name is empty", call));
  if (std::memchr(props.vendor, '\0', sizeof props.vendor) == nullptr)
    fail(fmt::format("{}: vendor is not NUL-terminated within its {} bytes", call,
                     sizeof props.vendor));
  if (props.dtypes == 0) fail(fmt::format("{}: dtypes mask is 0 (no dtype supported)", call));
  if ((props.dtypes & ~BP_DTYPES_ALL) != 0)
    fail(fmt::format("{}: dtypes mask 0x{:x} has bits beyond BP_DTYPES_ALL (0x{:x})", call,
                     props.dtypes, BP_DTYPES_ALL));
  if (props.total_memory != 0 && props.free_memory > props.total_memory)
    fail(fmt::format("{}: free_memory {} exceeds total_memory {}", call, props.free_memory,
                     props.total_memory));
}

void check_properties_bad_index(const Dev& dev) {
  int32_t count = 0;
  const char* reason = nullptr;
  const bp_status s = dev.api().device_count(dev.ctx(), &count, &reason);
  if (s != BP_OK) fail(fmt::format("device_count returned {}", status_str(s)));
  for (const int32_t bad : {count, count + 7, int32_t{-1}}) {
    bp_device_props props{};
    props.struct_size = sizeof props;
    const bp_status ps = dev.api().device_properties(dev.ctx(), bad, &props);
    if (ps == BP_OK)
      fail(
          fmt::format("device_properties(index {}) returned BP_OK for an index out of range "
                      "(device_count is {})",
                      bad, count));
  }
}

}  // namespace bp::conformance::device_api
