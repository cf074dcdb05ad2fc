// The per-device caching allocator (caching_allocator.hpp): size classes, per-stream free
// lists, reuse, the out-of-memory retry, statistics. Direct mode goes through the same code
// with exact sizes and no cache, so its statistics stay meaningful.
#include "caching_allocator.hpp"

#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <new>

namespace bp::detail {

namespace {

// Every allocation is aligned for the widest vector loads a kernel may use.
constexpr size_t kAlignment = 64;
constexpr size_t kMinBlock = 512;
constexpr size_t kSmallLimit = size_t{1} << 20;    // 1 MiB
constexpr size_t kQuarterLimit = size_t{8} << 20;  // 8 MiB
constexpr size_t kLargeStep = size_t{2} << 20;     // 2 MiB

size_t round_up(size_t n, size_t step) {
  if (n > std::numeric_limits<size_t>::max() - step) return n;  // the plugin will refuse it
  return (n + step - 1) / step * step;
}

// The plugin's alloc of `n` bytes on device `index`. BP_OK with a NULL pointer for a
// non-empty block is a failed allocation: the block would reach kernels and copies as NULL
// (found by fuzzing, tests/fuzz/corpus/plugin/regress-*).
bp_status plugin_alloc(const Backend& backend, int32_t index, size_t n, void** ptr) {
  bp_status st = backend.api->alloc(backend.ctx, index, n, kAlignment, ptr);
  if (st == BP_OK && *ptr == nullptr && n > 0) {
    thread_plugin_error() = {BP_ERR_INTERNAL, "the plugin's alloc returned BP_OK and NULL"};
    st = BP_ERR_INTERNAL;
  }
  return st;
}

}  // namespace

namespace {
// round_size, inlined into allocate.
[[gnu::always_inline]] inline size_t rounded(size_t bytes) {
  if (bytes <= kSmallLimit) return std::max(kMinBlock, round_up(bytes, kMinBlock));
  if (bytes < kQuarterLimit) return round_up(bytes, std::bit_floor(bytes) / 4);
  return round_up(bytes, kLargeStep);
}
}  // namespace

size_t CachingAllocator::round_size(size_t bytes) {
  return rounded(bytes);
}

CachingAllocator::StreamPool& CachingAllocator::pool(void* stream) {
  for (StreamPool& p : pools_)
    if (p.stream == stream) return p;
  pools_.push_back(StreamPool{stream, {}});
  return pools_.back();
}

CachingAllocator::Block* CachingAllocator::take_cached(size_t rounded, void* stream) {
  if (stats_.cached_blocks == 0) return nullptr;
  if (stream == nullptr && rounded <= kSmallLimit)
    if (Block* b = take_small(rounded)) return b;
  StreamPool& p = pool(stream);
  for (auto it = p.by_size.lower_bound(rounded); it != p.by_size.end() && fits(it->first, rounded);
       ++it) {
    if (it->second.empty()) continue;
    Block* b = it->second.back();
    it->second.pop_back();
    return b;
  }
  return nullptr;
}

// The smallest non-empty bin whose blocks fit `rounded` (a size class up to 1 MiB).
CachingAllocator::Block* CachingAllocator::take_small(size_t rounded) {
  const size_t first = rounded / kBinStep - 1;
  if (small_bins_[first]) return pop_small(first);  // the common case: exactly this class
  const size_t last = std::min(kBins, (rounded + rounded / 4) / kBinStep) - 1;
  for (size_t word = first / 64; word <= last / 64; ++word) {
    uint64_t bits = small_nonempty_[word];
    if (word == first / 64) bits &= ~uint64_t{0} << (first % 64);
    if (bits == 0) continue;
    const size_t bin = word * 64 + static_cast<size_t>(std::countr_zero(bits));
    return bin <= last ? pop_small(bin) : nullptr;
  }
  return nullptr;
}

// Inline (as keep_small): every small allocation and free runs it.
[[gnu::always_inline]] inline CachingAllocator::Block* CachingAllocator::pop_small(size_t bin) {
  Block* b = small_bins_[bin];
  small_bins_[bin] = b->next_free;
  b->next_free = nullptr;
  if (small_bins_[bin] == nullptr) small_nonempty_[bin / 64] &= ~(uint64_t{1} << (bin % 64));
  return b;
}

[[gnu::always_inline]] inline bool CachingAllocator::keep_small(Block* block) {
  if (block->stream != nullptr || block->size > kSmallLimit || block->size % kBinStep != 0)
    return false;
  const size_t bin = block->size / kBinStep - 1;
  block->next_free = small_bins_[bin];
  small_bins_[bin] = block;
  small_nonempty_[bin / 64] |= uint64_t{1} << (bin % 64);
  return true;
}

void CachingAllocator::free_small_bins() {
  for (size_t bin = 0; bin < kBins; ++bin) {
    for (Block* b = small_bins_[bin]; b != nullptr;) {
      Block* next = b->next_free;
      plugin_free(b);
      b = next;
    }
    small_bins_[bin] = nullptr;
  }
  small_nonempty_.fill(0);
}

CachingAllocator::Block* CachingAllocator::new_record() {
  if (!spare_records_.empty()) {
    Block* b = spare_records_.back();
    spare_records_.pop_back();
    return b;
  }
  return &records_.emplace_back();
}

DataPtr CachingAllocator::allocate(size_t bytes, void* stream) {
  const bool caching = current_allocator_mode() == AllocatorMode::Caching;
  const size_t size = caching ? rounded(bytes) : bytes;
  std::lock_guard lock(mu_);
  if (closed_) [[unlikely]]
    throw_unloaded();
  Block* block = nullptr;
  if (caching) {
    // The common case inline: a free block of exactly this size class (Note [Small-block
    // bins]); take_cached looks further.
    const size_t bin = size / kBinStep - 1;
    if (stream == nullptr && size <= kSmallLimit && small_bins_[bin] != nullptr)
      block = pop_small(bin);
    else
      block = take_cached(size, stream);
  }
  if (block) {
    ++stats_.cache_hits;
    --stats_.cached_blocks;
    stats_.cached_bytes -= block->size;
  } else {
    if (caching) ++stats_.cache_misses;
    // The record first: once the plugin has allocated, nothing may throw before it is kept.
    block = new_record();
    void* ptr = nullptr;
    thread_plugin_error() = {};
    bp_status s = plugin_alloc(*backend_, index_, size, &ptr);
    size_t got = size;
    if (s == BP_ERR_OUT_OF_MEMORY && stats_.cached_blocks > 0) {
      // Out of memory while the cache holds blocks: give them back and try once more, at
      // the exact size when rounding asked for more than the caller needs.
      const size_t held = stats_.cached_bytes;
      release_cached_locked();
      ++stats_.oom_retries;
      thread_plugin_error() = {};
      got = bytes;
      s = plugin_alloc(*backend_, index_, got, &ptr);
      if (s != BP_OK) {
        spare_records_.push_back(block);
        throw_oom(bytes, held, s);
      }
    } else if (s != BP_OK) {
      spare_records_.push_back(block);
      throw_oom(bytes, 0, s);
    }
    ++stats_.plugin_allocs;
    *block = Block{ptr, got, 0, stream, this};
    stats_.reserved_bytes += got;
    stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  }
  block->requested = bytes;
  block->stream = stream;
  ++stats_.allocations;
  ++stats_.live_blocks;
  stats_.allocated_bytes += block->size;
  stats_.requested_bytes += bytes;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  return DataPtr(block->ptr, block, &CachingAllocator::release);
}

void CachingAllocator::release(void* ctx, void*) {
  auto* block = static_cast<Block*>(ctx);
  block->owner->free_block(block);
}

void CachingAllocator::free_block(Block* block) {
  std::unique_lock lock(mu_);
  --stats_.live_blocks;
  stats_.allocated_bytes -= block->size;
  stats_.requested_bytes -= block->requested;
  block->requested = 0;
  if (closed_) {
    // The plugin was unregistered while a tensor held this block; its shutdown waits for
    // the last such block (Note [Deferred shutdown]), so the plugin can still free it.
    plugin_free(block);
    std::atomic<int64_t>* holds = holds_;
    lock.unlock();
    if (holds->fetch_sub(1, std::memory_order_acq_rel) == 1)
      Runtime::get().finish_unregistration(backend_->plugin);
    return;
  }
  if (current_allocator_mode() != AllocatorMode::Caching) {
    // A free cannot report an error to anyone: the tensor is already gone.
    plugin_free(block);
    return;
  }
  // Note [Stream-ordered reuse]: kept on the stream it was freed on.
  if (!keep_small(block)) {
    try {
      pool(block->stream).by_size[block->size].push_back(block);
    } catch (const std::bad_alloc&) {
      plugin_free(block);  // no host memory for the free list: give the block back instead
      return;
    }
  }
  ++stats_.cached_blocks;
  stats_.cached_bytes += block->size;
}

void CachingAllocator::plugin_free(Block* block) {
  backend_->api->free(backend_->ctx, index_, block->ptr);
  ++stats_.plugin_frees;
  stats_.reserved_bytes -= block->size;
  *block = Block{};
  spare_records_.push_back(block);
}

void CachingAllocator::release_cached_locked() {
  const bp_device_api* api = backend_->api;
  const bool any_small = std::any_of(small_nonempty_.begin(), small_nonempty_.end(),
                                     [](uint64_t bits) { return bits != 0; });
  // Note [Stream-ordered reuse]: queued work on the NULL stream may still use them.
  if (any_small && api->synchronize) api->synchronize(backend_->ctx, index_, nullptr);
  free_small_bins();
  for (StreamPool& p : pools_) {
    const bool any = std::any_of(p.by_size.begin(), p.by_size.end(),
                                 [](const auto& entry) { return !entry.second.empty(); });
    // Note [Stream-ordered reuse]: queued work may still use these blocks.
    if (any && api->synchronize) api->synchronize(backend_->ctx, index_, p.stream);
    for (auto& [size, blocks] : p.by_size)
      for (Block* b : blocks) plugin_free(b);
    p.by_size.clear();
  }
  thread_plugin_error() = {};
  stats_.cached_blocks = 0;
  stats_.cached_bytes = 0;
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mu_);
  release_cached_locked();
}

