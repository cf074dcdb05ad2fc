// Device discovery: zeInit, every device of every driver, their properties and a context
// per driver. A failed zeInit ends discovery before any other ze call: with Intel's driver
// installed on a machine without its GPU, zeDriverGet after a failed zeInit crashes inside
// the driver, and the plugin must load and say "no devices" there (docs/level-zero.md).
#include "level_zero.hpp"

#include <backplane/sdk/error.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace bp::level_zero {

namespace {

std::string vendor_name(uint32_t vendor_id) {
  switch (vendor_id) {
    case 0x8086:
      return "Intel";
    case 0x10de:
      return "NVIDIA";
    case 0x1002:
      return "AMD";
    default: {
      char text[32];
      std::snprintf(text, sizeof text, "PCI vendor 0x%04x", vendor_id);
      return text;
    }
  }
}

// The first command queue group that runs kernels (it also copies).
uint32_t compute_ordinal(ze_device_handle_t device, const std::string& name) {
  uint32_t count = 0;
  check(zeDeviceGetCommandQueueGroupProperties(device, &count, nullptr),
        "zeDeviceGetCommandQueueGroupProperties", "counting the queue groups of " + name);
  std::vector<ze_command_queue_group_properties_t> groups(count);
  for (auto& g : groups) g.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  check(zeDeviceGetCommandQueueGroupProperties(device, &count, groups.data()),
        "zeDeviceGetCommandQueueGroupProperties", "reading the queue groups of " + name);
  for (uint32_t i = 0; i < count; ++i)
    if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) return i;
  throw sdk::Error(BP_ERR_DEVICE, "level_zero: " + name +
                                      " has no command queue group that "
                                      "runs kernels");
}

uint64_t total_memory(ze_device_handle_t device, const std::string& name) {
  uint32_t count = 0;
  check(zeDeviceGetMemoryProperties(device, &count, nullptr), "zeDeviceGetMemoryProperties",
        "counting the memories of " + name);
  std::vector<ze_device_memory_properties_t> memories(count);
  for (auto& m : memories) m.stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
  check(zeDeviceGetMemoryProperties(device, &count, memories.data()), "zeDeviceGetMemoryProperties",
        "reading the memories of " + name);
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) total += memories[i].totalSize;
  return total;
}

DeviceInfo describe(ze_driver_handle_t driver, ze_context_handle_t context,
                    ze_device_handle_t device) {
  DeviceInfo info;
  info.driver = driver;
  info.context = context;
  info.handle = device;

  ze_device_properties_t props{};
  props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  check(zeDeviceGetProperties(device, &props), "zeDeviceGetProperties", "reading a device");
  const std::string name(props.name, strnlen(props.name, sizeof props.name));

  ze_device_compute_properties_t compute{};
  compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  check(zeDeviceGetComputeProperties(device, &compute), "zeDeviceGetComputeProperties",
        "reading the compute limits of " + name);
  ze_device_module_properties_t modules{};
  modules.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  check(zeDeviceGetModuleProperties(device, &modules), "zeDeviceGetModuleProperties",
        "reading the kernel capabilities of " + name);

  info.vendor_id = props.vendorId;
  info.compute_ordinal = compute_ordinal(device, name);
  info.max_group_size = std::max<uint32_t>(compute.maxTotalGroupSize, 1);
  info.max_group_count[0] = compute.maxGroupCountX;
  info.max_group_count[1] = compute.maxGroupCountY;
  info.max_group_count[2] = compute.maxGroupCountZ;
  info.max_alloc_size = props.maxMemAllocSize;
  info.spirv_version = modules.spirvVersionSupported;
  info.fp64 = (modules.flags & ZE_DEVICE_MODULE_FLAG_FP64) != 0;

  bp_device_props& p = info.props;
  p.struct_size = sizeof p;
  std::strncpy(p.name, name.c_str(), sizeof p.name - 1);
  std::strncpy(p.vendor, vendor_name(props.vendorId).c_str(), sizeof p.vendor - 1);
  static_assert(sizeof p.uuid == sizeof props.uuid.id);
  std::memcpy(p.uuid, props.uuid.id, sizeof p.uuid);
  p.total_memory = total_memory(device, name);
  p.free_memory = 0;  // only Sysman (zes) knows; not worth a second loader for a number
  // Intel's OpenCL driver reports its execution units as compute units; so do we.
  p.compute_units = props.numSlices * props.numSubslicesPerSlice * props.numEUsPerSubslice;
  p.flags = 0;  // USM device memory: the host reaches it only through copies
  // f16 and bf16 are stored as 16-bit values and computed in float by the kernels (core
  // OpenCL C: vload_half/vstore_half), so every device has them; f64 needs the FP64 flag.
  p.dtypes = BP_DTYPES_ALL;
  if (!info.fp64) p.dtypes &= ~BP_DTYPE_BIT(BP_DTYPE_F64);
  return info;
}

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? "; " : "") + parts[i];
  return text;
}

