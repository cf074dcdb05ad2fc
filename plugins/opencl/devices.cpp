// Device discovery: every device of every platform the ICD loader reports, its properties
// and the dtypes it can compute (f64 only with cl_khr_fp64).
#include "compute.hpp"
#include "opencl.hpp"

#include <cstring>

namespace bp::opencl {

namespace {

// A string property: `get` is clGetDeviceInfo or clGetPlatformInfo, `object` its handle.
template <class Object, class Info, class Get>
std::string info_string(Get get, Object object, Info what) {
  size_t size = 0;
  if (get(object, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  if (get(object, what, size, text.data(), nullptr) != CL_SUCCESS) return {};
  text.resize(std::strlen(text.c_str()));
  return text;
}

std::string device_string(cl_device_id device, cl_device_info what) {
  return info_string(clGetDeviceInfo, device, what);
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  return info_string(clGetPlatformInfo, platform, what);
}

template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof value, &value, nullptr);
  return value;
}

bool has_extension(const std::string& extensions, const char* name) {
  const std::string padded = " " + extensions + " ";
  return padded.find(std::string(" ") + name + " ") != std::string::npos;
}

// f16 and bf16 are storage formats computed in float (vload_half/vstore_half are core
// OpenCL, cl_khr_fp16 is only needed for half arithmetic), so every device has them; f64
// needs cl_khr_fp64 (conformance then says "unsupported", not "failed").
bp_dtype_mask dtypes_of(cl_device_id device) {
  const std::string extensions = device_string(device, CL_DEVICE_EXTENSIONS);
  bp_dtype_mask mask = BP_DTYPES_ALL;
  if (!has_extension(extensions, "cl_khr_fp64")) mask &= ~BP_DTYPE_BIT(BP_DTYPE_F64);
  return mask;
}

void fill_props(Device& d) {
  bp_device_props& p = d.props;
  p.struct_size = sizeof p;
  std::strncpy(p.name, device_string(d.id, CL_DEVICE_NAME).c_str(), sizeof p.name - 1);
  std::strncpy(p.vendor, device_string(d.id, CL_DEVICE_VENDOR).c_str(), sizeof p.vendor - 1);
  p.total_memory = device_value<cl_ulong>(d.id, CL_DEVICE_GLOBAL_MEM_SIZE);
  p.compute_units = device_value<cl_uint>(d.id, CL_DEVICE_MAX_COMPUTE_UNITS);
  p.flags = 0;  // buffers, not host pointers: the runtime copies through the device API
  p.dtypes = dtypes_of(d.id);
}

}  // namespace

void discover(Backend& backend) {
  cl_uint platform_count = 0;
  cl_int err = clGetPlatformIDs(0, nullptr, &platform_count);
  if (err != CL_SUCCESS || platform_count == 0) {
    backend.no_device_reason =
        err == CL_SUCCESS || err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */
            ? "no OpenCL platform: the ICD loader found no driver (install one, e.g. "
              "pocl-opencl-icd for the CPU, or a GPU vendor's ICD)"
            : "clGetPlatformIDs failed with " + cl_error_name(err);
    return;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  clGetPlatformIDs(platform_count, platforms.data(), nullptr);
  std::vector<std::string> problems;
  for (cl_platform_id platform : platforms) {
    const std::string platform_name = platform_string(platform, CL_PLATFORM_NAME);
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS ||
        count == 0) {
      problems.push_back(platform_name + ": no devices");
      continue;
    }
    std::vector<cl_device_id> ids(count);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      auto d = std::make_unique<Device>();
      d->platform = platform;
      d->id = id;
      d->platform_name = platform_name;
      d->context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
      if (err != CL_SUCCESS) {
        problems.push_back(platform_name + ": clCreateContext failed with " + cl_error_name(err));
        continue;
      }
      d->queue = clCreateCommandQueueWithProperties(d->context, id, nullptr, &err);
      if (err != CL_SUCCESS) {
        problems.push_back(platform_name + ": clCreateCommandQueue failed with " +
                           cl_error_name(err));
        clReleaseContext(d->context);
        continue;
      }
      fill_props(*d);
      d->compute = std::make_unique<Compute>(*d);
      backend.devices.push_back(std::move(d));
    }
  }
  if (backend.devices.empty()) {
    std::string reason = "no usable OpenCL device";
    for (size_t i = 0; i < problems.size(); ++i) reason += (i ? "; " : ": ") + problems[i];
    backend.no_device_reason = reason;
  }
}

void release(Backend& backend) {
  for (auto& d : backend.devices) {
    d->compute.reset();
    if (d->queue) {
      clFinish(d->queue);
      clReleaseCommandQueue(d->queue);
    }
    if (d->context) clReleaseContext(d->context);
  }
  backend.devices.clear();
}

}  // namespace bp::opencl
