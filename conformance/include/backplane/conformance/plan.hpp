// Which cases a conformance run holds: every (op record, dtype, sample) and every device
// check, filtered by the command line (--ops, --dtypes, --quick/--full, --case, --shard),
// with what is known before running anything: cases the expectations file or the plugin's
// declarations make "unsupported" are listed but never run.
#pragma once

#include "backplane/conformance/case_id.hpp"
#include "backplane/conformance/expectations.hpp"

#include <backplane/backplane.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bp::conformance {

struct SuiteOptions {
  Device device;
  uint64_t seed = 0;
  bool full = false;                   // every sample; else the quick ones
  std::optional<std::string> ops;      // ECMAScript regex searched in op names ("device_api"
                                       // for the device checks)
  std::vector<ScalarType> dtypes;      // empty = all; device checks are not filtered by dtype
  std::optional<std::string> case_id;  // exactly this case (quick or not)
  // --perf: per op a fixed set of large samples in one dtype (plan.cpp), no device or
  // gradient checks.
  bool perf = false;
  int shard_index = 0;  // this run holds case i when i % shard_count == index
  int shard_count = 1;
};

// Parses "I/N" (0 <= I < N), throwing bp::Error naming the text.
void parse_shard(std::string_view text, int& index, int& count);

struct PlannedCase {
  CaseId id;
  int64_t index = 0;  // position in the unsharded plan
  // Set when the case is not run: the reason (expectations entry, or the plugin declares no
  // kernel / the device no storage for the dtype).
  std::optional<std::string> unsupported;
  Expectation expectation;
  // The expectations file's [[nondeterministic]] entry for the case: how far apart two runs
  // may be under --determinism.
  std::optional<Expectations::Rule> nondeterministic;
};

// The cases of the run in a fixed order (records in catalog order, dtypes in ScalarType
// order, samples in record order, then the device checks); a shard is every N-th case of
// that order, so shards are disjoint, cover the whole run and do not depend on the machine.
std::vector<PlannedCase> plan_cases(const SuiteOptions& options, const Expectations& expectations);

}  // namespace bp::conformance