// Opens the GPUs of one driver in one context of their own, adding them to `backend`; what
// fails is added to `problems` (the no-device reason when no driver gives a device).
void open_driver(Backend& backend, ze_driver_handle_t driver, uint32_t index,
                 const std::string& kernel_dir, std::vector<std::string>& problems) {
  const std::string driver_name = "driver " + std::to_string(index);
  uint32_t count = 0;
  ze_result_t result = zeDeviceGet(driver, &count, nullptr);
  if (result != ZE_RESULT_SUCCESS || count == 0) {
    problems.push_back(driver_name + (result == ZE_RESULT_SUCCESS
                                          ? ": no GPU"
                                          : ": zeDeviceGet failed: " + result_name(result)));
    return;
  }
  std::vector<ze_device_handle_t> handles(count);
  result = zeDeviceGet(driver, &count, handles.data());
  if (result != ZE_RESULT_SUCCESS) {
    problems.push_back(driver_name + ": zeDeviceGet failed: " + result_name(result));
    return;
  }
  ze_context_desc_t context_desc{};
  context_desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ze_context_handle_t context = nullptr;
  result = zeContextCreate(driver, &context_desc, &context);
  if (result != ZE_RESULT_SUCCESS) {
    problems.push_back(driver_name + ": zeContextCreate failed: " + result_name(result));
    return;
  }
  bool used = false;
  for (ze_device_handle_t handle : handles) {
    try {
      backend.devices.push_back(
          std::make_unique<Device>(describe(driver, context, handle), kernel_dir));
      used = true;
    } catch (const std::exception& e) {
      problems.push_back(driver_name + ": " + e.what());
    }
  }
  if (used)
    backend.contexts.push_back(context);
  else
    zeContextDestroy(context);
}

}  // namespace

void discover(Backend& backend, const std::string& kernel_dir) {
  const ze_result_t init = zeInit(ZE_INIT_FLAG_GPU_ONLY);
  if (init != ZE_RESULT_SUCCESS) {
    // No other ze call from here on (see the top of this file).
    backend.no_device_reason = "zeInit failed: " + result_name(init);
    if (init == ZE_RESULT_ERROR_UNINITIALIZED)
      backend.no_device_reason +=
          ": no Level Zero driver found, or none found a GPU (install one, e.g. "
          "intel-level-zero-gpu)";
    return;
  }

  uint32_t driver_count = 0;
  ze_result_t result = zeDriverGet(&driver_count, nullptr);
  if (result != ZE_RESULT_SUCCESS || driver_count == 0) {
    backend.no_device_reason = result == ZE_RESULT_SUCCESS
                                   ? "no Level Zero driver (zeDriverGet found none)"
                                   : "zeDriverGet failed: " + result_name(result);
    return;
  }
  std::vector<ze_driver_handle_t> drivers(driver_count);
  result = zeDriverGet(&driver_count, drivers.data());
  if (result != ZE_RESULT_SUCCESS) {
    backend.no_device_reason = "zeDriverGet failed: " + result_name(result);
    return;
  }

  std::vector<std::string> problems;
  for (uint32_t d = 0; d < driver_count; ++d)
    open_driver(backend, drivers[d], d, kernel_dir, problems);

  for (const auto& device : backend.devices) backend.dtypes |= device->info().props.dtypes;
  if (backend.devices.empty())
    backend.no_device_reason = "no usable Level Zero device: " + join(problems);
}

void release(Backend& backend) {
  backend.devices.clear();  // before their contexts
  for (ze_context_handle_t context : backend.contexts) zeContextDestroy(context);
  backend.contexts.clear();
  backend.no_device_reason.clear();
  backend.dtypes = 0;
}

}  // namespace bp::level_zero
