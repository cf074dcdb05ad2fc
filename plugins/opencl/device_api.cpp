// The OpenCL backend's device API (plugin.cpp registers it): devices from discover(),
// buffers behind virtual addresses, copies on each device's in-order queue. Host-to-device and
// device-to-host copies block (the host memory may be freed right after the call);
// device-to-device copies are queued, and synchronize waits for the queue.
#include "opencl.hpp"

#include <backplane/sdk/error.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace bp::opencl {

const bp_host_api* g_host = nullptr;

bp_status fail(bp_status code, const std::string& message) {
  if (g_host) g_host->set_error(g_host->host, code, message.c_str());
  return code;
}

std::string cl_error_name(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND (-1)";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE (-4)";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES (-5)";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY (-6)";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE (-11)";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE (-30)";
    case CL_INVALID_CONTEXT:
      return "CL_INVALID_CONTEXT (-34)";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT (-38)";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE (-61)";
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

Backend g_backend;

namespace {

Device* device_at(int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= g_backend.devices.size()) return nullptr;
  return g_backend.devices[static_cast<size_t>(index)].get();
}

bp_status bad_index(int32_t index) {
  return fail(BP_ERR_INVALID_ARGUMENT, "opencl: no device " + std::to_string(index) + " (" +
                                           std::to_string(g_backend.devices.size()) +
                                           " device(s))");
}

bp_status device_count(void*, int32_t* out_count, const char** out_reason) {
  *out_count = static_cast<int32_t>(g_backend.devices.size());
  if (out_reason)
    *out_reason = g_backend.devices.empty() ? g_backend.no_device_reason.c_str() : nullptr;
  return BP_OK;
}

bp_status device_properties(void*, int32_t index, bp_device_props* out) {
  Device* d = device_at(index);
  if (!d) return bad_index(index);
  const size_t size = std::min(out->struct_size, sizeof(bp_device_props));
  std::memcpy(out, &d->props, size);
  out->struct_size = size;
  return BP_OK;
}

bp_status device_alloc(void*, int32_t index, size_t bytes, size_t alignment, void** out) {
  Device* d = device_at(index);
  if (!d) return bad_index(index);
  return d->memory.allocate(d->context, bytes, alignment, out);
}

bp_status device_free(void*, int32_t index, void* ptr) {
  Device* d = device_at(index);
  if (!d) return bad_index(index);
  return d->memory.release(ptr);
}

bp_status region_of(const Device& d, const void* address, size_t bytes, const char* what,
                    DeviceMemory::Region* out) {
  if (!d.memory.find(address, out))
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string("opencl: copy: the ") + what + " address is not device memory");
  if (bytes > out->size)
    return fail(BP_ERR_INVALID_ARGUMENT, std::string("opencl: copy: ") + std::to_string(bytes) +
                                             " bytes run past the end of the " + what +
                                             " buffer (" + std::to_string(out->size) +
                                             " bytes left)");
  return BP_OK;
}

bp_status device_copy(void*, int32_t index, bp_copy_kind kind, void* dst, const void* src,
                      size_t bytes, void*) {
  Device* d = device_at(index);
  if (!d) return bad_index(index);
  if (bytes == 0) return BP_OK;
  DeviceMemory::Region from{}, to{};
  cl_int err = CL_SUCCESS;
  switch (kind) {
    case BP_COPY_HOST_TO_DEVICE:
      if (bp_status s = region_of(*d, dst, bytes, "destination", &to); s != BP_OK) return s;
      err = clEnqueueWriteBuffer(d->queue, to.buffer, CL_TRUE, to.offset, bytes, src, 0, nullptr,
                                 nullptr);
      break;
    case BP_COPY_DEVICE_TO_HOST:
      if (bp_status s = region_of(*d, src, bytes, "source", &from); s != BP_OK) return s;
      err = clEnqueueReadBuffer(d->queue, from.buffer, CL_TRUE, from.offset, bytes, dst, 0, nullptr,
                                nullptr);
      break;
    case BP_COPY_DEVICE_TO_DEVICE:
      if (bp_status s = region_of(*d, src, bytes, "source", &from); s != BP_OK) return s;
      if (bp_status s = region_of(*d, dst, bytes, "destination", &to); s != BP_OK) return s;
      err = clEnqueueCopyBuffer(d->queue, from.buffer, to.buffer, from.offset, to.offset, bytes, 0,
                                nullptr, nullptr);
      break;
    default:
      return fail(BP_ERR_INVALID_ARGUMENT, "opencl: unknown copy kind " + std::to_string(kind));
  }
  if (err != CL_SUCCESS)
    return fail(BP_ERR_DEVICE, "opencl: copy of " + std::to_string(bytes) + " bytes failed with " +
                                   cl_error_name(err));
  return BP_OK;
}

bp_status device_synchronize(void*, int32_t index, void*) {
  Device* d = device_at(index);
  if (!d) return bad_index(index);
  if (cl_int err = clFinish(d->queue); err != CL_SUCCESS)
    return fail(BP_ERR_DEVICE, "opencl: clFinish failed with " + cl_error_name(err));
  return BP_OK;
}

}  // namespace

const bp_device_api kDeviceApi = {
    sizeof(bp_device_api), device_count, device_properties, device_alloc,       device_free,
    device_copy,           nullptr,      nullptr,           device_synchronize, nullptr};

clk::ComputeDevice* compute_device_of(int32_t index) {
  Device* d = device_at(index);
  return d ? d->compute.get() : nullptr;
}

}  // namespace bp::opencl
