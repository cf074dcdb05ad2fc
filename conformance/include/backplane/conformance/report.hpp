// The result of a conformance run and its renderings: the JSON report (the format shards
// are merged from), JUnit XML for CI systems, Markdown for a pull request or a vendor's
// release notes, and the op × dtype matrix printed on a terminal. Plain data; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bp::conformance {

// Blocked: the op has the plugin's own kernel, but the case could not run because a helper op
// it needs on the device (copy_ for a dtype conversion, a primitive of a fused composite's
// input preparation) has no kernel there: nothing was compared, so it is not a pass.
enum class CaseStatus { Passed, Failed, Unsupported, Xfail, Xpass, Crashed, Timeout, Blocked };
inline constexpr size_t kCaseStatusCount = 8;
std::string_view to_string(CaseStatus status);  // "passed", "failed", ... "blocked"
std::optional<CaseStatus> parse_case_status(std::string_view text);
// Failed, Xpass, Crashed, Timeout and Blocked make a run fail.
bool is_failure(CaseStatus status);

struct CaseResult {
  std::string id;     // op/dtype/sample
  int64_t index = 0;  // position in the unsharded run's plan (merge restores this order)
  std::string op;
  std::string dtype;
  CaseStatus status = CaseStatus::Passed;
  double max_abs_err = 0.0;
  int64_t max_ulp = 0;
  std::string message;      // why it failed, crashed, timed out or is unsupported
  std::string expectation;  // the expectations entry that applied: "reason (file:line)"
  std::string repro;        // one command that reruns exactly this case (failures only)
  // The device's results were compared with the reference's (an error sample, a crash or a
  // case that did not run compares nothing).
  bool compared = false;
  double seconds = 0.0;
  // --perf: the op's median time on the device, and the baseline's for the same case (0
  // when the baseline has none): the case fails when their ratio exceeds the threshold.
  double median_seconds = 0.0;
  double baseline_seconds = 0.0;
  // --determinism: "bitwise" (two more runs gave the same bits), "tolerated" (they differ
  // within the expectations file's [[nondeterministic]] entry), "differs"; "" when the
  // case was not repeated.
  std::string determinism;
};

// How the device runs one operator of the catalog.
struct OpCoverage {
  std::string op;
  bool primitive = true;
  // "native" (the plugin's own kernel), "decomposed" (a composite through core's
  // decomposition), "fallback" (another backend runs it), "missing".
  std::string implementation;
};

struct Summary {
  int64_t passed = 0, failed = 0, unsupported = 0, xfail = 0, xpass = 0, crashed = 0, timeout = 0,
          blocked = 0;
  // Ops the plugin claims (its own kernel: coverage "native") and, of the ops with cases in
  // the run, those with at least one case whose results were compared with the reference
  // (CaseResult::compared). A run whose claimed ops were never compared proves nothing, and
  // the summary line says so.
  int64_t ops_claimed = 0, ops_compared = 0;
  int64_t total() const {
    return passed + failed + unsupported + xfail + xpass + crashed + timeout + blocked;
  }
  int64_t failures() const { return failed + xpass + crashed + timeout + blocked; }
};

struct Report {
  std::string device;       // "cpu:0"
  std::string device_name;  // the device's own name
  std::string plugin;       // plugin name (and version)
  std::string plugin_path;  // library file, "" for a built-in backend
  // Where it ran, so reports from two machines can be compared: the host's CPU model and
  // the device's attributes as one line ("isa=avx2 highway=AVX2 onednn=avx2"; "" when the
  // plugin reports none; bp::device_attributes).
  std::string host_cpu;
  std::string device_attributes;
  uint64_t seed = 0;
  std::string suite;              // "quick" or "full"
  std::string shard;              // "I/N", or "" when not sharded
  std::vector<OpCoverage> ops;    // every catalog op
  std::vector<CaseResult> cases;  // in plan order
  double seconds = 0.0;           // wall time of the run (sum over shards after a merge)
  // --perf runs: the baseline report compared against and the threshold (a ratio of
  // medians); "" and 0 otherwise.
  std::string perf_baseline;
  double perf_threshold = 0.0;
  double perf_floor_seconds = 0.0;  // times below count as this (timer noise)
  // The capability manifest's audit (manifest.hpp, to_json(ManifestAudit)); null when the
  // run made none (a built-in backend, a plugin without a manifest, a shard, --perf).
  nlohmann::json manifest_audit;

  Summary summary() const;
  // Fraction of primitives with a native kernel; fraction of composites the device runs
  // (a fused kernel, or the decomposition with none of its cases unsupported; one without
  // cases in this run counts by its table entry). Computed from `ops` and `cases`, so a
  // merged report equals an unsharded one.
  double primitive_coverage() const;
  double composite_coverage() const;
  bool failed() const { return summary().failures() > 0; }
};

nlohmann::json to_json(const Report& report);
// Reads a report written by to_json; throws bp::Error naming `source` and what is wrong.
Report report_from_json(const nlohmann::json& json, std::string_view source);
std::string to_junit(const Report& report);
std::string to_markdown(const Report& report);
// The op × dtype matrix and the summary, for a terminal (ANSI colours when `color`).
std::string terminal_matrix(const Report& report, bool color);

// --perf: per op, its cases' medians and the geometric mean of their ratios (median /
// baseline median, both at least perf_floor_seconds) over the cases that have a baseline.
struct OpPerf {
  std::string op;
  int64_t cases = 0;
  double median_seconds = 0.0;    // sum over its cases
  double baseline_seconds = 0.0;  // sum over the cases with a baseline
  double ratio = 0.0;             // geometric mean; 0 when no case has a baseline
};
std::vector<OpPerf> perf_by_op(const Report& report);
// One case's ratio as perf_by_op computes it (0 without a baseline).
double perf_ratio(const Report& report, const CaseResult& c);

// Combines the reports of the shards of one run (same device, plugin, seed and suite; no
// case twice), in case-id order of the plan; throws bp::Error naming the first mismatch.
Report merge_reports(std::vector<Report> shards);

}  // namespace bp::conformance
