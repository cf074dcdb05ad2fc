// ze_result_t names and the error every failed ze call becomes: messages name the call, the
// result by name and number, and what was attempted, so a report from a machine we cannot
// reach says what went wrong.
#include "level_zero.hpp"

#include <backplane/sdk/error.hpp>

#include <cstdio>

namespace bp::level_zero {

namespace {

// The names of the results of the 1.0 core API (a newer driver may return others: they are
// printed by number).
const char* known_name(ze_result_t result) {
#define BP_ZE_RESULT(name) \
  case name:               \
    return #name;
  switch (result) {
    BP_ZE_RESULT(ZE_RESULT_SUCCESS)
    BP_ZE_RESULT(ZE_RESULT_NOT_READY)
    BP_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_LOST)
    BP_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    BP_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    BP_ZE_RESULT(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)
    BP_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)
    BP_ZE_RESULT(ZE_RESULT_ERROR_NOT_AVAILABLE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNINITIALIZED)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SIZE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    BP_ZE_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)
    BP_ZE_RESULT(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
    BP_ZE_RESULT(ZE_RESULT_ERROR_UNKNOWN)
    default:
      return nullptr;
  }
#undef BP_ZE_RESULT
}

bool out_of_memory(ze_result_t result) {
  return result == ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY ||
         result == ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
}

}  // namespace

std::string result_name(ze_result_t result) {
  char number[16];
  std::snprintf(number, sizeof number, "0x%x", static_cast<unsigned>(result));
  const char* name = known_name(result);
  return name ? std::string(name) + " (" + number + ")" : std::string("ze_result_t ") + number;
}

void check(ze_result_t result, const char* call, const std::string& what) {
  if (result == ZE_RESULT_SUCCESS) return;
  throw sdk::Error(
      out_of_memory(result) ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
      std::string("level_zero: ") + call + " failed with " + result_name(result) + ": " + what);
}

}  // namespace bp::level_zero
