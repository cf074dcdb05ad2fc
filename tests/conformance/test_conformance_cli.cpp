// `backplane conformance` end to end on the CPU plugin: a passing run and its reports, the
// repro line rerunning exactly one case, shards merged into the unsharded report, the
// expectations file (unsupported, xfail, xpass) and bad command lines.
#include "conformance_cli.hpp"

#include <algorithm>
#include <fstream>
#include <set>

using namespace bp::test;

namespace {

const std::vector<std::string> kSmallRun = {
    "--device", "cpu:0",   "--plugin",
    kCpuPlugin, "--ops",   "^(add\\.Tensor|neg|sum\\.dim_IntList)$",
    "--dtypes", "f32,i32", "--seed",
    "5",        "--jobs",  "2"};

std::vector<std::string> small_run(std::vector<std::string> extra) {
  std::vector<std::string> args = kSmallRun;
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

std::set<std::string> ids_of(const nlohmann::json& report) {
  std::set<std::string> ids;
  for (const auto& c : report["cases"]) ids.insert(c["id"].get<std::string>());
  return ids;
}

}  // namespace

TEST_CASE("conformance cli: the CPU plugin passes a small run; every report is written") {
  const std::string json = scratch_file("small.json"), junit = scratch_file("small.xml"),
                    md = scratch_file("small.md");
  const ProgramResult r =
      run_conformance(small_run({"--json", json, "--junit", junit, "--markdown", md}));
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const nlohmann::json j = read_json(json);
  CHECK(j["device"] == "cpu:0");
  CHECK(j["seed"] == 5);
  CHECK(j["suite"] == "quick");
  CHECK(j["summary"]["failed"] == 0);
  CHECK(j["summary"]["crashed"] == 0);
  CHECK(j["summary"]["passed"].get<int>() > 20);
  CHECK(j["coverage"]["primitives"].get<double>() == doctest::Approx(1.0));
  for (const auto& c : j["cases"]) {
    const std::string op = c["op"];
    CHECK((op == "add.Tensor" || op == "neg" || op == "sum.dim_IntList"));
    CHECK((c["dtype"] == "f32" || c["dtype"] == "i32"));
  }
  CHECK(r.out.find("add.Tensor") != std::string::npos);  // the matrix
  std::ifstream x(junit);
  CHECK(std::string(std::istreambuf_iterator<char>(x), {}).find("<testsuites") !=
        std::string::npos);
  std::ifstream m(md);
  CHECK(std::string(std::istreambuf_iterator<char>(m), {}).find("| `neg` | native |") !=
        std::string::npos);
}

TEST_CASE("conformance cli: --case reruns exactly one case with the same inputs") {
  const std::string json = scratch_file("one.json");
  const ProgramResult all = run_conformance(small_run({"--json", json}));
  REQUIRE(all.exit_code == 0);
  const nlohmann::json whole = read_json(json);
  const std::string id = whole["cases"][3]["id"];
  const std::string one_json = scratch_file("one_case.json");
  const ProgramResult r = run_conformance({"--device", "cpu:0", "--plugin", kCpuPlugin, "--seed",
                                           "5", "--case", id, "--json", one_json});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const nlohmann::json one = read_json(one_json);
  REQUIRE(one["cases"].size() == 1);
  CHECK(one["cases"][0]["id"] == id);
  CHECK(one["cases"][0]["max_abs_err"] == whole["cases"][3]["max_abs_err"]);

  const ProgramResult bad = run_conformance(
      {"--device", "cpu:0", "--plugin", kCpuPlugin, "--case", "add.Tensor/f32/no_such_sample"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("--case 'add.Tensor/f32/no_such_sample': no such case") != std::string::npos);
}

TEST_CASE("conformance cli: shards are disjoint, cover the run and merge into it") {
  const std::string whole_json = scratch_file("whole.json");
  REQUIRE(run_conformance(small_run({"--json", whole_json})).exit_code == 0);
  const nlohmann::json whole = read_json(whole_json);
  std::vector<std::string> merge_args = {"merge"};
  std::set<std::string> seen;
  size_t total = 0;
  for (int s = 0; s < 3; ++s) {
    const std::string f = scratch_file("shard" + std::to_string(s) + ".json");
    const ProgramResult r =
        run_conformance(small_run({"--shard", std::to_string(s) + "/3", "--json", f}));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::set<std::string> ids = ids_of(read_json(f));
    total += ids.size();
    seen.insert(ids.begin(), ids.end());
    merge_args.push_back(f);
  }
  CHECK(total == seen.size());   // disjoint
  CHECK(seen == ids_of(whole));  // complete
  const std::string merged_json = scratch_file("merged.json");
  merge_args.insert(merge_args.end(), {"--json", merged_json});
  const ProgramResult m = run_conformance(merge_args);
  INFO(m.err);
  CHECK(m.exit_code == 0);
  const nlohmann::json merged = read_json(merged_json);
  CHECK(merged["summary"] == whole["summary"]);
  CHECK(merged["coverage"] == whole["coverage"]);
  for (size_t i = 0; i < whole["cases"].size(); ++i) {
    CHECK(merged["cases"][i]["id"] == whole["cases"][i]["id"]);
    CHECK(merged["cases"][i]["status"] == whole["cases"][i]["status"]);
    CHECK(merged["cases"][i]["max_abs_err"] == whole["cases"][i]["max_abs_err"]);
  }
}

TEST_CASE("conformance cli: expectations make cases unsupported, xfail, and a stale xfail XPASS") {
  const std::string toml = scratch_file("vendor.toml");
  {
    std::ofstream f(toml);
    f << "[[unsupported]]\ncases = \"sum.dim_IntList/*/*\"\nreason = \"no reductions yet\"\n"
         "[[xfail]]\ncases = \"neg/i32/*\"\nreason = \"ticket 7\"\n";
  }
  const std::string json = scratch_file("expect.json");
  const ProgramResult r = run_conformance(small_run({"--expect", toml, "--json", json}));
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);  // every neg/i32 case passes: XPASS fails the run
  const nlohmann::json j = read_json(json);
  int xpass = 0;
  for (const auto& c : j["cases"]) {
    const std::string id = c["id"];
    if (id.rfind("sum.dim_IntList/", 0) == 0) {
      CHECK(c["status"] == "unsupported");
      CHECK(c["message"].get<std::string>().find("no reductions yet (") != std::string::npos);
    }
    if (id.rfind("neg/i32/", 0) == 0) {
      CHECK(c["status"] == "xpass");
      CHECK(c["repro"].get<std::string>().find("--case " + id) != std::string::npos);
      ++xpass;
    }
  }
  CHECK(xpass > 0);
  CHECK(j["summary"]["xpass"] == xpass);
  CHECK(j["summary"]["failed"] == 0);
}

TEST_CASE("conformance cli: bad command lines and unknown devices are errors that say why") {
  ProgramResult r =
      run_conformance({"--device", "cpu:0", "--plugin", kCpuPlugin, "--shard", "3/2"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--shard '3/2'") != std::string::npos);
  r = run_conformance({"--device", "cpu:0", "--plugin", kCpuPlugin, "--dtypes", "f33"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("unknown dtype 'f33'") != std::string::npos);
  r = run_conformance({"--device", "cpu:0", "--plugin", kCpuPlugin, "--ops", "("});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--ops '('") != std::string::npos);
  r = run_conformance({"--device", "cpu:3", "--plugin", kCpuPlugin});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("cpu:3") != std::string::npos);
  r = run_conformance({"--plugin", kCpuPlugin});
  CHECK(r.exit_code == 2);
  r = run_conformance({"--device", "cpu:0", "--plugin", "/no/such/plugin.so"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("/no/such/plugin.so") != std::string::npos);
}
