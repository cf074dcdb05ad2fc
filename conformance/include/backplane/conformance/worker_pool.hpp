// Process isolation for the conformance suite: cases run in worker processes (the
// `backplane` program started again in worker mode), one case at a time per worker, with a
// per-case timeout. A worker that crashes (signal, abort, exit) or hangs is killed with its
// whole process group; its case is recorded as crashed or timeout with the signal and the
// last lines the worker printed, and a fresh worker takes the next case. A vendor's kernel
// can therefore never end the run, and a repro line reruns one case the same way.
//
// Protocol: the parent writes case ids, one per line, to the worker's stdin; the worker
// writes one JSON object per line to file descriptor 3 — first {"ready":true} once its
// plugins are loaded, then one result per case. The worker's stdout and stderr go to a pipe
// the parent keeps the tail of. POSIX (Linux) only.
#pragma once

#include "backplane/conformance/case_id.hpp"
#include "backplane/conformance/run_case.hpp"

#include <functional>
#include <string>
#include <vector>

namespace bp::conformance {

struct WorkerOutcome {
  enum class Kind { Ran, Crashed, TimedOut };
  Kind kind = Kind::Ran;
  CaseRun run;          // for Ran
  std::string message;  // for Crashed / TimedOut: what happened and the worker's last output
  double seconds = 0.0;
};

struct WorkerPoolOptions {
  // The worker program and its arguments (argv[0] is the program's path).
  std::vector<std::string> worker_argv;
  int jobs = 1;                   // worker processes at once
  double timeout_seconds = 60.0;  // per case
};

// Runs every case in workers and calls `on_result(index into cases, outcome)` as each
// finishes (in completion order, on the calling thread). Throws bp::Error when a worker
// cannot start (it exits before saying ready), with the worker's own output.
void run_in_workers(const std::vector<CaseId>& cases, const WorkerPoolOptions& options,
                    const std::function<void(size_t, const WorkerOutcome&)>& on_result);

// How a child process ended, from its waitpid status: "exited with status 3", "killed by
// signal SIGSEGV (Segmentation fault)".
std::string describe_wait_status(int status);

// What a worker does with each case: run and compare it (run_case; `explain` fills the
// details); with `perf_repetitions` > 0 only time it (time_case, nothing compared); with
// `determinism`, run a passed case twice more and compare the runs (repeat_case).
struct WorkerMode {
  bool explain = false;
  int perf_repetitions = 0;
  bool determinism = false;
};

// The worker side: says ready on `result_fd`, then runs each case id read from stdin on
// `device` as `mode` says and writes its result line; returns 0 when stdin closes.
int worker_loop(Device device, uint64_t suite_seed, int result_fd, const WorkerMode& mode = {});

}  // namespace bp::conformance
