// The kernels: a module per (program, variant) built on first use from the SPIR-V file that
// the build made (zeModuleCreate, the build log in the error), kernels created from it once,
// and launches appended to the device's command list.
//
// Launch: kernel arguments are state of the kernel object that zeCommandListAppendLaunchKernel
// reads when the launch is appended, so setting them, the group size and appending happen
// under the device's queue mutex; a later launch of the same kernel may then change them.
#include "level_zero.hpp"

#include <backplane/sdk/error.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>

namespace bp::level_zero {

namespace {

// The kernels are SPIR-V 1.2 (llvm-spirv-14 --spirv-max-version=1.2).
constexpr uint32_t kSpirvVersion = ZE_MAKE_VERSION(1, 2);

std::string version_text(uint32_t version) {
  return std::to_string(ZE_MAJOR_VERSION(version)) + "." +
         std::to_string(ZE_MINOR_VERSION(version));
}

// Build options of every module. The OpenCL programs are built with
// -cl-fp32-correctly-rounded-divide-sqrt; the SPIR-V does not carry it, and Intel's driver
// takes it as -ze-fp32-correctly-rounded-divide-sqrt. Where a buffer may exceed 4 GiB the
// compiler must use 64-bit offsets.
std::string build_flags(const DeviceInfo& info) {
  std::string flags;
  if (info.vendor_id == 0x8086) flags += "-ze-fp32-correctly-rounded-divide-sqrt";
  if (info.max_alloc_size > (uint64_t{1} << 32))
    flags += std::string(flags.empty() ? "" : " ") + "-ze-opt-greater-than-4GB-buffer-required";
  return flags;
}

std::string build_log_text(ze_module_build_log_handle_t log) {
  if (!log) return {};
  size_t size = 0;
  std::string text;
  if (zeModuleBuildLogGetString(log, &size, nullptr) == ZE_RESULT_SUCCESS && size > 0) {
    text.resize(size);
    if (zeModuleBuildLogGetString(log, &size, text.data()) != ZE_RESULT_SUCCESS) text.clear();
    text.resize(std::min(text.size(), text.find('\0')));
  }
  zeModuleBuildLogDestroy(log);
  return text;
}

}  // namespace

Device::Module& Device::module_locked(const std::string& program, const std::string& variant) {
  const std::string key = program + "." + variant;
  if (auto it = modules_.find(key); it != modules_.end()) return it->second;

  const std::string path = kernel_file(kernel_dir_, program, variant, info_.fp64);
  if (info_.spirv_version < kSpirvVersion)
    throw sdk::Error(BP_ERR_UNSUPPORTED, std::string("level_zero: ") + info_.props.name +
                                             " reads SPIR-V " + version_text(info_.spirv_version) +
                                             " at most; the kernels are SPIR-V " +
                                             version_text(kSpirvVersion) + " (" + path + ")");
  const std::vector<uint8_t> spirv = read_kernel_file(path);
  const std::string flags = build_flags(info_);

  ze_module_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = ZE_MODULE_FORMAT_IL_SPIRV;
  desc.inputSize = spirv.size();
  desc.pInputModule = spirv.data();
  desc.pBuildFlags = flags.c_str();
  desc.pConstants = nullptr;
  Module module;
  module.file = path.substr(path.find_last_of('/') + 1);
  ze_module_build_log_handle_t log = nullptr;
  const ze_result_t result =
      zeModuleCreate(info_.context, info_.handle, &desc, &module.handle, &log);
  const std::string log_text = build_log_text(log);
  check(result, "zeModuleCreate",
        "building " + path + " for " + info_.props.name + " with options \"" + flags + "\"" +
            (log_text.empty() ? std::string() : "; build log:\n" + log_text));
  return modules_.emplace(key, std::move(module)).first->second;
}

clk::KernelHandle Device::kernel(const char* program, const char* variant, const char* name) {
  if (!info_.fp64 && std::string_view(variant) == "f64")
    throw sdk::Error(BP_ERR_UNSUPPORTED, std::string("level_zero: ") + info_.props.name +
                                             " has no fp64 (ZE_DEVICE_MODULE_FLAG_FP64): no f64 "
                                             "kernels");
  std::lock_guard lock(modules_mu_);
  Module& module = module_locked(program, variant);
  if (auto it = module.kernels.find(name); it != module.kernels.end()) return &it->second;

  Kernel kernel;
  kernel.label = module.file + ": " + name;
  ze_kernel_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  desc.pKernelName = name;
  check(zeKernelCreate(module.handle, &desc, &kernel.handle), "zeKernelCreate",
        "creating kernel " + kernel.label);
  return &module.kernels.emplace(name, std::move(kernel)).first->second;
}

uint32_t Device::group_size_for(const Kernel& kernel, size_t global, size_t local) const {
  if (local != 0) {
    if (local > info_.max_group_size || global % local != 0)
      throw sdk::Error(BP_ERR_INTERNAL, "level_zero: launch of " + kernel.label +
                                            ": work-group size " + std::to_string(local) +
                                            " does not divide " + std::to_string(global) +
                                            " work-items or exceeds the device's " +
                                            std::to_string(info_.max_group_size));
    return static_cast<uint32_t>(local);
  }
  uint32_t x = 1, y = 1, z = 1;
  const auto hint = static_cast<uint32_t>(std::min<size_t>(global, UINT32_MAX));
  check(zeKernelSuggestGroupSize(kernel.handle, hint, 1, 1, &x, &y, &z), "zeKernelSuggestGroupSize",
        "sizing the work-groups of " + kernel.label);
  size_t size = std::clamp<size_t>(x, 1, info_.max_group_size);
  while (global % size != 0) --size;  // ends at 1 at the latest
  return static_cast<uint32_t>(size);
}

void Device::launch(clk::KernelHandle handle, std::span<const clk::KernelArg> args, size_t global,
                    size_t local) {
  const Kernel& kernel = *static_cast<const Kernel*>(handle);
  if (global == 0) return;
  const uint32_t group = group_size_for(kernel, global, local);
  const size_t groups = global / group;
  const size_t max_groups = info_.max_group_count ? info_.max_group_count : UINT32_MAX;
  if (groups > max_groups)
    throw sdk::Error(BP_ERR_UNSUPPORTED, "level_zero: launch of " + kernel.label + ": " +
                                             std::to_string(groups) + " work-groups of " +
                                             std::to_string(group) + " exceed the device's " +
                                             std::to_string(max_groups));

  std::lock_guard lock(queue_mu_);
  for (uint32_t i = 0; i < args.size(); ++i) {
    const clk::KernelArg& arg = args[i];
    // A Memory argument is a USM pointer, passed by value like any pointer argument.
    const ze_result_t result =
        arg.kind == clk::KernelArg::Memory
            ? zeKernelSetArgumentValue(kernel.handle, i, sizeof arg.data, &arg.data)
            : zeKernelSetArgumentValue(kernel.handle, i, arg.size, arg.data);
    check(result, "zeKernelSetArgumentValue",
          "argument " + std::to_string(i) + " (" + std::to_string(arg.size) + " bytes) of " +
              kernel.label);
  }
  check(zeKernelSetGroupSize(kernel.handle, group, 1, 1), "zeKernelSetGroupSize",
        "work-groups of " + std::to_string(group) + " for " + kernel.label);
  const ze_group_count_t count{static_cast<uint32_t>(groups), 1, 1};
  check(zeCommandListAppendLaunchKernel(list_, kernel.handle, &count, nullptr, 0, nullptr),
        "zeCommandListAppendLaunchKernel",
        "launching " + kernel.label + " over " + std::to_string(global) + " work-items");
  order_locked();
}

}  // namespace bp::level_zero