void CachingAllocator::close(std::atomic<int64_t>* holds) {
  std::lock_guard lock(mu_);
  release_cached_locked();
  closed_ = true;
  holds_ = holds;
  holds->fetch_add(static_cast<int64_t>(stats_.live_blocks), std::memory_order_acq_rel);
}

void CachingAllocator::throw_unloaded() const {
  BP_FAIL(ErrorCode::Device,
          "device {}:{} is not available: its backend '{}' was unloaded (unregister_plugin) "
          "while this call was running",
          backend_->name, index_, backend_->name);
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mu_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

void CachingAllocator::throw_oom(size_t bytes, size_t held, int status) {
  const Device device(backend_->type, static_cast<int16_t>(index_));
  PluginError err = std::exchange(thread_plugin_error(), {});
  // The memory now, not at registration (free_memory 0 means unknown, says the ABI).
  bp_device_props props = backend_->props[static_cast<size_t>(index_)];
  bp_device_props now{};
  now.struct_size = sizeof now;
  if (backend_->api->device_properties(backend_->ctx, index_, &now) == BP_OK) {
    props.total_memory = now.total_memory;
    props.free_memory = now.free_memory;
  }
  thread_plugin_error() = {};
  // 0 means unknown for both (the reference backend reports neither).
  const std::string total_text = props.total_memory == 0
                                     ? std::string("total unknown")
                                     : fmt::format("{} bytes total", props.total_memory);
  const std::string free_text = props.free_memory == 0 ? std::string("free memory unknown")
                                                       : fmt::format("{} free", props.free_memory);
  const std::string cache_text =
      current_allocator_mode() == AllocatorMode::Direct
          ? fmt::format("direct allocator: {} bytes in live tensors", stats_.allocated_bytes)
      : held > 0 ? fmt::format(
                       "the caching allocator held {} bytes of cached blocks, returned to the "
                       "device before one retry, and {} bytes in live tensors",
                       held, stats_.allocated_bytes)
                 : fmt::format(
                       "the caching allocator held no cached blocks and {} bytes in "
                       "live tensors",
                       stats_.allocated_bytes);
  detail::throw_error(
      status == BP_ERR_OUT_OF_MEMORY ? ErrorCode::OutOfMemory : ErrorCode::Backend,
      fmt::format("out of memory on {} allocating {} bytes (device memory: {}, {}; {}){}{}",
                  device.str(), bytes, total_text, free_text, cache_text,
                  err.message.empty() ? "" : ": ", err.message));
}

}  // namespace bp::detail
