// The plan of a run: filters (ops regex, dtypes, quick/full, one case), shards that are
// disjoint and cover the run whatever N, the expectations file and the device's declared
// dtypes making cases unsupported before anything runs, and a stable per-case seed.
#include <backplane/backplane.hpp>
#include <backplane/conformance/device_checks.hpp>
#include <backplane/conformance/plan.hpp>
#include <backplane/conformance/records.hpp>
#include <backplane/conformance/run_case.hpp>
#include <backplane/core/catalog.hpp>

#include <doctest/doctest.h>

#include <set>
#include <string>

using namespace bp::conformance;

namespace {

const bp::Device kRef{bp::device_types::Reference, 0};

SuiteOptions options(std::optional<std::string> ops = std::nullopt) {
  SuiteOptions o;
  o.device = kRef;
  o.ops = std::move(ops);
  return o;
}

std::vector<std::string> ids(const std::vector<PlannedCase>& plan) {
  std::vector<std::string> out;
  for (const PlannedCase& c : plan) out.push_back(c.id.str());
  return out;
}

}  // namespace

TEST_CASE("plan: every catalog op has a record with samples for each of its dtypes") {
  for (const bp::OpDef& op : bp::Catalog::get().ops()) {
    CAPTURE(op.name);
    const OpRecord* r = find_record(op.name);
    REQUIRE(r != nullptr);
    REQUIRE_FALSE(r->dtypes.empty());
    for (bp::ScalarType t : r->dtypes) CHECK_FALSE(r->samples(t).empty());
  }
  CHECK(op_records().size() == bp::Catalog::get().ops().size());
}

TEST_CASE("plan: --ops and --dtypes filter; the quick suite is a subset of the full one") {
  SuiteOptions o = options("^neg$");
  o.dtypes = {bp::ScalarType::Float32, bp::ScalarType::Int8};
  const auto quick = plan_cases(o, {});
  REQUIRE_FALSE(quick.empty());
  for (const PlannedCase& c : quick) {
    CHECK(c.id.op == "neg");
    CHECK((c.id.dtype == "f32" || c.id.dtype == "i8"));
  }
  o.full = true;
  const auto full = plan_cases(o, {});
  CHECK(full.size() > quick.size());
  const auto full_ids = ids(full);
  for (const std::string& id : ids(quick))
    CHECK(std::find(full_ids.begin(), full_ids.end(), id) != full_ids.end());
}

TEST_CASE("plan: device checks are cases of op device_api, selected by --ops") {
  const auto plan = plan_cases(options("device_api"), {});
  REQUIRE_FALSE(plan.empty());
  for (const PlannedCase& c : plan) CHECK(c.id.op == "device_api");
  const auto none = plan_cases(options("^neg$"), {});
  for (const PlannedCase& c : none) CHECK(c.id.op != "device_api");
}

TEST_CASE("plan: shards are disjoint and together hold every case, for any N") {
  const auto whole = ids(plan_cases(options("^(add\\.Tensor|sum\\.dim_IntList|cat)$"), {}));
  for (int n : {1, 2, 3, 7}) {
    std::multiset<std::string> seen;
    for (int i = 0; i < n; ++i) {
      SuiteOptions o = options("^(add\\.Tensor|sum\\.dim_IntList|cat)$");
      o.shard_index = i;
      o.shard_count = n;
      for (const PlannedCase& c : plan_cases(o, {})) seen.insert(c.id.str());
    }
    CHECK(seen.size() == whole.size());
    CHECK(std::set<std::string>(seen.begin(), seen.end()) ==
          std::set<std::string>(whole.begin(), whole.end()));
  }
}

TEST_CASE("plan: --shard parses I/N and rejects anything else") {
  int i = -1, n = -1;
  parse_shard("2/5", i, n);
  CHECK(i == 2);
  CHECK(n == 5);
  for (const char* bad : {"5/5", "-1/3", "1/0", "1", "a/b", "1/3x", "/3"})
    CHECK_THROWS_WITH_AS(parse_shard(bad, i, n), doctest::Contains("expected I/N"), bp::Error);
}

TEST_CASE("plan: --case selects exactly that case, even a full-only one; unknown is an error") {
  SuiteOptions o = options();
  o.full = true;
  o.ops = "^neg$";
  const auto full = plan_cases(o, {});
  REQUIRE_FALSE(full.empty());
  SuiteOptions one = options();
  one.case_id = full.back().id.str();
  const auto plan = plan_cases(one, {});
  REQUIRE(plan.size() == 1);
  CHECK(plan[0].id == full.back().id);
  one.case_id = "neg/f32/nothing_like_this";
  CHECK_THROWS_WITH_AS(plan_cases(one, {}), doctest::Contains("no such case"), bp::Error);
}

TEST_CASE("plan: expectations mark cases unsupported (never run) or xfail") {
  const Expectations e = Expectations::parse(
      "[[unsupported]]\ncases = \"neg/f16/*\"\nreason = \"no f16\"\n"
      "[[xfail]]\ncases = \"neg/f32/*\"\nreason = \"bug 1\"\n",
      "vendor.toml");
  for (const PlannedCase& c : plan_cases(options("^neg$"), e)) {
    if (c.id.dtype == "f16") {
      REQUIRE(c.unsupported.has_value());
      CHECK(*c.unsupported == "no f16 (vendor.toml:2)");
    } else if (c.id.dtype == "f32") {
      CHECK_FALSE(c.unsupported.has_value());
      CHECK(c.expectation.kind == ExpectationKind::Xfail);
    } else {
      CHECK(c.expectation.kind == ExpectationKind::None);
    }
  }
}

TEST_CASE("plan: the per-case seed depends on the suite seed and the id only") {
  const CaseId a = CaseId::parse("add.Tensor/f32/x"), b = CaseId::parse("add.Tensor/f32/y");
  CHECK(case_seed(1, a) == case_seed(1, a));
  CHECK(case_seed(1, a) != case_seed(2, a));
  CHECK(case_seed(1, a) != case_seed(1, b));
}

TEST_CASE("plan: the reference passes its own cases in-process (the oracle is self-consistent)") {
  for (const PlannedCase& c :
       plan_cases(options("^(add\\.Tensor|neg|cat|sum\\.dim_IntList)$"), {})) {
    CAPTURE(c.id.str());
    const CaseRun run = run_case(c.id, kRef, 0);
    CHECK_MESSAGE(run.kind == CaseRun::Kind::Passed, run.message);
  }
}
