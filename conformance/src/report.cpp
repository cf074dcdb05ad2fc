// The report model, its JSON form and the merge of shard reports (report.hpp).
#include "backplane/conformance/report.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

namespace bp::conformance {
namespace {

constexpr std::array<std::string_view, kCaseStatusCount> kStatusNames = {
    "passed", "failed", "unsupported", "xfail", "xpass", "crashed", "timeout", "blocked"};

template <typename T>
T field(const nlohmann::json& j, const char* key, std::string_view source, std::string_view where) {
  if (!j.contains(key)) BP_FAIL(ErrorCode::Parse, "{}: {} has no \"{}\"", source, where, key);
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    BP_FAIL(ErrorCode::Parse, "{}: {}: \"{}\" has the wrong type ({})", source, where, key,
            j.at(key).type_name());
  }
}

}  // namespace

std::string_view to_string(CaseStatus status) {
  return kStatusNames[static_cast<size_t>(status)];
}

std::optional<CaseStatus> parse_case_status(std::string_view text) {
  for (size_t i = 0; i < kStatusNames.size(); ++i)
    if (kStatusNames[i] == text) return static_cast<CaseStatus>(i);
  return std::nullopt;
}

bool is_failure(CaseStatus status) {
  return status == CaseStatus::Failed || status == CaseStatus::Xpass ||
         status == CaseStatus::Crashed || status == CaseStatus::Timeout ||
         status == CaseStatus::Blocked;
}

Summary Report::summary() const {
  Summary s;
  std::set<std::string> compared;
  for (const CaseResult& c : cases) {
    if (c.compared) compared.insert(c.op);
    switch (c.status) {
      case CaseStatus::Passed:
        ++s.passed;
        break;
      case CaseStatus::Failed:
        ++s.failed;
        break;
      case CaseStatus::Unsupported:
        ++s.unsupported;
        break;
      case CaseStatus::Xfail:
        ++s.xfail;
        break;
      case CaseStatus::Xpass:
        ++s.xpass;
        break;
      case CaseStatus::Crashed:
        ++s.crashed;
        break;
      case CaseStatus::Timeout:
        ++s.timeout;
        break;
      case CaseStatus::Blocked:
        ++s.blocked;
        break;
    }
  }
  for (const OpCoverage& op : ops) s.ops_claimed += op.implementation == "native";
  s.ops_compared = static_cast<int64_t>(compared.size());
  return s;
}

double Report::primitive_coverage() const {
  int64_t total = 0;
  int64_t native = 0;
  for (const OpCoverage& op : ops) {
    if (!op.primitive) continue;
    ++total;
    native += op.implementation == "native";
  }
  return total == 0 ? 0.0 : static_cast<double>(native) / static_cast<double>(total);
}

double Report::composite_coverage() const {
  // A composite runs when the plugin has a fused kernel for it or core's decomposition works
  // on the device for every case the run tried: one with an unsupported case (a primitive
  // of its decomposition is missing for some dtype) does not count. One without cases in
  // this run (filtered out) counts by its table entry.
  std::set<std::string> tested, gaps;
  for (const CaseResult& c : cases) {
    tested.insert(c.op);
    if (c.status == CaseStatus::Unsupported) gaps.insert(c.op);
  }
  int64_t total = 0;
  int64_t covered = 0;
  for (const OpCoverage& op : ops) {
    if (op.primitive) continue;
    ++total;
    const bool runs =
        op.implementation == "native" ||
        (tested.count(op.op) ? gaps.count(op.op) == 0 : op.implementation == "decomposed");
    covered += runs;
  }
  return total == 0 ? 0.0 : static_cast<double>(covered) / static_cast<double>(total);
}

double perf_ratio(const Report& report, const CaseResult& c) {
  if (c.median_seconds <= 0 || c.baseline_seconds <= 0) return 0.0;
  const double floor = report.perf_floor_seconds;
  return std::max(c.median_seconds, floor) / std::max(c.baseline_seconds, floor);
}

std::vector<OpPerf> perf_by_op(const Report& report) {
  std::vector<OpPerf> out;
  std::map<std::string, size_t> at;
  std::vector<std::pair<double, int64_t>> logs;  // sum of log ratios, count
  for (const CaseResult& c : report.cases) {
    if (c.median_seconds <= 0) continue;
    const auto [it, inserted] = at.emplace(c.op, out.size());
    if (inserted) {
      out.push_back({c.op});
      logs.emplace_back(0.0, 0);
    }
    OpPerf& p = out[it->second];
    ++p.cases;
    p.median_seconds += c.median_seconds;
    if (const double ratio = perf_ratio(report, c); ratio > 0) {
      p.baseline_seconds += c.baseline_seconds;
      logs[it->second].first += std::log(ratio);
      ++logs[it->second].second;
    }
  }
  for (size_t i = 0; i < out.size(); ++i)
    if (logs[i].second > 0)
      out[i].ratio = std::exp(logs[i].first / static_cast<double>(logs[i].second));
  return out;
}

