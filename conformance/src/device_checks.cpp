// The device-API checks of the conformance suite: each one drives a device's raw C table
// (bp_device_api, as its plugin registered it) with no dispatcher, tensor or caching
// allocator in between, and says which call, with which arguments, went wrong.
//
// How results are observed: on a device whose memory the host may access
// (BP_DEVICE_HOST_ACCESSIBLE), buffers are filled and read back with plain memcpy, so a
// check of one copy direction does not depend on the other direction being right; on other
// devices they go through host-to-device and device-to-host copies, and a broken copy shows
// up in every check that reads memory back. Device pointers are offset with byte arithmetic,
// as the runtime does for tensors (data_ptr() + offset is passed to copy).
//
// Decisions on what the ABI (plugin.h) leaves open:
//   - free(NULL): the ABI does not define it; any status is accepted, only a crash fails.
//   - alloc with an alignment that is not a power of two: plugin.h states the alignment
//     *is* a power of two, a precondition on the caller (the runtime never passes another),
//     not an input the plugin must validate. So rejecting it with an error status passes,
//     and so does accepting it, provided the memory is usable and freeable; returning OK
//     with a NULL pointer for a non-zero size fails, as does a crash.
//   - streams: stream_create and stream_destroy are optional but come as a pair; a device
//     with neither passes the stream checks on its default stream alone. synchronize is
//     optional (work is then synchronous).
//   - a check that does not apply to a device (256 MiB on a device with less memory)
//     passes.
//
// The checks live in conformance/src/device_api/, by the part of the table they drive; this
// file names them and says which belong to the quick suite.
#include "backplane/conformance/device_checks.hpp"

#include "device_api/checks.hpp"

#include <fmt/format.h>

#include <exception>
#include <string>

namespace bp::conformance {
namespace {

using namespace device_api;

// Runs a check body, turning its failure (or any exception) into the check's message.
template <typename Body>
std::function<std::string(const RawDeviceApi&)> check(Body body) {
  return [body](const RawDeviceApi& raw) -> std::string {
    if (raw.api == nullptr) return "the device has no device API table";
    try {
      const Dev dev(raw);
      body(dev);
      return {};
    } catch (const CheckFailure& f) {
      return f.message;
    } catch (const std::exception& e) {
      return fmt::format("the check threw: {}", e.what());
    }
  };
}

std::vector<DeviceCheck> make_checks() {
  std::vector<DeviceCheck> out;
  auto add = [&](const char* name, bool quick, auto body) {
    out.push_back(DeviceCheck{name, quick, check(body)});
  };
  add("properties", true, check_properties);
  add("properties_bad_index", true, check_properties_bad_index);
  add("alloc_zero_bytes", true, check_alloc_zero);
  add("alloc_one_byte", true, [](const Dev& d) { check_alloc_sizes(d, {1}); });
  add("alloc_odd_sizes", true, [](const Dev& d) {
    check_alloc_sizes(d, {3, 7, 13, 127, 1001, 4097, 65537, 1048579});
  });
  add("alloc_64mib", false, [](const Dev& d) { check_alloc_large(d, 64 * kMiB); });
  add("alloc_256mib", false, check_alloc_256mib);
  add("alignment", true, check_alignment);
  add("alignment_not_power_of_two", true, check_alignment_not_power_of_two);
  add("free_null", true, check_free_null);
  add("allocations_disjoint", true, check_allocations_disjoint);
  add("copy_host_to_device", true, check_copy_host_to_device);
  add("copy_device_to_host", true, check_copy_device_to_host);
  add("copy_device_to_device", true, check_copy_device_to_device);
  add("copy_zero_bytes", true, check_copy_zero_bytes);
  add("streams_create_destroy", true, check_streams_create_destroy);
  add("stream_ordering", true, check_stream_ordering);
  add("stream_and_default_stream", true, check_stream_and_default_stream);
  add("synchronize_default", true, check_synchronize_default);
  return out;
}

}  // namespace

const std::vector<DeviceCheck>& device_checks() {
  static const std::vector<DeviceCheck> checks = make_checks();
  return checks;
}

}  // namespace bp::conformance
