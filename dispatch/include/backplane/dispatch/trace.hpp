// Tracing: records every operator call (op, device, input shapes and dtypes, duration,
// whether it ran the backend's kernel, the op's composite decomposition or the CPU fallback,
// and the error when it threw) and writes a Chrome/Perfetto trace (JSON trace event format)
// that ui.perfetto.dev and chrome://tracing open. Calls made inside another call (a
// composite's primitives, the ops a fallback runs) are their own events, nested in time.
// BACKPLANE_TRACE=FILE turns it on for a whole run; docs/tracing.md describes the format.
// The runtime owns the recorded events (in memory until written). When off, a call pays one
// relaxed atomic load and a predicted branch. Thread-safe.
#pragma once

#include <cstddef>
#include <filesystem>

namespace bp {

// Starts recording a fresh trace to be written to `file`: the clock restarts and events
// recorded so far are discarded. The file is written by stop_trace() or, if the trace is
// still on then, when the process exits. Starting while already tracing writes nothing: the
// earlier trace is dropped and the new one goes to the new `file`.
void start_trace(const std::filesystem::path& file);

// Stops recording and writes the trace file now; returns the number of events written
// (0, writing nothing, when no trace is on). Throws bp::Error (InvalidArgument) naming the
// file when it cannot be written; recording is stopped either way.
size_t stop_trace();

// True between start_trace() and stop_trace().
bool tracing();

}  // namespace bp
