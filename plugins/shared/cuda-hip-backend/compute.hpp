// The GPU implementation of clk::ComputeDevice (plugins/shared/compute-ops/compute_device.hpp): the
// shared kernels compiled at build time into one module per program and dtype variant
// (<kernel_directory()>/<program>.<variant>.<ext>), loaded on first use and kept; launches
// queued on the device's stream. Arguments are passed by pointer to the vendor's launch,
// so launches need no lock of their own.
#pragma once

#include "compute_device.hpp"
#include "gpu_backend.hpp"

#include <map>
#include <mutex>
#include <string>

namespace bp::gpu {

class Compute final : public clk::ComputeDevice {
 public:
  explicit Compute(Device& device, std::string kernel_dir);
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
  bool has_fp64() const override { return true; }
  size_t max_work_group_size() const override { return 1024; }
  bool gemm(const clk::GemmArgs& args) override { return vendor_gemm(device_, args); }

 private:
  Module module(const std::string& program, const std::string& variant);

  Device& device_;
  std::string kernel_dir_;
  std::mutex mu_;                            // guards the maps
  std::map<std::string, Module> modules_;    // "program.variant"
  std::map<std::string, Function> kernels_;  // "program.variant/name"
};

}  // namespace bp::gpu
