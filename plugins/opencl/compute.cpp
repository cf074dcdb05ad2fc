#include "compute.hpp"

#include "program_sources.hpp"

#include <backplane/sdk/error.hpp>

#include <cctype>
#include <cstring>
#include <vector>

namespace bp::opencl {
namespace {

std::string device_extensions(cl_device_id id) {
  size_t size = 0;
  clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string text(size, '\0');
  clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, size, text.data(), nullptr);
  return " " + std::string(text.c_str()) + " ";
}

std::string build_log(cl_program program, cl_device_id id) {
  size_t size = 0;
  clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  clGetProgramBuildInfo(program, id, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  if (log.size() > 4000) log = log.substr(0, 4000) + "\n...";
  return log;
}

[[noreturn]] void device_error(const std::string& what, cl_int err) {
  throw sdk::Error(err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES
                       ? BP_ERR_OUT_OF_MEMORY
                       : BP_ERR_DEVICE,
                   "opencl: " + what + " failed with " + cl_error_name(err));
}

}  // namespace

Compute::Compute(Device& device)
    : device_(device),
      fp64_(device_extensions(device.id).find(" cl_khr_fp64 ") != std::string::npos),
      max_group_(0) {
  clGetDeviceInfo(device.id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group_, &max_group_,
                  nullptr);
  if (max_group_ == 0) max_group_ = 1;
}

Compute::~Compute() {
  release_gemm();
  for (auto& [key, k] : kernels_) clReleaseKernel(k);
  for (auto& [key, p] : programs_) clReleaseProgram(p);
}

cl_program Compute::build(const char* program, const char* variant) {
  const clk::ProgramSource* source = nullptr;
  for (size_t i = 0; i < clk::kProgramCount; ++i)
    if (std::strcmp(clk::kPrograms[i].name, program) == 0) source = &clk::kPrograms[i];
  if (!source)
    throw sdk::Error(BP_ERR_INTERNAL, std::string("opencl: no program '") + program + "'");
  const char* texts[2] = {clk::kPrelude, source->text};
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(device_.context, 2, texts, nullptr, &err);
  if (err != CL_SUCCESS) device_error("clCreateProgramWithSource", err);
  std::string upper = variant;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string options =
      std::string(clk::kBuildOptions) + " -DBP_VARIANT_" + upper + (fp64_ ? " -DBP_HAS_FP64" : "");
  err = clBuildProgram(p, 1, &device_.id, options.c_str(), nullptr, nullptr);
  if (err != CL_SUCCESS) {
    const std::string log = build_log(p, device_.id);
    clReleaseProgram(p);
    throw sdk::Error(BP_ERR_DEVICE, std::string("opencl: building program '") + program + "' for " +
                                        variant + " failed with " + cl_error_name(err) +
                                        " (options " + options + "):\n" + log);
  }
  return p;
}

clk::KernelHandle Compute::kernel(const char* program, const char* variant, const char* name) {
  std::string key = std::string(program) + '/' + variant;
  const size_t program_key_size = key.size();
  key += '/';
  key += name;
  std::lock_guard lock(mu_);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  const std::string program_key = key.substr(0, program_key_size);
  auto p = programs_.find(program_key);
  if (p == programs_.end()) p = programs_.emplace(program_key, build(program, variant)).first;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p->second, name, &err);
  if (err != CL_SUCCESS)
    throw sdk::Error(BP_ERR_INTERNAL, "opencl: program '" + program_key + "' has no kernel '" +
                                          name + "' (" + cl_error_name(err) + ")");
  kernels_.emplace(key, k);
  return k;
}

cl_mem Compute::buffer_of(const void* device_address, size_t* offset) const {
  DeviceMemory::Region region{};
  if (!device_.memory.find(device_address, &region))
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, "opencl: a kernel argument is not device memory");
  if (offset) *offset = region.offset;
  return region.buffer;
}

void Compute::launch(clk::KernelHandle kernel, std::span<const clk::KernelArg> args,
                     const clk::LaunchRange& range) {
  auto k = static_cast<cl_kernel>(kernel);
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < args.size(); ++i) {
    const clk::KernelArg& a = args[i];
    cl_int err;
    if (a.kind == clk::KernelArg::Memory) {
      size_t offset = 0;
      const cl_mem buffer = buffer_of(a.data, &offset);
      if (offset != 0)
        throw sdk::Error(BP_ERR_INTERNAL,
                         "opencl: kernel argument " + std::to_string(i) +
                             " is inside an allocation, not its base (pass offsets separately)");
      err = clSetKernelArg(k, static_cast<cl_uint>(i), sizeof(cl_mem), &buffer);
    } else {
      err = clSetKernelArg(k, static_cast<cl_uint>(i), a.size, a.data);
    }
    if (err != CL_SUCCESS) device_error("clSetKernelArg(" + std::to_string(i) + ")", err);
  }
  const bool local_given = range.local[0] != 0;
  const cl_int err =
      clEnqueueNDRangeKernel(device_.queue, k, range.dims, nullptr, range.global,
                             local_given ? range.local : nullptr, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) device_error("clEnqueueNDRangeKernel", err);
}

void* Compute::allocate(size_t bytes) {
  void* address = nullptr;
  if (device_.memory.allocate(device_.context, bytes, 8, &address) != BP_OK)
    throw sdk::Error::reported_by_host(BP_ERR_OUT_OF_MEMORY,
                                       "opencl: allocating " + std::to_string(bytes) + " bytes");
  return address;
}

void Compute::release(void* device_address) noexcept {
  device_.memory.release(device_address);
}

void Compute::read(void* host, const void* device_address, size_t bytes) {
  size_t offset = 0;
  const cl_mem buffer = buffer_of(device_address, &offset);
  const cl_int err =
      clEnqueueReadBuffer(device_.queue, buffer, CL_TRUE, offset, bytes, host, 0, nullptr, nullptr);
  if (err != CL_SUCCESS) device_error("clEnqueueReadBuffer", err);
}

void Compute::write(void* device_address, const void* host, size_t bytes) {
  size_t offset = 0;
  const cl_mem buffer = buffer_of(device_address, &offset);
  const cl_int err = clEnqueueWriteBuffer(device_.queue, buffer, CL_TRUE, offset, bytes, host, 0,
                                          nullptr, nullptr);
  if (err != CL_SUCCESS) device_error("clEnqueueWriteBuffer", err);
}

}  // namespace bp::opencl
