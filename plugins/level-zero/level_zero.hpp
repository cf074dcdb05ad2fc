// The Level Zero backend's shared state: the GPUs of every driver the loader found, each a
// Device with its driver's context, an immediate command list and the modules built from the
// SPIR-V kernels installed beside the plugin. Memory is USM device memory, so the runtime's
// device addresses are the driver's pointers. The Backend owns the contexts and the Devices;
// each Device owns its command list, event, modules and kernels. docs/level-zero.md.
#pragma once

#include <backplane/plugin.h>
#include <level_zero/ze_api.h>

#include "compute_device.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace bp::level_zero {

// ---- results (result.cpp) ----
// "ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)".
std::string result_name(ze_result_t result);
// Throws sdk::Error unless `result` is ZE_RESULT_SUCCESS: "level_zero: <call> failed with
// <result>: <what>"; out-of-memory results give BP_ERR_OUT_OF_MEMORY, others BP_ERR_DEVICE.
void check(ze_result_t result, const char* call, const std::string& what);

// ---- the kernel files (kernel_files.cpp) ----
// The folder of the SPIR-V modules: level_zero_kernels/ beside this plugin's file.
std::string kernel_directory();
// "<dir>/<program>.<variant>[.fp64].spv"
std::string kernel_file(const std::string& dir, const std::string& program,
                        const std::string& variant, bool fp64);
// Whether `dir` holds at least one .spv file.
bool has_kernel_files(const std::string& dir);
// The bytes of `path`; throws sdk::Error (BP_ERR_UNSUPPORTED) naming the file when it
// cannot be read.
std::vector<uint8_t> read_kernel_file(const std::string& path);

// What discovery learns about a device, before any queue exists.
struct DeviceInfo {
  ze_driver_handle_t driver = nullptr;
  ze_context_handle_t context = nullptr;  // owned by the Backend (one per driver)
  ze_device_handle_t handle = nullptr;
  bp_device_props props{};
  uint32_t vendor_id = 0;
  uint32_t compute_ordinal = 0;      // a command queue group that runs kernels
  uint32_t max_group_size = 1;       // maxTotalGroupSize
  uint32_t max_group_count[3] = {};  // maxGroupCountX/Y/Z (0: not reported)
  uint64_t max_alloc_size = 0;       // maxMemAllocSize
  uint32_t spirv_version = 0;        // ZE_MAKE_VERSION(major, minor); 0: no SPIR-V
  bool fp64 = false;                 // ZE_DEVICE_MODULE_FLAG_FP64
};

// One GPU. Every function may be called from any thread: appending to the command list is
// serialised by a mutex (Level Zero forbids concurrent appends to one list, and kernel
// arguments live in the kernel object until the launch is appended).
class Device final : public clk::ComputeDevice {
 public:
  // Creates the immediate command list and the event that synchronize() waits on; throws
  // sdk::Error when the driver refuses.
  Device(const DeviceInfo& info, std::string kernel_dir);
  ~Device() override;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }

  // The device API.
  void* allocate(size_t bytes, size_t alignment);
  void free(void* address);  // waits for queued work first: it may still use the memory
  void copy(bp_copy_kind kind, void* dst, const void* src, size_t bytes);
  void synchronize();

  // ComputeDevice (modules.cpp for the kernels).
  clk::KernelHandle kernel(const char* program, const char* variant, const char* name) override;
  void launch(clk::KernelHandle kernel, std::span<const clk::KernelArg> args,
              const clk::LaunchRange& range) override;
  void* allocate(size_t bytes) override { return allocate(bytes, 0); }
  void release(void* device_address) noexcept override;
  void read(void* host, const void* device_address, size_t bytes) override;
  void write(void* device_address, const void* host, size_t bytes) override;
  bool has_fp64() const override { return info_.fp64; }
  size_t max_work_group_size() const override { return info_.max_group_size; }

 private:
  // What a KernelHandle points to; owned by its Module (map nodes do not move).
  struct Kernel {
    ze_kernel_handle_t handle = nullptr;
    std::string label;  // "<program>.<variant>[.fp64].spv: <name>", for messages
  };
  struct Module {
    ze_module_handle_t handle = nullptr;
    std::string file;
    std::map<std::string, Kernel, std::less<>> kernels;
  };
  // Appends a barrier that signals done_, waits for it on the host and resets it. Called
  // with queue_mu_ held.
  void synchronize_locked();
  // Appends a barrier so that the next command starts after the last one ends (commands of
  // a Level Zero command list may otherwise overlap). Called with queue_mu_ held.
  void order_locked();
  Module& module_locked(const std::string& program, const std::string& variant);
  // The work-groups of a launch: of range.local, or when that is 0 of the driver's
  // suggestion cut down to divisors of the global sizes (Level Zero launches whole groups
  // only, and the kernels have no bounds checks).
  struct Groups {
    uint32_t size[3] = {1, 1, 1};
    ze_group_count_t count{1, 1, 1};
  };
  Groups groups_for(const Kernel& kernel, const clk::LaunchRange& range) const;

  DeviceInfo info_;
  std::string kernel_dir_;
  ze_command_list_handle_t list_ = nullptr;
  ze_event_pool_handle_t event_pool_ = nullptr;
  ze_event_handle_t done_ = nullptr;
  std::mutex queue_mu_;                    // appends to list_, kernel arguments, done_
  std::mutex modules_mu_;                  // modules_
  std::map<std::string, Module> modules_;  // by "<program>.<variant>"
};

struct Backend {
  std::vector<ze_context_handle_t> contexts;  // one per driver with devices
  std::vector<std::unique_ptr<Device>> devices;
  std::string no_device_reason;  // when devices is empty
  bp_dtype_mask dtypes = 0;      // the union of the devices' dtypes
};

// zeInit, then every device of every driver, each with its context and command list. Ends
// with an empty device list and the reason when there is none; after a failed zeInit it
// makes no other ze call (docs/level-zero.md says why).
void discover(Backend& backend, const std::string& kernel_dir);
void release(Backend& backend);

}  // namespace bp::level_zero
