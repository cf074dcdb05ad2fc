// Internal: makes the Storage of every tensor the runtime allocates (make_storage). Each
// Storage and its shared_ptr control block live in one chunk (std::allocate_shared) taken
// from a per-thread free list in front of operator new: a small op allocates and frees one
// per call, and glibc's malloc and free of that chunk cost ~150 instructions of the ~1,300
// of a 1-element bp::add (bench/add_one_element.cpp), the list ~15.
//
// A chunk goes back to the list of the thread that frees it, whichever thread took it, so
// chunks drift between threads that hand tensors to each other; each list keeps at most
// kMaxFreeChunks and gives the rest to operator delete, and a thread's list is emptied when
// the thread ends.
#pragma once

#include "backplane/core/storage.hpp"

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace bp::detail {

// The per-thread free list behind PooledAllocator: chunks of kChunkBytes.
struct StorageChunks {
  static constexpr size_t kChunkBytes = 96;
  static constexpr int kMaxFreeChunks = 64;
  struct Chunk {
    Chunk* next;
  };
  struct List {
    Chunk* head = nullptr;
    int count = 0;         // chunks in the list; kMaxFreeChunks once the thread has ended
    bool watched = false;  // watch_thread has run on this thread
  };
  // A chunk of kChunkBytes (operator new when the list is empty).
  static void* take() {
    List& list = t_list;
    if (Chunk* c = list.head) [[likely]] {
      list.head = c->next;
      --list.count;
      return c;
    }
    return ::operator new(kChunkBytes);
  }
  // Back to this thread's list, or to operator delete when it is full.
  static void give(void* chunk) {
    List& list = t_list;
    if (list.count < kMaxFreeChunks) [[likely]] {
      if (!list.watched) [[unlikely]]
        watch_thread();
      list.head = new (chunk) Chunk{list.head};
      ++list.count;
      return;
    }
    ::operator delete(chunk);
  }

  // Gives this thread's chunks to operator delete and closes its list (at thread exit): a
  // Storage freed later by another thread_local destructor of the thread goes to operator
  // delete.
  static void close_this_thread();

 private:
  // Registers this thread's list for emptying when the thread ends (once per thread).
  static void watch_thread();
  // Trivially initialised and initial-exec, as t_calls (calls_in_flight.hpp): no TLS
  // wrapper on the hot path.
  static thread_local constinit List t_list __attribute__((tls_model("initial-exec")));
};

// The allocator std::allocate_shared uses for a Storage's chunk.
template <typename T>
struct PooledAllocator {
  using value_type = T;
  PooledAllocator() = default;
  template <typename U>
  PooledAllocator(const PooledAllocator<U>&) {}

  T* allocate(size_t n) {
    static_assert(
        sizeof(T) <= StorageChunks::kChunkBytes && alignof(T) <= alignof(std::max_align_t),
        "a Storage with its control block must fit a chunk");
    if (n != 1) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(StorageChunks::take());
  }
  void deallocate(T* p, size_t n) {
    if (n != 1) {
      ::operator delete(p);
      return;
    }
    StorageChunks::give(p);
  }
  template <typename U>
  bool operator==(const PooledAllocator<U>&) const {
    return true;
  }
};

// std::make_shared<Storage>(args...), with the chunk from this thread's list.
template <typename... Args>
StoragePtr make_storage(Args&&... args) {
  return std::allocate_shared<Storage>(PooledAllocator<Storage>(), std::forward<Args>(args)...);
}

}  // namespace bp::detail
