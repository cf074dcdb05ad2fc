#include "compute.hpp"

#include "staging.hpp"

#include <backplane/sdk/error.hpp>

#include <filesystem>

namespace bp::gpu {
namespace {

#if defined(BP_GPU_HIP)
constexpr const char* kModuleExtension = ".hsaco";
#else
constexpr const char* kModuleExtension = ".fatbin";
#endif

// A divisor of `global` up to 256, for a launch that left the group size to the driver
// (OpenCL's contract: global is a multiple of the group size it picks).
size_t group_dividing(size_t global) {
  for (size_t g = 256; g > 1; g /= 2)
    if (global % g == 0) return g;
  return 1;
}

}  // namespace

Compute::Compute(Device& device, std::string kernel_dir)
    : device_(device), kernel_dir_(std::move(kernel_dir)) {}

Compute::~Compute() {
  (void)cudaSetDevice(device_.ordinal);
  for (auto& [key, m] : modules_) (void)unload_module(m);
}

Module Compute::module(const std::string& program, const std::string& variant) {
  const std::string key = program + '.' + variant;
  if (auto it = modules_.find(key); it != modules_.end()) return it->second;
  const std::string path = kernel_dir_ + "/" + key + kModuleExtension;
  if (!std::filesystem::exists(path))
    throw sdk::Error(BP_ERR_UNSUPPORTED, std::string(kBackend) + ": the kernel module " + path +
                                             " is missing (built with the plugin; installed "
                                             "beside it)");
  Module m{};
  check(cudaSetDevice(device_.ordinal), "cudaSetDevice");
  check(load_module(&m, path.c_str()), "loading the kernel module " + path);
  modules_.emplace(key, m);
  return m;
}

clk::KernelHandle Compute::kernel(const char* program, const char* variant, const char* name) {
  std::string key = std::string(program) + '.' + variant + '/' + name;
  std::lock_guard lock(mu_);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  const Module m = module(program, variant);
  Function f{};
  const cudaError_t err = module_function(&f, m, name);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    throw sdk::Error(BP_ERR_INTERNAL, std::string(kBackend) + ": the module " + program + "." +
                                          variant + " has no kernel '" + name + "' (" +
                                          error_text(err) + ")");
  }
  kernels_.emplace(std::move(key), f);
  return f;
}

void Compute::launch(clk::KernelHandle kernel, std::span<const clk::KernelArg> args,
                     const clk::LaunchRange& range) {
  // The vendor's launch reads each argument's value through a pointer: a device address
  // from the KernelArg itself, a value from its bytes.
  void* values[32];
  if (args.size() > sizeof values / sizeof values[0])
    throw sdk::Error(BP_ERR_INTERNAL, std::string(kBackend) + ": " + std::to_string(args.size()) +
                                          " kernel arguments");
  for (size_t i = 0; i < args.size(); ++i)
    values[i] = args[i].kind == clk::KernelArg::Memory
                    ? const_cast<void*>(static_cast<const void*>(&args[i].data))
                    : const_cast<void*>(args[i].data);
  size_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  for (uint32_t d = 0; d < range.dims && d < 3; ++d) {
    block[d] = range.local[0] != 0 ? range.local[d] : group_dividing(range.global[d]);
    if (block[d] == 0 || range.global[d] % block[d] != 0)
      throw sdk::Error(BP_ERR_INTERNAL,
                       std::string(kBackend) + ": launch range is not whole work-groups");
    grid[d] = range.global[d] / block[d];
  }
  if (grid[0] * grid[1] * grid[2] == 0) return;
  // The grid's y and z extents are 16-bit on both vendors (a batched matmul's batch is z).
  if (grid[0] > 0x7fffffffu || grid[1] > 65535 || grid[2] > 65535)
    throw sdk::Error(BP_ERR_UNSUPPORTED,
                     std::string(kBackend) + ": a launch of " + std::to_string(grid[0]) + " x " +
                         std::to_string(grid[1]) + " x " + std::to_string(grid[2]) +
                         " blocks is past the device's grid limits (2^31-1 x 65535 x 65535)");
  check(cudaSetDevice(device_.ordinal), "cudaSetDevice");
  check(launch_function(static_cast<Function>(kernel), grid, block, values, device_.stream),
        "launching a kernel");
}

void* Compute::allocate(size_t bytes) {
  void* address = nullptr;
  check(cudaSetDevice(device_.ordinal), "cudaSetDevice");
  check(cudaMalloc(&address, bytes == 0 ? 1 : bytes),
        "cudaMalloc of " + std::to_string(bytes) + " bytes (a kernel's temporary)");
  return address;
}

void Compute::release(void* device_address) noexcept {
  // cudaFree waits for the device, so a temporary still read by queued kernels is safe.
  (void)cudaSetDevice(device_.ordinal);
  (void)cudaFree(device_address);
}

void Compute::read(void* host, const void* device_address, size_t bytes) {
  check(cudaSetDevice(device_.ordinal), "cudaSetDevice");
  device_.staging->to_host(host, device_address, bytes, device_.stream);
}

void Compute::write(void* device_address, const void* host, size_t bytes) {
  check(cudaSetDevice(device_.ordinal), "cudaSetDevice");
  device_.staging->to_device(device_address, host, bytes, device_.stream);
}

}  // namespace bp::gpu
