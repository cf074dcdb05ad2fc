// Internal: a mutex whose uncontended lock and unlock are one atomic instruction each, for
// the caching allocator (caching_allocator.hpp), which takes its lock on every allocation
// and every free. std::mutex costs ~110 instructions per lock-unlock pair through glibc's
// pthread_mutex; this costs ~10. Contended, it sleeps in the kernel (futex, through
// std::atomic::wait) instead of spinning, so a thread holding it across a slow plugin call
// (a device malloc, a synchronise) does not make the others burn CPU.
//
// The three-state protocol of Drepper's "Futexes Are Tricky": 0 free, 1 held, 2 held and
// someone may be waiting. Only an unlock that finds 2 pays for a wake-up.
// Meets BasicLockable, so std::lock_guard and std::unique_lock work with it.
#pragma once

#include <atomic>
#include <cstdint>

namespace bp::detail {

class FutexLock {
 public:
  void lock() {
    uint32_t expected = kFree;
    if (!state_.compare_exchange_strong(expected, kHeld, std::memory_order_acquire,
                                        std::memory_order_relaxed)) [[unlikely]]
      lock_contended(expected);
  }
  void unlock() {
    if (state_.exchange(kFree, std::memory_order_release) == kWaiting) [[unlikely]]
      state_.notify_one();
  }

 private:
  static constexpr uint32_t kFree = 0, kHeld = 1, kWaiting = 2;

  [[gnu::noinline]] void lock_contended(uint32_t seen) {
    // Mark the lock as waited for, then sleep until an unlock frees it; whoever takes it
    // from here keeps the mark (it cannot know whether others still wait).
    if (seen != kWaiting) seen = state_.exchange(kWaiting, std::memory_order_acquire);
    while (seen != kFree) {
      state_.wait(kWaiting, std::memory_order_relaxed);
      seen = state_.exchange(kWaiting, std::memory_order_acquire);
    }
  }

  std::atomic<uint32_t> state_{kFree};
};

}  // namespace bp::detail
