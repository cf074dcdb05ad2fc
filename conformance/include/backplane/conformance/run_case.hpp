// Running one conformance case in this process: build the sample's inputs on the reference
// device, copy them to the device under test into buffers fenced by guard bytes, run the op
// there (out-variant, into guarded outputs) and on the reference, then compare the results,
// the guard bytes and the inputs (a kernel must not write its inputs). The process runner
// (worker_pool.hpp) calls this in child processes so a crashing kernel cannot take the run
// down; tests and `--jobs 0` call it directly.
#pragma once

#include "backplane/conformance/case_id.hpp"
#include "backplane/conformance/repeat_case.hpp"
#include "backplane/conformance/tolerance.hpp"

#include <backplane/backplane.hpp>

#include <backplane/core/catalog.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bp::conformance {

// What one case found, before the expectations file is applied.
struct CaseRun {
  // Unsupported: the device has no kernel for the op itself (for this dtype), or runs it as
  // a composite whose decomposition needs a primitive it lacks. Blocked: the plugin has its
  // own kernel for the op, but a helper op the call needs on the device has none (copy_ for
  // an input's dtype conversion, say): the message names it ("blocked: needs copy_ ...").
  enum class Kind { Passed, Failed, Unsupported, Blocked };
  Kind kind = Kind::Passed;
  std::string message;  // why it failed / is unsupported; "" when passed
  double max_abs_err = 0.0;
  int64_t max_ulp = 0;
  bool compared = false;  // the device's results were compared with the reference's
  // With `explain`: each output of the device and of the reference, around the first
  // mismatch (or their first elements when they agree). "" otherwise.
  std::string details;
  // --perf: the median time of the op on the device (time_case); 0 otherwise.
  double median_seconds = 0.0;
  // --determinism: a passed case run twice more and compared (repeat_case).
  std::optional<Repeatability> repeat;
};

// The per-case seed: the suite's seed mixed with the case id, so a case draws the same
// inputs whichever process, shard or order runs it.
uint64_t case_seed(uint64_t suite_seed, const CaseId& id);

// Runs case `id` on `device`. Never throws for a failure of the device (that is a Failed
// result); throws bp::Error when the id names no case (unknown op, dtype or sample).
// `explain` fills CaseRun::details.
CaseRun run_case(const CaseId& id, Device device, uint64_t suite_seed, bool explain = false);

// One case's arguments as the suite makes them (on the reference device, from the seed),
// with what judges its result: the op, an error input's expected text, and the tolerance of
// each output (for the dtypes the reference returns). `id` must name an op's case, not a
// device-API check.
struct CaseInputs {
  const OpDef* op = nullptr;
  std::vector<IValue> args;
  std::vector<std::string> argument_names;  // schema names, in args' order
  std::optional<std::string> expect_error;
  std::vector<Tolerance> tolerances;      // one per output of the reference's call
  std::vector<ScalarType> output_dtypes;  // the dtype of each of those outputs
};
CaseInputs make_case_inputs(const CaseId& id, uint64_t suite_seed);

// The inputs of case `id` as the suite makes them (on the reference device, from the seed):
// each argument in schema order; a tensor with its dtype, shape, strides, storage offset
// and values (row-major, the first 16). Runs no kernel of any device under test, so the
// parent process can print it even for a case that crashed its worker.
std::string describe_inputs(const CaseId& id, uint64_t suite_seed);

}  // namespace bp::conformance
