// DeviceAllocator: device memory through the plugin's alloc/free, with out-of-memory
// errors that name the device, the size and the free memory. (The caching allocator of the
// performance issue will sit on top of this.)
#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"

namespace bp::detail {

namespace {
// Every allocation is aligned for the widest vector loads a kernel may use.
constexpr size_t kAlignment = 64;
}  // namespace

DataPtr DeviceAllocator::allocate(size_t bytes) {
  void* ptr = nullptr;
  thread_plugin_error() = {};
  bp_status s = backend_->api->alloc(backend_->ctx, index_, bytes, kAlignment, &ptr);
  if (s != BP_OK) {
    const Device device(backend_->type, static_cast<int16_t>(index_));
    const bp_device_props& props = backend_->props[static_cast<size_t>(index_)];
    PluginError err = std::exchange(thread_plugin_error(), {});
    detail::throw_error(
        s == BP_ERR_OUT_OF_MEMORY ? ErrorCode::OutOfMemory : ErrorCode::Backend,
        fmt::format(
            "out of memory on {} allocating {} bytes (device memory: {} bytes total, {} free){}{}",
            device.str(), bytes, props.total_memory, props.free_memory,
            err.message.empty() ? "" : ": ", err.message));
  }
  return DataPtr(ptr, this, &DeviceAllocator::release);
}

void DeviceAllocator::release(void* ctx, void* ptr) {
  auto* self = static_cast<DeviceAllocator*>(ctx);
  // A free cannot report an error to anyone: the tensor is already gone.
  self->backend_->api->free(self->backend_->ctx, self->index_, ptr);
}

}  // namespace bp::detail
