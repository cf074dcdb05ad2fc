// Reports: the JSON form round-trips, the summary and coverage count what the cases say,
// merging shard reports gives the unsharded report (and refuses reports of different runs
// or overlapping shards), and JUnit / Markdown / the terminal matrix show each status.
#include <backplane/conformance/report.hpp>

#include <backplane/core/error.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace bp::conformance;

namespace {

CaseResult make_case(int64_t index, std::string op, std::string dtype, std::string sample,
                     CaseStatus status, std::string message = "") {
  CaseResult c;
  c.id = op + "/" + dtype + "/" + sample;
  c.index = index;
  c.op = std::move(op);
  c.dtype = std::move(dtype);
  c.status = status;
  c.message = std::move(message);
  if (is_failure(status)) c.repro = "backplane conformance --device cpu:0 --case " + c.id;
  c.compared = status == CaseStatus::Passed || status == CaseStatus::Failed ||
               status == CaseStatus::Xfail || status == CaseStatus::Xpass;
  return c;
}

Report sample_report() {
  Report r;
  r.device = "cpu:0";
  r.device_name = "Test CPU";
  r.plugin = "cpu 0.1.0";
  r.seed = 42;
  r.suite = "quick";
  r.ops = {{"add.Tensor", true, "native"},
           {"neg", true, "missing"},
           {"softmax.int", false, "decomposed"},
           {"layer_norm", false, "decomposed"}};
  r.cases = {make_case(0, "add.Tensor", "f32", "a", CaseStatus::Passed),
             make_case(1, "add.Tensor", "f32", "b", CaseStatus::Failed, "element 3 <off>"),
             make_case(2, "add.Tensor", "f16", "a", CaseStatus::Xfail),
             make_case(3, "neg", "f32", "a", CaseStatus::Unsupported, "no kernel"),
             make_case(4, "softmax.int", "f32", "a", CaseStatus::Crashed, "SIGSEGV"),
             make_case(5, "softmax.int", "f32", "b", CaseStatus::Timeout),
             make_case(6, "layer_norm", "f32", "a", CaseStatus::Unsupported),
             make_case(7, "add.Tensor", "i64", "a", CaseStatus::Xpass)};
  return r;
}

}  // namespace

TEST_CASE("report: summary counts every status; failures are failed, xpass, crashed, timeout") {
  const Summary s = sample_report().summary();
  CHECK(s.passed == 1);
  CHECK(s.failed == 1);
  CHECK(s.xfail == 1);
  CHECK(s.unsupported == 2);
  CHECK(s.crashed == 1);
  CHECK(s.timeout == 1);
  CHECK(s.xpass == 1);
  CHECK(s.total() == 8);
  CHECK(s.failures() == 4);
  Report ok = sample_report();
  ok.cases = {ok.cases[0], ok.cases[2], ok.cases[3]};
  CHECK_FALSE(ok.failed());
}

TEST_CASE("report: coverage of primitives (native kernels) and composites (ran at all)") {
  const Report r = sample_report();
  CHECK(r.primitive_coverage() == doctest::Approx(0.5));  // add native, neg missing
  CHECK(r.composite_coverage() == doctest::Approx(0.5));  // softmax ran, layer_norm did not
  Report filtered = r;  // a composite without cases in the run counts by its table entry
  filtered.cases.resize(4);
  CHECK(filtered.composite_coverage() == doctest::Approx(1.0));
  filtered.ops[3].implementation = "missing";
  CHECK(filtered.composite_coverage() == doctest::Approx(0.5));
}

TEST_CASE("report: JSON has the documented shape and round-trips") {
  const Report r = sample_report();
  const nlohmann::json j = to_json(r);
  for (const char* key : {"device", "plugin", "seed", "summary", "coverage", "cases"})
    CHECK(j.contains(key));
  for (const char* key : {"passed", "failed", "unsupported", "xfail", "xpass", "crashed", "timeout",
                          "blocked", "ops_claimed", "ops_compared"})
    CHECK(j["summary"].contains(key));
  CHECK(j["coverage"]["primitives"].get<double>() == doctest::Approx(0.5));
  CHECK(j["cases"][1]["status"] == "failed");
  CHECK(j["cases"][1]["repro"].get<std::string>().find("--case add.Tensor/f32/b") !=
        std::string::npos);
  for (const char* key :
       {"id", "op", "dtype", "status", "max_abs_err", "max_ulp", "compared", "repro"})
    CHECK(j["cases"][0].contains(key));
  const Report back = report_from_json(j, "r.json");
  CHECK(to_json(back) == j);
}

TEST_CASE("report: a broken JSON report is an error naming the file and the field") {
  nlohmann::json j = to_json(sample_report());
  j["cases"][2]["status"] = "exploded";
  CHECK_THROWS_WITH_AS(report_from_json(j, "shard3.json"),
                       doctest::Contains("shard3.json: case 'add.Tensor/f16/a': unknown status "
                                         "'exploded'"),
                       bp::Error);
  j.erase("seed");
  CHECK_THROWS_WITH_AS(report_from_json(j, "x.json"),
                       doctest::Contains("x.json: the report has "
                                         "no \"seed\""),
                       bp::Error);
}

