// A conformance case's op run again on the device, for what one correct run cannot show:
// how long it takes (`conformance --perf`) and whether two runs give the same bits
// (`conformance --determinism`). The inputs are the case's own (run_case.hpp's
// make_case_inputs, from the seed), copied to the device before every call, so an op that
// writes its argument starts from the same values each time.
#pragma once

#include "backplane/conformance/case_id.hpp"

#include <backplane/backplane.hpp>

#include <cstdint>
#include <string>

namespace bp::conformance {

// The median of `repetitions` timed calls after one untimed warm-up call. Each timed call
// includes reading its outputs back to the host: that is what makes an asynchronous device
// finish, and it is the same work on every run of the case. Throws bp::Error when the op
// fails on the device (ErrorCode::NotImplemented when it has no kernel).
struct CaseTiming {
  double median_seconds = 0.0;
  int repetitions = 0;
};
CaseTiming time_case(const CaseId& id, Device device, uint64_t suite_seed, int repetitions);

// Two runs of the case on the device, compared bit for bit, output by output.
struct Repeatability {
  bool bitwise_equal = true;
  double max_abs_diff = 0.0;     // over every output element (NaN against NaN counts as 0)
  double max_rel_diff = 0.0;     // |a - b| / |a| where a != 0
  std::string first_difference;  // "output 0 [3]: 0.1 then 0.10000001" ("" when equal)
};
Repeatability repeat_case(const CaseId& id, Device device, uint64_t suite_seed);

}  // namespace bp::conformance
