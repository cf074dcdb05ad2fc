// Copies between pageable host memory and a device through pinned staging buffers, so a
// host-to-device copy returns as soon as its bytes are staged: the caller may reuse its
// memory at once, and the copy is queued behind the stream's kernels instead of waiting for
// them. Device-to-host copies still return only with the bytes in place, but move through
// two buffers in turn, so the DMA of one chunk overlaps the host copy of the previous one.
#pragma once

#include "gpu_runtime.hpp"

#include <cstddef>
#include <mutex>

namespace bp::gpu {

class Staging {
 public:
  // Two pinned buffers of `chunk` bytes on the current device (throws when allocation fails).
  explicit Staging(size_t chunk = size_t{4} << 20);
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // Queues the copy of `bytes` from host `src` to device `dst` on `stream`; returns when every
  // byte is staged (for copies beyond two chunks, when all but the last two are done).
  void to_device(void* dst, const void* src, size_t bytes, cudaStream_t stream);
  // Copies `bytes` from device `src` to host `dst` after the work queued on `stream`; returns
  // when they are in place.
  void to_host(void* dst, const void* src, size_t bytes, cudaStream_t stream);

 private:
  struct Slot {
    void* pinned = nullptr;
    cudaEvent_t done = nullptr;  // recorded after the slot's last copy
  };
  // A slot whose previous copy has finished.
  Slot& next_slot();

  size_t chunk_;
  Slot slots_[2];
  unsigned next_ = 0;
  std::mutex mu_;  // one copy at a time per device
};

}  // namespace bp::gpu
