// Which threads are inside a call that may reach a plugin (calls_in_flight.hpp).
#include "calls_in_flight.hpp"

#include <thread>

namespace bp::detail {

thread_local constinit ThreadCalls* t_calls __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

std::atomic<ThreadCalls*> g_registry{nullptr};

// Gives the record back when its thread ends. A separate thread_local so that t_calls stays
// trivially destructible (no TLS init guard on the hot path); it is touched only here.
struct ThreadCallsOwner {
  ~ThreadCallsOwner() {
    if (t_calls) {
      t_calls->in_use.store(false, std::memory_order_release);
      t_calls = nullptr;
    }
  }
};
thread_local ThreadCallsOwner t_owner;

}  // namespace

ThreadCalls& register_this_thread() {
  (void)&t_owner;  // constructs it, so its destructor runs at thread exit
  // Reuse a record a finished thread gave back: its seq is even (it left every call).
  for (ThreadCalls* r = g_registry.load(std::memory_order_acquire); r; r = r->next) {
    bool free = false;
    if (r->in_use.compare_exchange_strong(free, true, std::memory_order_acq_rel))
      return *(t_calls = r);
  }
  auto* r = new ThreadCalls;  // never freed: unregistration may be reading it
  r->in_use.store(true, std::memory_order_relaxed);
  ThreadCalls* head = g_registry.load(std::memory_order_relaxed);
  do {
    r->next = head;
  } while (!g_registry.compare_exchange_weak(head, r, std::memory_order_release,
                                             std::memory_order_relaxed));
  return *(t_calls = r);
}

void wait_for_calls_in_flight() {
  // Pairs with the seq_cst store of PluginCallScope (Note [Waiting for calls in flight]).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  for (ThreadCalls* r = g_registry.load(std::memory_order_acquire); r; r = r->next) {
    if (r == t_calls) continue;
    const uint64_t seen = r->seq.load(std::memory_order_seq_cst);
    if ((seen & 1) == 0) continue;
    while (r->seq.load(std::memory_order_acquire) == seen) std::this_thread::yield();
  }
}

}  // namespace bp::detail
