// Planned conformance cases run in worker processes (conformance_runner.hpp).
#include "conformance_runner.hpp"

#include "conformance_progress.hpp"

#include <backplane/conformance/worker_pool.hpp>

#include <fmt/format.h>

#include <unistd.h>

namespace bp::cli {
namespace cf = conformance;

namespace {

cf::CaseStatus status_of(const cf::WorkerOutcome& outcome, const cf::Expectation& expectation) {
  using K = cf::WorkerOutcome::Kind;
  const bool xfail = expectation.kind == cf::ExpectationKind::Xfail;
  if (outcome.kind == K::Crashed) return xfail ? cf::CaseStatus::Xfail : cf::CaseStatus::Crashed;
  if (outcome.kind == K::TimedOut) return xfail ? cf::CaseStatus::Xfail : cf::CaseStatus::Timeout;
  switch (outcome.run.kind) {
    case cf::CaseRun::Kind::Passed:
      return xfail ? cf::CaseStatus::Xpass : cf::CaseStatus::Passed;
    case cf::CaseRun::Kind::Unsupported:
      return cf::CaseStatus::Unsupported;
    case cf::CaseRun::Kind::Blocked:
      return xfail ? cf::CaseStatus::Xfail : cf::CaseStatus::Blocked;
    case cf::CaseRun::Kind::Failed:
      break;
  }
  return xfail ? cf::CaseStatus::Xfail : cf::CaseStatus::Failed;
}

// The planned cases that a worker runs, and where each one's result goes in the report.
struct CasesToRun {
  std::vector<cf::CaseId> ids;
  std::vector<size_t> report_index;
};

// One report entry per planned case; the unsupported ones are final already, the others
// are returned to be run.
CasesToRun enter_plan(cf::Report& report, const std::vector<cf::PlannedCase>& plan) {
  CasesToRun to_run;
  report.cases.resize(plan.size());
  for (size_t i = 0; i < plan.size(); ++i) {
    cf::CaseResult& c = report.cases[i];
    c.id = plan[i].id.str();
    c.index = plan[i].index;
    c.op = plan[i].id.op;
    c.dtype = plan[i].id.dtype;
    if (plan[i].expectation.kind != cf::ExpectationKind::None)
      c.expectation =
          fmt::format("{} ({})", plan[i].expectation.reason, plan[i].expectation.where());
    if (plan[i].unsupported) {
      c.status = cf::CaseStatus::Unsupported;
      c.message = *plan[i].unsupported;
    } else {
      to_run.ids.push_back(plan[i].id);
      to_run.report_index.push_back(i);
    }
  }
  return to_run;
}

// A worker: this program again, on the same device, seed, plugins and config.
std::vector<std::string> worker_argv(const WorkerSetup& setup) {
  std::vector<std::string> argv = {setup.self.string(),
                                   "conformance",
                                   "--worker",
                                   "--device",
                                   setup.device.str(),
                                   "--seed",
                                   std::to_string(setup.seed)};
  if (setup.mode.explain) argv.push_back("--verbose");
  if (setup.mode.perf_repetitions > 0) {
    argv.push_back("--perf");
    argv.push_back("--perf-repetitions");
    argv.push_back(std::to_string(setup.mode.perf_repetitions));
  }
  if (setup.mode.determinism) argv.push_back("--determinism");
  for (const std::string& p : setup.plugin_files) {
    argv.push_back("--plugin");
    argv.push_back(p);
  }
  if (!setup.config.empty()) {
    argv.push_back("--config");
    argv.push_back(std::filesystem::absolute(setup.config).string());
  }
  return argv;
}

// --determinism: the verdict on a passed case's two further runs.
void judge_repeat(cf::CaseResult& c, const cf::Repeatability& r,
                  const std::optional<cf::Expectations::Rule>& allowed) {
  if (r.bitwise_equal) {
    c.determinism = "bitwise";
    return;
  }
  const bool tolerated = allowed && (r.max_abs_diff <= allowed->atol ||
                                     (allowed->rtol > 0 && r.max_rel_diff <= allowed->rtol));
  const std::string declared =
      allowed
          ? fmt::format("declared nondeterministic with atol {} rtol {} ({}:{}: {})", allowed->atol,
                        allowed->rtol, allowed->file, allowed->line, allowed->reason)
          : "not declared nondeterministic";
  if (tolerated) {
    c.determinism = "tolerated";
    c.message = fmt::format("two runs differ by at most {:g}: {}", r.max_abs_diff, declared);
    return;
  }
  c.determinism = "differs";
  c.status = cf::CaseStatus::Failed;
  c.message = fmt::format(
      "not deterministic: two runs on the device differ ({}; max |diff| "
      "{:g}); {}",
      r.first_difference, r.max_abs_diff, declared);
}

void record_outcome(cf::CaseResult& c, const cf::WorkerOutcome& outcome,
                    const cf::PlannedCase& planned, const std::string& repro_prefix) {
  const cf::Expectation& expectation = planned.expectation;
  c.status = status_of(outcome, expectation);
  c.message = outcome.kind == cf::WorkerOutcome::Kind::Ran ? outcome.run.message : outcome.message;
  c.max_abs_err = outcome.run.max_abs_err;
  c.max_ulp = outcome.run.max_ulp;
  c.compared = outcome.kind == cf::WorkerOutcome::Kind::Ran && outcome.run.compared;
  c.seconds = outcome.seconds;
  c.median_seconds = outcome.run.median_seconds;
  if (outcome.run.repeat && c.status == cf::CaseStatus::Passed)
    judge_repeat(c, *outcome.run.repeat, planned.nondeterministic);
  if (c.status != cf::CaseStatus::Passed && c.status != cf::CaseStatus::Unsupported)
    c.repro = fmt::format("{} --case {}", repro_prefix, shell_quote(c.id));
}

}  // namespace

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789_./:=,-") == std::string::npos)
    return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::vector<std::string> run_plan(cf::Report& report, const std::vector<cf::PlannedCase>& plan,
                                  const WorkerSetup& setup, const std::string& repro_prefix) {
  const CasesToRun to_run = enter_plan(report, plan);
  cf::WorkerPoolOptions pool;
  pool.worker_argv = worker_argv(setup);
  pool.jobs = setup.jobs;
  pool.timeout_seconds = setup.timeout_seconds;
  std::vector<std::string> details(plan.size());
  ConformanceProgress progress(static_cast<int64_t>(to_run.ids.size()),
                               ::isatty(STDERR_FILENO) != 0);
  cf::run_in_workers(to_run.ids, pool, [&](size_t k, const cf::WorkerOutcome& outcome) {
    const size_t i = to_run.report_index[k];
    record_outcome(report.cases[i], outcome, plan[i], repro_prefix);
    details[i] = outcome.run.details;
    progress.update(report.cases[i]);
  });
  progress.finish();
  return details;
}

}  // namespace bp::cli
