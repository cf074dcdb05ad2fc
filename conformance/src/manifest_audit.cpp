// The capability manifest audit (manifest.hpp): the (op, dtype) pairs a plugin claims,
// against the kernels it registered at init and the cases a conformance run passed.
#include "backplane/conformance/manifest.hpp"

#include <backplane/core/catalog.hpp>
#include <backplane/core/dtype.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace bp::conformance {
namespace {

// What the run says of one (op, dtype): any case, any pass, any failure status.
struct Outcome {
  bool ran = false, passed = false, failed = false;
};
using Outcomes = std::map<std::pair<std::string, std::string>, Outcome>;

Outcomes outcomes_of(const Report& report) {
  Outcomes out;
  for (const CaseResult& c : report.cases) {
    Outcome& o = out[{c.op, c.dtype}];
    o.ran = true;
    o.passed = o.passed || c.status == CaseStatus::Passed;
    o.failed = o.failed || is_failure(c.status);
  }
  return out;
}

std::string pair_name(const std::string& op, int code) {
  return op + "/" + std::string(dtype_name(static_cast<ScalarType>(code)));
}

// One line: the first `shown` entries of a list, and how many more there are.
std::string first_entries(const std::vector<std::string>& list, size_t shown) {
  const size_t n = std::min(shown, list.size());
  std::string out = fmt::format("{}", fmt::join(list.begin(), list.begin() + n, ", "));
  if (list.size() > n) out += fmt::format(" (and {} more)", list.size() - n);
  return out;
}

}  // namespace

bool ManifestAudit::ok() const {
  return not_registered.empty() && not_passing.empty() && not_claimed.empty();
}

OpDtypes registered_kernels(const std::string& backend) {
  OpDtypes out;
  for (const OpDef& op : Catalog::get().ops())
    for (const OpTableEntry& e : op_table(op.name))
      if (e.backend == backend && e.kind == EntryKind::Kernel && e.dtypes != 0)
        out[op.name] |= e.dtypes;
  return out;
}

ManifestAudit audit_manifest(const Manifest& manifest, const OpDtypes& registered,
                             const Report& report) {
  const Outcomes outcomes = outcomes_of(report);
  ManifestAudit audit;
  audit.claims = manifest.claim_count();
  for (const auto& [op, claimed] : manifest.claims) {
    const auto reg = registered.find(op);
    const uint32_t has = reg == registered.end() ? 0 : reg->second;
    for (int code = 0; code < kNumScalarTypes; ++code) {
      if (((claimed >> code) & 1u) == 0) continue;
      const std::string name = pair_name(op, code);
      if (((has >> code) & 1u) == 0) {
        audit.not_registered.push_back(name);
        continue;
      }
      const auto o = outcomes.find({op, std::string(dtype_name(static_cast<ScalarType>(code)))});
      if (o == outcomes.end())
        audit.not_tested.push_back(name);
      else if (o->second.failed || !o->second.passed)
        audit.not_passing.push_back(name);
    }
  }
  for (const auto& [op, has] : registered) {
    const auto claim = manifest.claims.find(op);
    const uint32_t claimed = claim == manifest.claims.end() ? 0 : claim->second;
    for (int code = 0; code < kNumScalarTypes; ++code)
      if (((has >> code) & 1u) != 0 && ((claimed >> code) & 1u) == 0)
        audit.not_claimed.push_back(pair_name(op, code));
  }
  // Both maps iterate in op order and dtypes in code order; sorted by name for the reader.
  for (auto* list :
       {&audit.not_registered, &audit.not_passing, &audit.not_claimed, &audit.not_tested})
    std::sort(list->begin(), list->end());
  return audit;
}

ManifestAudit audit_manifest(const Manifest& manifest, const std::string& backend,
                             const Report& report) {
  return audit_manifest(manifest, registered_kernels(backend), report);
}

std::string to_text(const ManifestAudit& audit, size_t shown) {
  std::string out = fmt::format(
      "capability manifest: {} claim{}; {} not registered, {} not passing, {} registered "
      "without a claim, {} not tested in this run\n",
      audit.claims, audit.claims == 1 ? "" : "s", audit.not_registered.size(),
      audit.not_passing.size(), audit.not_claimed.size(), audit.not_tested.size());
  const std::pair<const char*, const std::vector<std::string>*> lists[] = {
      {"claimed, not registered", &audit.not_registered},
      {"claimed, not passing", &audit.not_passing},
      {"registered, not claimed", &audit.not_claimed},
      {"claimed, not tested", &audit.not_tested}};
  for (const auto& [what, list] : lists)
    if (!list->empty()) out += fmt::format("  {}: {}\n", what, first_entries(*list, shown));
  return out;
}

nlohmann::json to_json(const ManifestAudit& audit) {
  return {{"claims", audit.claims},
          {"ok", audit.ok()},
          {"not_registered", audit.not_registered},
          {"not_passing", audit.not_passing},
          {"not_claimed", audit.not_claimed},
          {"not_tested", audit.not_tested}};
}

}  // namespace bp::conformance