namespace {

void read_perf(const nlohmann::json& perf, Report& r) {
  r.perf_baseline = perf.value("baseline", "");
  r.perf_threshold = perf.value("threshold", 0.0);
  r.perf_floor_seconds = perf.value("floor_seconds", 0.0);
}

nlohmann::json perf_json(const Report& report) {
  nlohmann::json ops = nlohmann::json::object();
  for (const OpPerf& p : perf_by_op(report))
    ops[p.op] = {{"cases", p.cases},
                 {"median_seconds", p.median_seconds},
                 {"baseline_seconds", p.baseline_seconds},
                 {"ratio", p.ratio}};
  return {{"baseline", report.perf_baseline},
          {"threshold", report.perf_threshold},
          {"floor_seconds", report.perf_floor_seconds},
          {"ops", std::move(ops)}};
}

}  // namespace

nlohmann::json to_json(const Report& report) {
  const Summary s = report.summary();
  nlohmann::json j;
  j["device"] = report.device;
  j["device_name"] = report.device_name;
  j["plugin"] = report.plugin;
  j["plugin_path"] = report.plugin_path;
  j["host_cpu"] = report.host_cpu;
  nlohmann::json attributes = nlohmann::json::object();  // the key=value pairs
  for (const DeviceAttribute& a : parse_device_attributes(report.device_attributes))
    attributes[a.key] = a.value;
  j["device_attributes"] = std::move(attributes);
  j["seed"] = report.seed;
  j["suite"] = report.suite;
  j["shard"] = report.shard;
  j["seconds"] = report.seconds;
  j["summary"] = {{"passed", s.passed},
                  {"failed", s.failed},
                  {"unsupported", s.unsupported},
                  {"xfail", s.xfail},
                  {"xpass", s.xpass},
                  {"crashed", s.crashed},
                  {"timeout", s.timeout},
                  {"blocked", s.blocked},
                  {"total", s.total()},
                  {"ops_claimed", s.ops_claimed},
                  {"ops_compared", s.ops_compared}};
  nlohmann::json ops = nlohmann::json::array();
  for (const OpCoverage& op : report.ops)
    ops.push_back({{"op", op.op},
                   {"kind", op.primitive ? "primitive" : "composite"},
                   {"implementation", op.implementation}});
  j["coverage"] = {{"primitives", report.primitive_coverage()},
                   {"composites", report.composite_coverage()},
                   {"ops", std::move(ops)}};
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& c : report.cases) {
    nlohmann::json k = {{"id", c.id},
                        {"index", c.index},
                        {"op", c.op},
                        {"dtype", c.dtype},
                        {"status", to_string(c.status)},
                        {"max_abs_err", c.max_abs_err},
                        {"max_ulp", c.max_ulp},
                        {"compared", c.compared},
                        {"seconds", c.seconds},
                        {"repro", c.repro}};
    if (!c.message.empty()) k["message"] = c.message;
    if (!c.expectation.empty()) k["expectation"] = c.expectation;
    if (c.median_seconds > 0) k["median_seconds"] = c.median_seconds;
    if (c.baseline_seconds > 0) k["baseline_seconds"] = c.baseline_seconds;
    if (!c.determinism.empty()) k["determinism"] = c.determinism;
    cases.push_back(std::move(k));
  }
  j["cases"] = std::move(cases);
  if (report.perf_threshold > 0) j["perf"] = perf_json(report);
  if (!report.manifest_audit.is_null()) j["manifest_audit"] = report.manifest_audit;
  return j;
}

