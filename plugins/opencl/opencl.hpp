// The OpenCL backend's shared state: every device of every platform the ICD loader found,
// each with its own context and in-order queue, and the device memory of each device
// behind "virtual addresses" (device_memory.cpp). docs/opencl.md explains the design.
#pragma once

#include "compute_device.hpp"

#include <CL/cl.h>
#include <backplane/plugin.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bp::opencl {

// Reports an error through the host's set_error and returns `code`.
bp_status fail(bp_status code, const std::string& message);
// "CL_OUT_OF_RESOURCES (-5)" for an OpenCL error code.
std::string cl_error_name(cl_int code);

// Device memory behind virtual addresses. The runtime treats a device pointer as an
// address (it adds a view's byte offset to a storage's base before a copy), but an OpenCL
// buffer is a handle. So each buffer gets a range of a private address space that nothing
// dereferences; an address inside a range names (buffer, offset).
class DeviceMemory {
 public:
  struct Region {
    cl_mem buffer = nullptr;
    size_t offset = 0;  // bytes from the start of the buffer
    size_t size = 0;    // bytes from `offset` to the end of the buffer
  };
  // Creates a buffer of `bytes` (at least 1) and returns its address, aligned to `alignment`.
  bp_status allocate(cl_context context, size_t bytes, size_t alignment, void** out);
  bp_status release(void* address);
  // The buffer and offset of an address inside an allocation; false when it is in none.
  bool find(const void* address, Region* out) const;

 private:
  struct Allocation {
    cl_mem buffer;
    size_t size;
  };
  mutable std::mutex mu_;
  std::map<uintptr_t, Allocation> allocations_;  // by base address
  uintptr_t next_ = uintptr_t{1} << 44;          // never a host address on x86-64 Linux
};

struct Device {
  cl_platform_id platform = nullptr;
  cl_device_id id = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  bp_device_props props{};
  std::string platform_name;
  DeviceMemory memory;
  std::unique_ptr<clk::ComputeDevice> compute;  // the shared kernels (compute.hpp)
};

struct Backend {
  std::vector<std::unique_ptr<Device>> devices;
  std::string no_device_reason;  // when devices is empty
};

// Finds every device of every platform and creates its context and queue. A machine with
// no platform, or platforms without devices, gives an empty list and the reason.
void discover(Backend& backend);
void release(Backend& backend);

extern const bp_host_api* g_host;

// The backend's devices and the C device API over them (device_api.cpp), which plugin.cpp
// registers; compute_device_of is the DeviceLookup of the shared ops (compute_ops.hpp).
extern Backend g_backend;
extern const bp_device_api kDeviceApi;
clk::ComputeDevice* compute_device_of(int32_t index);

}  // namespace bp::opencl
