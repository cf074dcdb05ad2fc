// A device's queue and memory: an immediate command list (commands start as they are
// appended), USM device allocations, copies and synchronisation.
//
// Order: commands of one Level Zero command list may overlap unless a barrier separates
// them, so every launch and copy is followed by a barrier, which makes the list behave as
// the runtime expects of a device (in order, like an in-order OpenCL queue). Copies between
// the host and the device block until they are done (the runtime may free or read the host
// memory right after the call); a copy within the device is only queued.
#include "level_zero.hpp"

#include <backplane/sdk/error.hpp>

#include <cstdint>
#include <limits>

namespace bp::level_zero {

Device::Device(const DeviceInfo& info, std::string kernel_dir)
    : info_(info), kernel_dir_(std::move(kernel_dir)) {
  const std::string name = info_.props.name;
  try {
    ze_command_queue_desc_t queue{};
    queue.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    queue.ordinal = info_.compute_ordinal;
    queue.index = 0;
    queue.mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
    queue.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
    check(zeCommandListCreateImmediate(info_.context, info_.handle, &queue, &list_),
          "zeCommandListCreateImmediate", "creating the command list of " + name);

    ze_event_pool_desc_t pool{};
    pool.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    pool.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    pool.count = 1;
    check(zeEventPoolCreate(info_.context, &pool, 1, &info_.handle, &event_pool_),
          "zeEventPoolCreate", "creating the event pool of " + name);
    ze_event_desc_t event{};
    event.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
    event.index = 0;
    event.signal = ZE_EVENT_SCOPE_FLAG_HOST;  // device writes are visible to the host
    event.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    check(zeEventCreate(event_pool_, &event, &done_), "zeEventCreate",
          "creating the event of " + name);
  } catch (...) {
    if (done_) zeEventDestroy(done_);
    if (event_pool_) zeEventPoolDestroy(event_pool_);
    if (list_) zeCommandListDestroy(list_);
    throw;
  }
}

Device::~Device() {
  {
    std::lock_guard lock(queue_mu_);
    try {
      synchronize_locked();  // nothing may still run a kernel or copy we destroy below
    } catch (const std::exception&) {
      // A lost device: destroy what we can.
    }
  }
  for (auto& [key, module] : modules_) {
    for (auto& [name, kernel] : module.kernels) zeKernelDestroy(kernel.handle);
    zeModuleDestroy(module.handle);
  }
  zeEventDestroy(done_);
  zeEventPoolDestroy(event_pool_);
  zeCommandListDestroy(list_);
}

void Device::synchronize_locked() {
  check(zeCommandListAppendBarrier(list_, done_, 0, nullptr), "zeCommandListAppendBarrier",
        std::string("synchronizing ") + info_.props.name);
  const ze_result_t waited = zeEventHostSynchronize(done_, std::numeric_limits<uint64_t>::max());
  const ze_result_t reset = zeEventHostReset(done_);
  check(waited, "zeEventHostSynchronize", std::string("waiting for ") + info_.props.name);
  check(reset, "zeEventHostReset", std::string("synchronizing ") + info_.props.name);
}

void Device::order_locked() {
  check(zeCommandListAppendBarrier(list_, nullptr, 0, nullptr), "zeCommandListAppendBarrier",
        std::string("ordering the commands of ") + info_.props.name);
}

void* Device::allocate(size_t bytes, size_t alignment) {
  const size_t size = bytes ? bytes : 1;  // a unique non-null address for empty storage
  const std::string what = "allocating " + std::to_string(size) + " bytes on " + info_.props.name;
  if (size > info_.max_alloc_size)
    throw sdk::Error(BP_ERR_OUT_OF_MEMORY,
                     "level_zero: " + what + ": the device's largest allocation is " +
                         std::to_string(info_.max_alloc_size) + " bytes (maxMemAllocSize)");
  ze_device_mem_alloc_desc_t desc{};
  desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  desc.ordinal = 0;
  void* address = nullptr;
  const ze_result_t result =
      zeMemAllocDevice(info_.context, &desc, size, alignment, info_.handle, &address);
  if (result == ZE_RESULT_ERROR_UNSUPPORTED_SIZE)  // the driver's limit: also out of memory
    throw sdk::Error(BP_ERR_OUT_OF_MEMORY, "level_zero: zeMemAllocDevice failed with " +
                                               result_name(result) + ": " + what);
  check(result, "zeMemAllocDevice", what);
  return address;
}

void Device::free(void* address) {
  if (!address) return;
  std::lock_guard lock(queue_mu_);
  // Level Zero frees at once, unlike OpenCL's reference counts: queued work that uses the
  // memory must end first.
  synchronize_locked();
  check(zeMemFree(info_.context, address), "zeMemFree",
        std::string("freeing device memory of ") + info_.props.name);
}

void Device::release(void* device_address) noexcept {
  try {
    free(device_address);
  } catch (const std::exception&) {
    // release() cannot fail (ComputeDevice); a lost device keeps its memory until reset.
  }
}

void Device::copy(bp_copy_kind kind, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const char* direction = kind == BP_COPY_HOST_TO_DEVICE     ? "host to device"
                          : kind == BP_COPY_DEVICE_TO_HOST   ? "device to host"
                          : kind == BP_COPY_DEVICE_TO_DEVICE ? "device to device"
                                                             : nullptr;
  if (!direction)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                     "level_zero: unknown copy kind " + std::to_string(kind));
  const std::string what =
      "copying " + std::to_string(bytes) + " bytes " + direction + " on " + info_.props.name;
  std::lock_guard lock(queue_mu_);
  check(zeCommandListAppendMemoryCopy(list_, dst, src, bytes, nullptr, 0, nullptr),
        "zeCommandListAppendMemoryCopy", what);
  if (kind == BP_COPY_DEVICE_TO_DEVICE)
    order_locked();
  else
    synchronize_locked();
}

void Device::read(void* host, const void* device_address, size_t bytes) {
  copy(BP_COPY_DEVICE_TO_HOST, host, device_address, bytes);
}

void Device::write(void* device_address, const void* host, size_t bytes) {
  copy(BP_COPY_HOST_TO_DEVICE, device_address, host, bytes);
}

void Device::synchronize() {
  std::lock_guard lock(queue_mu_);
  synchronize_locked();
}

}  // namespace bp::level_zero
