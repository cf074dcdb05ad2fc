// The dispatcher's side of tracing (trace.hpp): whether a trace is recording, what a traced
// call found out about itself, and recording the event. Calls reach tracing as a dispatch
// layer (LayerKey::Tracing, layers.hpp), enabled while a trace is on.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/core/device.hpp"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace bp::detail {

// True while a trace is on (bp::tracing()).
extern std::atomic<bool> g_tracing;

inline bool trace_on() {
  return g_tracing.load(std::memory_order_relaxed);
}

// How a call ran: detail::dispatch (dispatch_impl.hpp) writes the path when it leaves the kernel
// path; an exception makes it Error.
enum class CallPath : uint8_t { Error, Kernel, Composite, Fallback };

struct CallRecord {
  Device device;
  bool has_device = false;  // false when the call's device could not be determined
  CallPath path = CallPath::Kernel;
  bool fallback = false;  // took the fallback path (also when it then threw)
};

// The start of a traced call: its inputs (shapes and dtypes, as JSON text) and start time.
struct TraceStart {
  uint64_t epoch = 0;  // which trace it belongs to (start_trace() begins a new one)
  int64_t start_ns = 0;
  std::string inputs;  // "\"shapes\":[...],\"dtypes\":[...]"
};

TraceStart trace_begin(const OpDef& op, const std::vector<IValue>& args);
// Records the event (taking start.inputs); `error` is the message when the call threw, else
// nullptr.
void trace_end(OpId op, TraceStart& start, const CallRecord& record, const char* error);

}  // namespace bp::detail
