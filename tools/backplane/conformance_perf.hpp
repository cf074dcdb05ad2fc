// `backplane conformance --perf` and `--determinism`: the baseline comparison of a perf run
// (a case slower than its baseline by more than the threshold fails) and the text each mode
// adds under the matrix (per-op ratios; the ops found nondeterministic).
#pragma once

#include <backplane/conformance/report.hpp>

#include <string>

namespace bp::cli {

// Reads the baseline report (a previous --perf --json of this device or another) and fills
// each case's baseline_seconds; a case whose ratio of medians exceeds the report's
// perf_threshold fails, its message naming both times, and reruns with `repro_prefix`.
void compare_with_baseline(conformance::Report& report, const std::string& baseline_path,
                           const std::string& repro_prefix);

// Per op: cases, total median time, baseline time and the ratio, slowest ratio first.
std::string perf_table(const conformance::Report& report);

// The ops with a case that differed between runs, and those tolerated by a declaration.
std::string determinism_summary(const conformance::Report& report);

}  // namespace bp::cli
