// DeviceMemory: OpenCL buffers behind virtual addresses (see opencl.hpp for why).
#include "opencl.hpp"

#include <algorithm>

namespace bp::opencl {

namespace {
// Space left between two allocations, so an address one past the end of one allocation
// (an empty view's data pointer) never falls inside the next.
constexpr uintptr_t kGap = 4096;
}  // namespace

bp_status DeviceMemory::allocate(cl_context context, size_t bytes, size_t alignment, void** out) {
  const size_t size = std::max<size_t>(bytes, 1);  // OpenCL refuses empty buffers
  cl_int err = CL_SUCCESS;
  cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, size, nullptr, &err);
  if (err != CL_SUCCESS || !buffer) {
    const bool oom = err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                     err == CL_OUT_OF_HOST_MEMORY || err == CL_INVALID_BUFFER_SIZE;
    return fail(oom ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
                "opencl: clCreateBuffer(" + std::to_string(size) + " bytes) failed with " +
                    cl_error_name(err));
  }
  std::lock_guard lock(mu_);
  const uintptr_t align = std::max<uintptr_t>(alignment, kGap);
  const uintptr_t base = (next_ + align - 1) & ~(align - 1);
  next_ = base + ((size + kGap - 1) & ~(kGap - 1)) + kGap;
  allocations_.emplace(base, Allocation{buffer, size});
  *out = reinterpret_cast<void*>(base);
  return BP_OK;
}

bp_status DeviceMemory::release(void* address) {
  if (!address) return BP_OK;
  cl_mem buffer = nullptr;
  {
    std::lock_guard lock(mu_);
    const auto it = allocations_.find(reinterpret_cast<uintptr_t>(address));
    if (it == allocations_.end())
      return fail(BP_ERR_INVALID_ARGUMENT, "opencl: free of an address that was not allocated");
    buffer = it->second.buffer;
    allocations_.erase(it);
  }
  clReleaseMemObject(buffer);  // OpenCL keeps it alive until queued commands finish
  return BP_OK;
}

bool DeviceMemory::find(const void* address, Region* out) const {
  const auto p = reinterpret_cast<uintptr_t>(address);
  std::lock_guard lock(mu_);
  auto it = allocations_.upper_bound(p);
  if (it == allocations_.begin()) return false;
  --it;
  const uintptr_t offset = p - it->first;
  if (offset > it->second.size) return false;  // one past the end is a valid empty region
  *out = Region{it->second.buffer, offset, it->second.size - offset};
  return true;
}

}  // namespace bp::opencl
