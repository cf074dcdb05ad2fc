// Internal: which threads are inside a call that may reach a plugin, so that unregistering
// a plugin can wait for the calls that may still use its kernels or its device before the
// plugin's shutdown runs.
//
// Note [Waiting for calls in flight]
// Calls read the kernel tables and the backend slots without a lock (Note [Lock-free kernel
// tables]), so a call may hold a plugin's kernel or device functions after unregistration
// has removed them. Each thread owns one record whose `seq` is odd while the thread is
// inside such a call (PluginCallScope, outermost scope only: calls nest through composites
// and the fallback). Entering stores the odd value with seq_cst before the call reads a
// table; unregistration publishes the emptied tables, then (seq_cst) reads every record and
// waits until each record that was odd has moved on. Either the call's store comes first in
// the total order, and unregistration sees it inside and waits; or the call reads the
// emptied table and never reaches the plugin. The cost per call is one store with a full
// fence on entry and a plain store on exit, both to a cache line only this thread writes.
#pragma once

#include <atomic>
#include <cstdint>

namespace bp::detail {

struct ThreadCalls {
  std::atomic<uint64_t> seq{0};     // odd: inside a call
  uint32_t depth = 0;               // nesting, this thread only
  std::atomic<bool> in_use{false};  // owned by a live thread
  ThreadCalls* next = nullptr;      // the registry's list (append only, never freed)
};

// This thread's record, registered on first use (and returned to the registry when the
// thread ends).
ThreadCalls& register_this_thread();
// initial-exec: the runtime is a static library of the executable, so the pointer sits at a
// fixed offset from the thread pointer (no __tls_get_addr on the hot path); constinit: it
// needs no dynamic initialisation, so a read calls no TLS init wrapper.
extern thread_local constinit ThreadCalls* t_calls __attribute__((tls_model("initial-exec")));

class PluginCallScope {
 public:
  // always_inline, as the destructor: both run on every call, and inside the fast path's
  // large inlined body GCC would otherwise call them.
  [[gnu::always_inline]] PluginCallScope() : calls_(t_calls ? *t_calls : register_this_thread()) {
    if (calls_.depth++ == 0)
      calls_.seq.store(calls_.seq.load(std::memory_order_relaxed) + 1, std::memory_order_seq_cst);
  }
  [[gnu::always_inline]] ~PluginCallScope() {
    if (--calls_.depth == 0)
      calls_.seq.store(calls_.seq.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  PluginCallScope(const PluginCallScope&) = delete;
  PluginCallScope& operator=(const PluginCallScope&) = delete;

 private:
  ThreadCalls& calls_;
};

// Blocks until every call that was in flight on another thread when this was called has
// returned. The calling thread's own call, if any, is not waited for (it cannot finish
// while it waits here).
void wait_for_calls_in_flight();

}  // namespace bp::detail
