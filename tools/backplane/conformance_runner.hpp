// Running planned conformance cases in worker processes, shared by `backplane conformance`
// (the whole plan) and `backplane verify --rerun` (a sample of a certificate's cases): the
// worker command line, each outcome turned into a case status under its expectation, and
// the progress shown while they run.
#pragma once

#include <backplane/backplane.hpp>
#include <backplane/conformance/plan.hpp>
#include <backplane/conformance/report.hpp>
#include <backplane/conformance/worker_pool.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace bp::cli {

// How workers start and run: this program again on one device, with the run's plugins,
// config and seed.
struct WorkerSetup {
  std::filesystem::path self;
  Device device;
  uint64_t seed = 0;
  std::vector<std::string> plugin_files;  // absolute
  std::string config;                     // --config file, "" for the usual search
  conformance::WorkerMode mode;           // --verbose, --perf, --determinism
  int jobs = 1;
  double timeout_seconds = 60.0;
};

// One report entry per planned case (id, op, dtype, expectation), the unsupported ones
// final already; runs the others in workers and records each outcome, with `repro_prefix
// --case ID` as the rerun line of a failure. Returns each case's details (device and
// reference outputs around a mismatch, with --verbose), by plan position. Under
// --determinism a case whose repeated runs differ beyond what its [[nondeterministic]]
// entry allows (bitwise without one) fails.
std::vector<std::string> run_plan(conformance::Report& report,
                                  const std::vector<conformance::PlannedCase>& plan,
                                  const WorkerSetup& setup, const std::string& repro_prefix);

// Single quotes for a shell, unless the word needs none.
std::string shell_quote(const std::string& s);

}  // namespace bp::cli