TEST_CASE("report: merging shards gives the unsharded report") {
  const Report whole = sample_report();
  std::vector<Report> shards(3, whole);
  for (int s = 0; s < 3; ++s) {
    shards[s].shard = std::to_string(s) + "/3";
    shards[s].cases.clear();
    for (const CaseResult& c : whole.cases)
      if (c.index % 3 == s) shards[s].cases.push_back(c);
  }
  // Merge order must not matter.
  const Report merged = merge_reports({shards[2], shards[0], shards[1]});
  nlohmann::json a = to_json(merged), b = to_json(whole);
  CHECK(a["summary"] == b["summary"]);
  CHECK(a["coverage"] == b["coverage"]);
  CHECK(a["cases"] == b["cases"]);
  CHECK(merged.shard.empty());
}

TEST_CASE("report: merge refuses reports of different runs and overlapping shards") {
  Report a = sample_report(), b = sample_report();
  b.seed = 7;
  CHECK_THROWS_WITH_AS(merge_reports({a, b}), doctest::Contains("seed"), bp::Error);
  b = a;
  b.device = "cuda:0";
  CHECK_THROWS_WITH_AS(merge_reports({a, b}), doctest::Contains("device"), bp::Error);
  CHECK_THROWS_WITH_AS(merge_reports({a, a}),
                       doctest::Contains("case 'add.Tensor/f32/a' is in report 1 and report 2"),
                       bp::Error);
  CHECK_THROWS_AS(merge_reports({}), bp::Error);
}

TEST_CASE("report: JUnit marks failures, errors and skips, escaped") {
  const std::string x = to_junit(sample_report());
  CHECK(x.find("tests=\"8\" failures=\"2\" errors=\"2\" skipped=\"3\"") != std::string::npos);
  CHECK(x.find("<failure type=\"failed\" message=\"element 3 &lt;off&gt;\"") != std::string::npos);
  CHECK(x.find("<error type=\"crashed\"") != std::string::npos);
  CHECK(x.find("<error type=\"timeout\"") != std::string::npos);
  CHECK(x.find("<skipped message=\"unsupported: no kernel\"/>") != std::string::npos);
  CHECK(x.find("<failure type=\"xpass\"") != std::string::npos);
}

TEST_CASE("report: Markdown and the terminal matrix show op x dtype cells and the failures") {
  const Report r = sample_report();
  const std::string md = to_markdown(r);
  CHECK(md.find("| op | kernel | i64 | f16 | f32 |") != std::string::npos);
  CHECK(md.find("| `add.Tensor` | native | 1P | x | 1F |") != std::string::npos);
  CHECK(md.find("| `neg` | missing |  |  | - |") != std::string::npos);
  CHECK(md.find("| `softmax.int` | decomposed |  |  | 1C1T |") != std::string::npos);
  CHECK(md.find("- `add.Tensor/f32/b` **failed**: element 3 <off>") != std::string::npos);
  const std::string term = terminal_matrix(r, false);
  CHECK(term.find("add.Tensor     1P     x    1F") != std::string::npos);
  CHECK(term.find("1 passed, 1 failed, 1 crashed, 1 timeout, 1 xpass, 1 xfail, 0 blocked, 2 "
                  "unsupported (8 cases); ops: 1 claimed, 1 compared") != std::string::npos);
  CHECK(term.find("\033[") == std::string::npos);  // no colour when asked for none
  CHECK(terminal_matrix(r, true).find("\033[31m") != std::string::npos);
  Report mixed = r;  // some passed, the rest unsupported: "passed/total"
  mixed.cases = {make_case(0, "neg", "f32", "a", CaseStatus::Passed),
                 make_case(1, "neg", "f32", "b", CaseStatus::Unsupported),
                 make_case(2, "neg", "f32", "c", CaseStatus::Unsupported)};
  CHECK(terminal_matrix(mixed, false).find("neg   1/3") != std::string::npos);
}

TEST_CASE(
    "report: a blocked case fails the run, shows as nB, is a JUnit failure, and the "
    "summary counts the ops claimed and compared") {
  Report r = sample_report();
  r.cases.push_back(make_case(8, "neg", "i64", "b", CaseStatus::Blocked,
                              "blocked: needs copy_ (copy_: no kernel for device cpu:0)"));
  const Summary s = r.summary();
  CHECK(s.blocked == 1);
  CHECK(s.total() == 9);
  CHECK(s.failures() == 5);
  CHECK(is_failure(CaseStatus::Blocked));
  // Claimed: the ops with the plugin's own kernel. Compared: ops with a case that compared
  // values (add.Tensor); blocked, crashed and unsupported cases compare nothing.
  CHECK(s.ops_claimed == 1);
  CHECK(s.ops_compared == 1);
  Report passed_and_blocked = r;
  passed_and_blocked.cases = {r.cases[0], r.cases.back()};
  CHECK(passed_and_blocked.failed());

  const std::string term = terminal_matrix(r, false);
  INFO(term);
  CHECK(term.find("neg            1B           -") != std::string::npos);
  CHECK(term.find("1 blocked, 2 unsupported (9 cases); ops: 1 claimed, 1 compared") !=
        std::string::npos);
  CHECK(to_junit(r).find("<failure type=\"blocked\" message=\"blocked: needs copy_") !=
        std::string::npos);
  CHECK(to_markdown(r).find("- `neg/i64/b` **blocked**: blocked: needs copy_") !=
        std::string::npos);

  const nlohmann::json j = to_json(r);
  CHECK(j["summary"]["blocked"] == 1);
  CHECK(j["summary"]["ops_claimed"] == 1);
  CHECK(j["summary"]["ops_compared"] == 1);
  CHECK(j["cases"][8]["status"] == "blocked");
  CHECK(j["cases"][8]["compared"] == false);
  CHECK(j["cases"][0]["compared"] == true);
  CHECK(to_json(report_from_json(j, "r.json")) == j);
}
