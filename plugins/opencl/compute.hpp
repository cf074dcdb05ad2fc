// The OpenCL implementation of clk::ComputeDevice (plugins/shared/compute-ops/compute_device.hpp):
// the shared programs built from their embedded source for one device, once per variant on
// first use (the driver's own cache, e.g. PoCL's POCL_CACHE_DIR, keeps the binaries across
// processes), kernels created once, and launches serialised per device because
// clSetKernelArg mutates the kernel object.
#pragma once

#include "compute_device.hpp"
#include "opencl.hpp"

#include <map>
#include <mutex>
#include <string>

namespace bp::opencl {

class Compute final : public clk::ComputeDevice {
 public:
  explicit Compute(Device& device);
  ~Compute() override;
  Compute(const Compute&) = delete;
  Compute& operator=(const Compute&) = delete;

  clk::KernelHandle kernel(const char* program, const char* variant, const char* name) override;
  void launch(clk::KernelHandle kernel, std::span<const clk::KernelArg> args,
              const clk::LaunchRange& range) override;
  void* allocate(size_t bytes) override;
  void release(void* device_address) noexcept override;
  void read(void* host, const void* device_address, size_t bytes) override;
  void write(void* device_address, const void* host, size_t bytes) override;
  bool has_fp64() const override { return fp64_; }
  size_t max_work_group_size() const override { return max_group_; }
  // CLBlast where the plugin was built with it (gemm_clblast.cpp).
  bool gemm(const clk::GemmArgs& args) override;

  // The buffer an address names (the base of an allocation); throws when it is none.
  cl_mem buffer_of(const void* device_address, size_t* offset) const;

 private:
  cl_program build(const char* program, const char* variant);
  void release_gemm() noexcept;  // gemm_clblast.cpp

  Device& device_;
  bool fp64_;
  size_t max_group_;
  std::mutex mu_;
  std::map<std::string, cl_program> programs_;  // "program/variant"
  std::map<std::string, cl_kernel> kernels_;    // "program/variant/name"
  bool gemm_used_ = false;                      // under mu_
};

}  // namespace bp::opencl
