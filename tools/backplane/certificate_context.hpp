// What `backplane conformance --certificate` and `backplane verify` need to know about a run
// beyond its report: the plugin behind the device (descriptor, ABI, file), the runtime, a
// fingerprint of the planned cases, and the time, gathered from the running runtime.
#pragma once

#include <backplane/conformance/certificate.hpp>
#include <backplane/conformance/plan.hpp>

#include <string>
#include <vector>

namespace bp::cli {

struct RunSelection {
  std::string ops, dtypes;   // --ops, --dtypes as given
  std::string expectations;  // --expect file, "" for none
  std::string isa;           // the device's "isa" attribute
};

conformance::CertificateContext certificate_context(
    const conformance::Report& report, const std::vector<conformance::PlannedCase>& plan,
    const RunSelection& selection);

// SHA-256 over the planned case ids, one per line in plan order: two runs with the same
// fingerprint planned the same cases.
std::string plan_sha256(const std::vector<conformance::PlannedCase>& plan);

}  // namespace bp::cli
