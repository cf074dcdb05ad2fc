// Device memory: the per-device caching allocator every tensor's storage comes from, its
// statistics, and the switch that turns caching off. Ownership: a tensor's storage owns one
// block until the last view of it is gone; the block then returns to its device's cache
// (still reserved from the plugin, reusable by a later allocation on the same stream), and
// only empty_cache(), an out-of-memory retry or the plugin's unregistration hand cached
// blocks back to the plugin's free. Every function here is thread-safe (one mutex per
// device). docs/allocator.md describes the size classes, the stream rule and the figures.
#pragma once

#include "backplane/core/device.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace bp {

// Caching (the default): freed blocks are kept per device and stream and reused.
// Direct: every allocation is one plugin alloc of exactly the requested size and every free
// one plugin free, as if there were no cache: for memory checkers (ASan, valgrind, a
// plugin's own guard pages), which only see the plugin's blocks. Set by the config key
// memory.allocator or BACKPLANE_ALLOCATOR (docs/config.md); the variable is also read when
// the runtime starts, so it applies to programs that never call bp::init().
enum class AllocatorMode { Caching, Direct };

std::string_view to_string(AllocatorMode mode);                            // "caching", "direct"
std::optional<AllocatorMode> parse_allocator_mode(std::string_view text);  // nullopt if unknown

// Applies to allocations and frees from now on. Switching to Direct also empties every
// device's cache; blocks still held by tensors go straight to the plugin when they are freed.
void set_allocator_mode(AllocatorMode mode);
AllocatorMode allocator_mode();

// One device's allocator, since its backend registered. Byte counts are block sizes as the
// cache rounds them (docs/allocator.md), except requested_bytes. In direct mode nothing is
// cached (reserved == allocated) and hits/misses stay unchanged.
struct MemoryStats {
  uint64_t allocated_bytes = 0;       // live: blocks held by tensors
  uint64_t requested_bytes = 0;       // live: the sizes the tensors asked for
  uint64_t reserved_bytes = 0;        // held from the plugin: allocated + cached
  uint64_t cached_bytes = 0;          // free blocks kept for reuse: reserved - allocated
  uint64_t peak_allocated_bytes = 0;  // since start or reset_peak_memory_stats
  uint64_t peak_reserved_bytes = 0;
  uint64_t live_blocks = 0;
  uint64_t cached_blocks = 0;
  uint64_t allocations = 0;    // allocate calls that succeeded
  uint64_t cache_hits = 0;     // served from the cache
  uint64_t cache_misses = 0;   // went to the plugin's alloc (caching mode)
  uint64_t plugin_allocs = 0;  // successful calls of the plugin's alloc
  uint64_t plugin_frees = 0;   // calls of the plugin's free
  uint64_t oom_retries = 0;    // plugin allocs that ran out of memory, emptied the cache, retried
};

// Throws bp::Error(Device) for an unknown device.
MemoryStats memory_stats(Device device);
// Sets the peaks to the current values.
void reset_peak_memory_stats(Device device);

// Returns the device's cached blocks to its plugin (synchronising each stream they were
// freed on first); blocks held by tensors are untouched. Throws bp::Error(Device) for an
// unknown device.
void empty_cache(Device device);
// The same for every device of every loaded backend.
void empty_cache();

}  // namespace bp
