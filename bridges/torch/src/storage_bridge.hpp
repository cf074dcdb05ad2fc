// How PrivateUse1 tensors hold Backplane memory. Every PrivateUse1 storage's DataPtr owns a
// reference to one bp::Storage (the caching allocator's block): the c10::Allocator below
// makes such DataPtrs for PyTorch's own allocations (torch.empty(device=...)), and
// wrap_storage makes one for a tensor a Backplane op returned, with no copy. In the other
// direction, backplane_storage finds the bp::Storage of a PrivateUse1 tensor, so a strided
// at::Tensor becomes a bp::Tensor view of the same memory.
#pragma once

#include <backplane/core/storage.hpp>

#include <c10/core/Allocator.h>

namespace bp::torch_bridge {

// The PrivateUse1 allocator (registered with c10::SetAllocator): allocates on the
// Backplane device of the current PrivateUse1 index through Backplane's caching allocator.
c10::Allocator* allocator();

// A DataPtr that keeps `storage` alive, on privateuseone:`index`.
c10::DataPtr wrap_storage(StoragePtr storage, c10::DeviceIndex index);

// The bp::Storage behind a PrivateUse1 DataPtr, or nullptr when the DataPtr was not made
// by this bridge (a tensor of another PrivateUse1 extension).
const StoragePtr* backplane_storage(const c10::DataPtr& data);

}  // namespace bp::torch_bridge
