// Storage: one device allocation, shared by every tensor that views it (std::shared_ptr
// ownership), and the Allocator interface that produces it. Core never allocates device
// memory itself: the dispatcher supplies an Allocator per device (a caching allocator over
// the plugin's alloc/free).
// Thread-safety: a Storage may be shared by tensors on many threads (shared_ptr counting is
// atomic; the memory itself is the caller's to synchronise); Allocator implementations must
// be callable from any thread.
#pragma once

#include "backplane/core/device.hpp"

#include <cstddef>
#include <memory>
#include <utility>

namespace bp {

// An owning pointer to device memory with its deleter. Move-only.
class DataPtr {
 public:
  using Deleter = void (*)(void* ctx, void* ptr);

  DataPtr() = default;
  DataPtr(void* ptr, void* ctx, Deleter deleter) : ptr_(ptr), ctx_(ctx), deleter_(deleter) {}
  DataPtr(DataPtr&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        ctx_(o.ctx_),
        deleter_(std::exchange(o.deleter_, nullptr)) {}
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      ctx_ = o.ctx_;
      deleter_ = std::exchange(o.deleter_, nullptr);
    }
    return *this;
  }
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  ~DataPtr() { reset(); }

  void* get() const { return ptr_; }
  void reset() {
    if (deleter_) deleter_(ctx_, ptr_);
    ptr_ = nullptr;
    deleter_ = nullptr;
  }

 private:
  void* ptr_ = nullptr;
  void* ctx_ = nullptr;
  Deleter deleter_ = nullptr;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Throws bp::Error(OutOfMemory) naming the device, the size and the free memory.
  virtual DataPtr allocate(size_t bytes) = 0;
};

class Storage {
 public:
  Storage(DataPtr data, size_t nbytes, Device device, bool host_accessible)
      : data_(std::move(data)),
        nbytes_(nbytes),
        device_(device),
        host_accessible_(host_accessible) {}

  void* data() const { return data_.get(); }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  // True when the host can read the memory directly (host backends).
  bool host_accessible() const { return host_accessible_; }

 private:
  DataPtr data_;
  size_t nbytes_;
  Device device_;
  bool host_accessible_;
};

using StoragePtr = std::shared_ptr<Storage>;

}  // namespace bp
