#include "staging.hpp"

#include "gpu_backend.hpp"

#include <algorithm>
#include <cstring>

namespace bp::gpu {

Staging::Staging(size_t chunk) : chunk_(chunk) {
  for (Slot& slot : slots_) {
    check(cudaHostAlloc(&slot.pinned, chunk_, cudaHostAllocDefault),
          "cudaHostAlloc of a " + std::to_string(chunk_) + "-byte staging buffer");
    check(cudaEventCreateWithFlags(&slot.done, cudaEventDisableTiming), "cudaEventCreate");
  }
}

Staging::~Staging() {
  for (Slot& slot : slots_) {
    if (slot.done) {
      (void)cudaEventSynchronize(slot.done);
      (void)cudaEventDestroy(slot.done);
    }
    if (slot.pinned) (void)cudaFreeHost(slot.pinned);
  }
}

Staging::Slot& Staging::next_slot() {
  Slot& slot = slots_[next_];
  next_ ^= 1u;
  check(cudaEventSynchronize(slot.done), "waiting for a staging buffer");
  return slot;
}

void Staging::to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  std::lock_guard lock(mu_);
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(chunk_, bytes - done);
    Slot& slot = next_slot();
    std::memcpy(slot.pinned, static_cast<const char*>(src) + done, n);
    check(cudaMemcpyAsync(static_cast<char*>(dst) + done, slot.pinned, n, cudaMemcpyHostToDevice,
                          stream),
          "cudaMemcpyAsync (host to device, " + std::to_string(n) + " bytes)");
    check(cudaEventRecord(slot.done, stream), "cudaEventRecord");
    done += n;
  }
}

void Staging::to_host(void* dst, const void* src, size_t bytes, cudaStream_t stream) {
  std::lock_guard lock(mu_);
  // Chunk k lands in slot k % 2; while it is in flight, chunk k - 1 is copied out.
  Slot* pending = nullptr;
  size_t pending_offset = 0, pending_bytes = 0;
  auto drain = [&] {
    if (!pending) return;
    check(cudaEventSynchronize(pending->done), "cudaEventSynchronize (device to host)");
    std::memcpy(static_cast<char*>(dst) + pending_offset, pending->pinned, pending_bytes);
    pending = nullptr;
  };
  for (size_t done = 0; done < bytes;) {
    const size_t n = std::min(chunk_, bytes - done);
    Slot& slot = slots_[next_];
    next_ ^= 1u;
    check(cudaEventSynchronize(slot.done), "waiting for a staging buffer");
    check(cudaMemcpyAsync(slot.pinned, static_cast<const char*>(src) + done, n,
                          cudaMemcpyDeviceToHost, stream),
          "cudaMemcpyAsync (device to host, " + std::to_string(n) + " bytes)");
    check(cudaEventRecord(slot.done, stream), "cudaEventRecord");
    drain();
    pending = &slot;
    pending_offset = done;
    pending_bytes = n;
    done += n;
  }
  drain();
}

}  // namespace bp::gpu
