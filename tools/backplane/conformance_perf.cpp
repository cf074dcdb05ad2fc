// Perf baselines and the perf and determinism summaries (conformance_perf.hpp).
#include "conformance_perf.hpp"

#include "conformance_runner.hpp"
#include "program_files.hpp"

#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace bp::cli {
namespace cf = conformance;

void compare_with_baseline(cf::Report& report, const std::string& baseline_path,
                           const std::string& repro_prefix) {
  const cf::Report baseline =
      cf::report_from_json(read_json_file(baseline_path, "--baseline"), baseline_path);
  std::map<std::string, double> medians;
  for (const cf::CaseResult& c : baseline.cases)
    if (c.median_seconds > 0) medians[c.id] = c.median_seconds;
  BP_CHECK(!medians.empty(), ErrorCode::InvalidArgument,
           "--baseline '{}' holds no timings: write one with `conformance --perf --json`",
           baseline_path);
  report.perf_baseline = fmt::format("{} ({})", baseline_path, baseline.device);
  for (cf::CaseResult& c : report.cases) {
    const auto it = medians.find(c.id);
    if (c.median_seconds <= 0 || it == medians.end()) continue;
    c.baseline_seconds = it->second;
    const double ratio = cf::perf_ratio(report, c);
    if (ratio <= report.perf_threshold || c.status != cf::CaseStatus::Passed) continue;
    c.status = cf::CaseStatus::Failed;
    c.message = fmt::format(
        "slower than the baseline: median {:.3g} ms, baseline {:.3g} ms (ratio {:.2f} > {:.2f})",
        c.median_seconds * 1e3, c.baseline_seconds * 1e3, ratio, report.perf_threshold);
    c.repro = fmt::format("{} --case {}", repro_prefix, shell_quote(c.id));
  }
}

std::string perf_table(const cf::Report& report) {
  std::vector<cf::OpPerf> ops = cf::perf_by_op(report);
  std::stable_sort(ops.begin(), ops.end(),
                   [](const cf::OpPerf& a, const cf::OpPerf& b) { return a.ratio > b.ratio; });
  std::string out = fmt::format("\nperf: {} ops, threshold {:.2f} (ratio of medians), {}\n",
                                ops.size(), report.perf_threshold,
                                report.perf_baseline.empty() ? "no baseline: times only"
                                                             : "baseline " + report.perf_baseline);
  out += fmt::format("  {:<28} {:>5} {:>12} {:>12} {:>7}\n", "op", "cases", "median ms",
                     "baseline ms", "ratio");
  for (const cf::OpPerf& p : ops)
    out += fmt::format("  {:<28} {:>5} {:>12.4f} {:>12} {:>7}\n", p.op, p.cases,
                       p.median_seconds * 1e3,
                       p.ratio > 0 ? fmt::format("{:.4f}", p.baseline_seconds * 1e3) : "-",
                       p.ratio > 0 ? fmt::format("{:.2f}", p.ratio) : "-");
  return out;
}

std::string determinism_summary(const cf::Report& report) {
  std::set<std::string> repeated, differs, tolerated;
  for (const cf::CaseResult& c : report.cases) {
    if (c.determinism.empty()) continue;
    repeated.insert(c.op);
    if (c.determinism == "differs") differs.insert(c.op);
    if (c.determinism == "tolerated") tolerated.insert(c.op);
  }
  auto names = [](const std::set<std::string>& ops) {
    std::string s;
    for (const std::string& op : ops) s += (s.empty() ? "" : ", ") + op;
    return s.empty() ? std::string("none") : s;
  };
  return fmt::format(
      "\ndeterminism: {} ops repeated; not deterministic: {}; within a declared tolerance: {}\n",
      repeated.size(), names(differs), names(tolerated));
}

}  // namespace bp::cli
