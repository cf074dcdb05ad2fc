// The PrivateUse1 allocator and DataPtr <-> bp::Storage (storage_bridge.hpp).
#include "storage_bridge.hpp"

#include "device_map.hpp"

#include <backplane/backplane.hpp>

#include <memory>

namespace bp::torch_bridge {
namespace {

// The DataPtr's context: one owning reference to the Backplane block.
struct StorageHolder {
  StoragePtr storage;
};

void delete_holder(void* context) {
  std::unique_ptr<StorageHolder>(static_cast<StorageHolder*>(context)).reset();
}

class BackplaneAllocator final : public c10::Allocator {
 public:
  c10::DataPtr allocate(size_t nbytes) const override {
    const c10::DeviceIndex index = current_index();
    const Device device = backplane_device(index);
    // A byte tensor is the public way to get one caching-allocator block of `nbytes`.
    Tensor block = bp::empty({static_cast<int64_t>(nbytes)}, ScalarType::UInt8, device);
    return wrap_storage(block.storage(), index);
  }
  // Our DataPtrs carry a context distinct from the data pointer, so there is no raw deleter
  // (c10::Allocator::raw_allocate is not supported, as for CUDA's caching allocator).
  c10::DeleterFnPtr raw_deleter() const override { return nullptr; }
};

BackplaneAllocator g_allocator;

}  // namespace

c10::Allocator* allocator() {
  return &g_allocator;
}

c10::DataPtr wrap_storage(StoragePtr storage, c10::DeviceIndex index) {
  void* data = storage->data();
  auto holder = std::make_unique<StorageHolder>(StorageHolder{std::move(storage)});
  // The DataPtr owns the holder from here on (delete_holder frees it).
  return c10::DataPtr(data, holder.release(), &delete_holder,
                      c10::Device(c10::DeviceType::PrivateUse1, index));
}

const StoragePtr* backplane_storage(const c10::DataPtr& data) {
  if (data.get_deleter() != &delete_holder) return nullptr;
  return &static_cast<const StorageHolder*>(data.get_context())->storage;
}

// PyTorch's empty_generic and Storage resizing find the allocator by device type.
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

}  // namespace bp::torch_bridge
