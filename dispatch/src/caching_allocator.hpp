// Internal: the per-device caching allocator between the runtime and a plugin's alloc/free
// (public side: backplane/dispatch/memory.hpp; decisions: docs/allocator.md).
//
// Note [Stream-ordered reuse]
// A block is freed when its last tensor goes away, which may be before the kernels that use
// it have run: the runtime queues work on the device's default (NULL) stream and does not
// wait for it. Each block records the stream it was last used on, and a cached block is only
// handed to an allocation on that same stream. Work on one stream runs in order, so whatever
// the new owner queues runs after every kernel queued by the old one: no wait is needed.
// Blocks cached from another stream are never taken (each stream has its own free lists);
// before any cached block goes back to the plugin (empty_cache, the out-of-memory retry,
// unregistration) the streams it was freed on are synchronised, so the plugin's free never
// races queued work either. Today every block is on the NULL stream; a runtime that queues
// on other streams must allocate with allocate(bytes, stream), and must empty a stream's
// blocks before destroying the stream.
//
// Note [Small-block bins]
// Free blocks of the NULL stream up to 1 MiB whose size is a size class (every block the
// caching mode allocates there, except an out-of-memory retry's exact-size one) are kept in
// one list per size class, linked through the blocks, with a bitmap of the non-empty
// classes: a steady loop of small allocations finds its block by index and keeps it by a
// push, where the map of the other pools costs a tree walk and a vector each way. Every other
// free block stays in its stream's map. Both are searched by the same rule (fits()).
#pragma once

#include "futex_lock.hpp"

#include "backplane/core/storage.hpp"
#include "backplane/dispatch/memory.hpp"

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace bp::detail {

struct Backend;

class CachingAllocator final : public Allocator {
 public:
  CachingAllocator(Backend* backend, int32_t index) : backend_(backend), index_(index) {}
  // Does not call the plugin: at exit the plugin may already be gone. Cached blocks are
  // returned by close() when a plugin is unregistered; at exit the process ends with them.
  ~CachingAllocator() override = default;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // On the default (NULL) stream. Throws bp::Error(OutOfMemory) naming the device, the size,
  // the device's memory and what the cache held, after emptying the cache and retrying once.
  DataPtr allocate(size_t bytes) override { return allocate(bytes, nullptr); }
  DataPtr allocate(size_t bytes, void* stream);

  MemoryStats stats() const;
  void reset_peak();
  // Returns every cached block to the plugin, after synchronising the streams they were
  // freed on. Errors of the plugin's synchronize and free are ignored: nobody could act on
  // them, and the memory is gone either way.
  void empty_cache();
  // The plugin is being unregistered: empties the cache and refuses new allocations. Blocks
  // still held by tensors go straight to the plugin's free when the tensors go; each one
  // counts in `holds` until then, and the free that brings `holds` to 0 finishes the
  // plugin's unregistration (its shutdown: Note [Deferred shutdown] in runtime_plugins.cpp).
  void close(std::atomic<int64_t>* holds);

  // The size of the block that serves `bytes` in caching mode (docs/allocator.md):
  // up to 1 MiB, multiples of 512 bytes (at least 512); up to 8 MiB, multiples of a quarter
  // of the power of two below (256 KiB, 512 KiB, 1 MiB steps); above, multiples of 2 MiB.
  static size_t round_size(size_t bytes);
  // Whether a cached block of `block` bytes may serve a request rounded to `rounded` bytes:
  // at most a quarter more (a block is never split).
  static bool fits(size_t block, size_t rounded) {
    return block >= rounded && block - rounded <= rounded / 4;
  }

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;       // what the plugin allocated
    size_t requested = 0;  // what the current owner asked for (live blocks)
    void* stream = nullptr;
    CachingAllocator* owner = nullptr;
    Block* next_free = nullptr;  // the next block of its small-block bin (while free)
  };
  // Free blocks of one stream, by size; a size's vector is kept when it empties, so a
  // steady loop of allocations allocates no host memory.
  struct StreamPool {
    void* stream = nullptr;
    std::map<size_t, std::vector<Block*>> by_size;
  };

  static void release(void* ctx, void* ptr);  // the DataPtr deleter; ctx is the Block
  void free_block(Block* block);
  Block* take_cached(size_t rounded, void* stream);  // mu_ held
  Block* take_small(size_t rounded);                 // mu_ held; NULL stream, <= 1 MiB
  Block* pop_small(size_t bin);                      // mu_ held; the bin is not empty
  bool keep_small(Block* block);                     // mu_ held; false: not for a bin
  void free_small_bins();                            // mu_ held; plugin_free on each
  StreamPool& pool(void* stream);                    // mu_ held
  void release_cached_locked();                      // mu_ held
  void plugin_free(Block* block);                    // mu_ held; recycles the record
  Block* new_record();                               // mu_ held
  [[noreturn]] void throw_oom(size_t bytes, size_t held, int status);  // mu_ held
  [[noreturn, gnu::cold]] void throw_unloaded() const;

  Backend* backend_;
  int32_t index_;

  // Note [Small-block bins]: bin k holds blocks of (k + 1) * 512 bytes.
  static constexpr size_t kBinStep = 512;
  static constexpr size_t kBins = (size_t{1} << 20) / kBinStep;

  mutable FutexLock mu_;
  bool closed_ = false;
  std::atomic<int64_t>* holds_ = nullptr;  // set by close()
  std::deque<Block> records_;              // every record ever made (stable addresses)
  std::vector<Block*> spare_records_;      // records of blocks given back to the plugin
  std::vector<StreamPool> pools_;          // few streams: searched linearly
  std::array<Block*, kBins> small_bins_{};
  std::array<uint64_t, kBins / 64> small_nonempty_{};  // bit k: bin k is not empty
  MemoryStats stats_;
};

// The mode read on every allocation and free (set_allocator_mode): inline, from a
// constinit atomic that the first read fills in from BACKPLANE_ALLOCATOR (memory.cpp), so
// programs that never call bp::init() get it too.
inline constexpr int kAllocatorModeUnread = -1;
extern constinit std::atomic<int> g_allocator_mode;
AllocatorMode read_initial_allocator_mode();
inline AllocatorMode current_allocator_mode() {
  const int mode = g_allocator_mode.load(std::memory_order_relaxed);
  if (mode == kAllocatorModeUnread) [[unlikely]]
    return read_initial_allocator_mode();
  return static_cast<AllocatorMode>(mode);
}

}  // namespace bp::detail