Report report_from_json(const nlohmann::json& j, std::string_view source) {
  BP_CHECK(j.is_object(), ErrorCode::Parse, "{}: not a conformance report (not a JSON object)",
           source);
  Report r;
  r.device = field<std::string>(j, "device", source, "the report");
  r.device_name = j.value("device_name", "");
  r.plugin = field<std::string>(j, "plugin", source, "the report");
  r.plugin_path = j.value("plugin_path", "");
  r.host_cpu = j.value("host_cpu", "");
  if (j.contains("device_attributes")) {
    const nlohmann::json& attributes = j.at("device_attributes");
    BP_CHECK(attributes.is_object(), ErrorCode::Parse,
             "{}: \"device_attributes\" is not an object of strings", source);
    std::vector<DeviceAttribute> pairs;
    for (const auto& [key, value] : attributes.items()) {
      BP_CHECK(value.is_string(), ErrorCode::Parse, "{}: device attribute '{}' is not a string",
               source, key);
      pairs.push_back({key, value.get<std::string>()});
    }
    r.device_attributes = format_device_attributes(pairs);
  }
  r.seed = field<uint64_t>(j, "seed", source, "the report");
  r.suite = field<std::string>(j, "suite", source, "the report");
  r.shard = j.value("shard", "");
  r.seconds = j.value("seconds", 0.0);
  if (j.contains("perf")) read_perf(j.at("perf"), r);
  r.manifest_audit = j.value("manifest_audit", nlohmann::json());
  const nlohmann::json coverage = field<nlohmann::json>(j, "coverage", source, "the report");
  for (const nlohmann::json& op : field<nlohmann::json>(coverage, "ops", source, "\"coverage\""))
    r.ops.push_back({field<std::string>(op, "op", source, "a coverage entry"),
                     field<std::string>(op, "kind", source, "a coverage entry") == "primitive",
                     field<std::string>(op, "implementation", source, "a coverage entry")});
  for (const nlohmann::json& k : field<nlohmann::json>(j, "cases", source, "the report")) {
    CaseResult c;
    c.id = field<std::string>(k, "id", source, "a case");
    const std::string where = "case '" + c.id + "'";
    c.index = field<int64_t>(k, "index", source, where);
    c.op = field<std::string>(k, "op", source, where);
    c.dtype = field<std::string>(k, "dtype", source, where);
    const std::string status = field<std::string>(k, "status", source, where);
    const std::optional<CaseStatus> parsed = parse_case_status(status);
    BP_CHECK(parsed.has_value(), ErrorCode::Parse, "{}: {}: unknown status '{}'", source, where,
             status);
    c.status = *parsed;
    c.max_abs_err = k.value("max_abs_err", 0.0);
    c.max_ulp = k.value("max_ulp", int64_t{0});
    c.compared = k.value("compared", false);
    c.seconds = k.value("seconds", 0.0);
    c.repro = k.value("repro", "");
    c.message = k.value("message", "");
    c.expectation = k.value("expectation", "");
    c.median_seconds = k.value("median_seconds", 0.0);
    c.baseline_seconds = k.value("baseline_seconds", 0.0);
    c.determinism = k.value("determinism", "");
    r.cases.push_back(std::move(c));
  }
  return r;
}

Report merge_reports(std::vector<Report> shards) {
  BP_CHECK(!shards.empty(), ErrorCode::InvalidArgument, "merge: no reports given");
  Report merged = shards.front();
  merged.cases.clear();
  merged.shard.clear();
  merged.seconds = 0.0;
  merged.manifest_audit = nullptr;     // shards are not audited (docs/conformance.md)
  std::map<std::string, size_t> seen;  // case id -> shard
  for (size_t i = 0; i < shards.size(); ++i) {
    const Report& r = shards[i];
    auto same = [&](const std::string& a, const std::string& b, const char* what) {
      BP_CHECK(a == b, ErrorCode::InvalidArgument,
               "merge: report {} ({}) has {} '{}', report 1 has '{}': not shards of one run", i + 1,
               r.shard.empty() ? "unsharded" : "shard " + r.shard, what, b, a);
    };
    same(merged.device, r.device, "device");
    same(merged.plugin, r.plugin, "plugin");
    same(merged.suite, r.suite, "suite");
    // Shards computed at different ISA levels (say) are not one run's results.
    same(merged.device_attributes, r.device_attributes, "device attributes");
    same(std::to_string(merged.seed), std::to_string(r.seed), "seed");
    for (const CaseResult& c : r.cases) {
      const auto [it, inserted] = seen.emplace(c.id, i);
      BP_CHECK(inserted, ErrorCode::InvalidArgument,
               "merge: case '{}' is in report {} and report {}: overlapping shards", c.id,
               it->second + 1, i + 1);
      merged.cases.push_back(c);
    }
    merged.seconds += r.seconds;
  }
  std::stable_sort(merged.cases.begin(), merged.cases.end(),
                   [](const CaseResult& a, const CaseResult& b) { return a.index < b.index; });
  return merged;
}

}  // namespace bp::conformance
