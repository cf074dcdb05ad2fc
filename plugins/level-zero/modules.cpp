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
#include <cstdint>
#include <string_view>

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
    if (text.size() > 4000) text = text.substr(0, 4000) + "\n...";  // an error, not a file
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
  const ze_result_t result = zeKernelCreate(module.handle, &desc, &kernel.handle);
  if (result == ZE_RESULT_ERROR_INVALID_KERNEL_NAME)  // the caller asked for a wrong name
    throw sdk::Error(BP_ERR_INTERNAL, "level_zero: " + module.file + " has no kernel '" + name +
                                          "' (" + result_name(result) + ")");
  check(result, "zeKernelCreate", "creating kernel " + kernel.label);
  return &module.kernels.emplace(name, std::move(kernel)).first->second;
}

Device::Groups Device::groups_for(const Kernel& kernel, const clk::LaunchRange& range) const {
  if (range.dims < 1 || range.dims > 3)
    throw sdk::Error(BP_ERR_INTERNAL, "level_zero: launch of " + kernel.label + " in " +
                                          std::to_string(range.dims) + " dimensions (1 to 3)");
  size_t global[3] = {1, 1, 1};
  for (uint32_t d = 0; d < range.dims; ++d) global[d] = range.global[d];
  const bool local_given = range.local[0] != 0;

  Groups groups;
  size_t size[3] = {1, 1, 1};
  if (local_given) {
    for (uint32_t d = 0; d < range.dims; ++d) size[d] = range.local[d];
  } else {
    uint32_t suggested[3] = {1, 1, 1};
    const auto clamp32 = [](size_t v) {
      return static_cast<uint32_t>(std::min<size_t>(v, UINT32_MAX));
    };
    check(zeKernelSuggestGroupSize(kernel.handle, clamp32(global[0]), clamp32(global[1]),
                                   clamp32(global[2]), &suggested[0], &suggested[1], &suggested[2]),
          "zeKernelSuggestGroupSize", "sizing the work-groups of " + kernel.label);
    for (int d = 0; d < 3; ++d) {
      size[d] = std::clamp<size_t>(suggested[d], 1, info_.max_group_size);
      while (global[d] % size[d] != 0) --size[d];  // ends at 1 at the latest
    }
  }

  size_t total = 1;
  for (int d = 0; d < 3; ++d) {
    if (size[d] == 0 || global[d] % size[d] != 0)
      throw sdk::Error(BP_ERR_INTERNAL, "level_zero: launch of " + kernel.label +
                                            ": work-group size " + std::to_string(size[d]) +
                                            " does not divide the " + std::to_string(global[d]) +
                                            " work-items of dimension " + std::to_string(d));
    total *= size[d];
    const size_t count = global[d] / size[d];
    const size_t limit = info_.max_group_count[d] ? info_.max_group_count[d] : UINT32_MAX;
    if (count > limit)
      throw sdk::Error(BP_ERR_UNSUPPORTED, "level_zero: launch of " + kernel.label + ": " +
                                               std::to_string(count) +
                                               " work-groups in dimension " + std::to_string(d) +
                                               " exceed the device's " + std::to_string(limit));
    groups.size[d] = static_cast<uint32_t>(size[d]);
  }
  if (total > info_.max_group_size)
    throw sdk::Error(BP_ERR_INTERNAL, "level_zero: launch of " + kernel.label +
                                          ": work-groups of " + std::to_string(total) +
                                          " work-items exceed the device's " +
                                          std::to_string(info_.max_group_size));
  groups.count = {static_cast<uint32_t>(global[0] / size[0]),
                  static_cast<uint32_t>(global[1] / size[1]),
                  static_cast<uint32_t>(global[2] / size[2])};
  return groups;
}

void Device::launch(clk::KernelHandle handle, std::span<const clk::KernelArg> args,
                    const clk::LaunchRange& range) {
  const Kernel& kernel = *static_cast<const Kernel*>(handle);
  for (uint32_t d = 0; d < range.dims && d < 3; ++d)
    if (range.global[d] == 0) return;  // no work-items
  const Groups groups = groups_for(kernel, range);

  std::lock_guard lock(queue_mu_);
  for (uint32_t i = 0; i < args.size(); ++i) {
    const clk::KernelArg& arg = args[i];
    // A Memory argument is a USM pointer: its value is the argument, like any pointer's.
    const bool memory = arg.kind == clk::KernelArg::Memory;
    const ze_result_t result =
        memory ? zeKernelSetArgumentValue(kernel.handle, i, sizeof arg.data, &arg.data)
               : zeKernelSetArgumentValue(kernel.handle, i, arg.size, arg.data);
    check(result, "zeKernelSetArgumentValue",
          "argument " + std::to_string(i) + " (" +
              (memory ? std::string("a device address") : std::to_string(arg.size) + " bytes") +
              ") of " + kernel.label);
  }
  check(zeKernelSetGroupSize(kernel.handle, groups.size[0], groups.size[1], groups.size[2]),
        "zeKernelSetGroupSize",
        "work-groups of " + std::to_string(groups.size[0]) + "x" + std::to_string(groups.size[1]) +
            "x" + std::to_string(groups.size[2]) + " for " + kernel.label);
  check(zeCommandListAppendLaunchKernel(list_, kernel.handle, &groups.count, nullptr, 0, nullptr),
        "zeCommandListAppendLaunchKernel",
        "launching " + kernel.label + " over " + std::to_string(groups.count.groupCountX) + "x" +
            std::to_string(groups.count.groupCountY) + "x" +
            std::to_string(groups.count.groupCountZ) + " work-groups");
  order_locked();
}

}  // namespace bp::level_zero
