// `backplane conformance --perf [--baseline]` and `--determinism`, run as processes: a perf
// run records a median per case and per-op ratios; against a baseline it fails the cases
// slower than the threshold allows and passes when the baseline is slower; --determinism
// passes the CPU plugin's deterministic ops, flags a buggy plugin whose exp gives
// other last bits on every other call, and accepts it once the expectations file declares
// the op nondeterministic within a tolerance.
#include "conformance_cli.hpp"

#include <fstream>

namespace {

using namespace bp::test;
using nlohmann::json;

const std::string kNondeterministic = kFixtureDir + "/libbp_fixture_nondeterministic_exp.so";

ProgramResult run(std::vector<std::string> args) {
  args.insert(args.end(), {"--jobs", "2"});
  return run_conformance(args);
}

// The report with every median scaled by `factor`: a baseline of a faster or slower device.
std::string scaled_baseline(const json& report, double factor, const std::string& name) {
  json scaled = report;
  for (json& c : scaled["cases"])
    if (c.contains("median_seconds"))
      c["median_seconds"] = c["median_seconds"].get<double>() * factor;
  const std::string path = scratch_file(name);
  std::ofstream(path) << scaled.dump(1);
  return path;
}

}  // namespace

TEST_CASE("conformance --perf: medians, per-op ratios, and a baseline that fails or passes") {
  const std::string report_path = scratch_file("perf.json");
  const std::vector<std::string> base = {"--device", "cpu:0",
                                         "--plugin", kCpuPlugin,
                                         "--ops",    "^(neg|relu|exp)$",
                                         "--perf",   "--perf-repetitions",
                                         "3",        "--perf-floor",
                                         "0"};
  std::vector<std::string> args = base;
  args.insert(args.end(), {"--json", report_path});
  const ProgramResult first = run(args);
  REQUIRE_MESSAGE(first.exit_code == 0, first.out << first.err);
  const json report = read_json(report_path);
  REQUIRE(report["cases"].size() >= 3);
  for (const json& c : report["cases"]) {
    CHECK(c["median_seconds"].get<double>() > 0);
    CHECK(c["dtype"] == "f32");  // the perf set's dtype when the op allows it
  }
  CHECK(report["perf"]["threshold"] == 1.5);
  CHECK(report["perf"]["ops"].contains("neg"));
  CHECK(first.out.find("perf: 3 ops, threshold 1.50 (ratio of medians), no baseline") !=
        std::string::npos);

  SUBCASE("a baseline 1000 times faster fails every case, naming both times") {
    args = base;
    args.insert(args.end(), {"--baseline", scaled_baseline(report, 1e-3, "fast.json")});
    const ProgramResult slower = run(args);
    CHECK(slower.exit_code == 1);
    CHECK(slower.out.find("slower than the baseline: median ") != std::string::npos);
    CHECK(slower.out.find("--perf --perf-threshold 1.5 --perf-floor 0 --baseline ") !=
          std::string::npos);  // the repro line times the case again
  }
  SUBCASE("a baseline 1000 times slower passes, with ratios far below 1") {
    const std::string out_path = scratch_file("perf_vs_slow.json");
    args = base;
    args.insert(args.end(),
                {"--baseline", scaled_baseline(report, 1e3, "slow.json"), "--json", out_path});
    const ProgramResult faster = run(args);
    CHECK_MESSAGE(faster.exit_code == 0, faster.out);
    const json ops = read_json(out_path)["perf"]["ops"];
    for (const auto& [op, p] : ops.items()) CHECK(p["ratio"].get<double>() < 0.5);
  }
  SUBCASE("a baseline without timings, or --baseline without --perf, is refused") {
    const std::string plain = scratch_file("plain.json");
    json untimed = read_json(report_path);
    for (json& c : untimed["cases"]) c.erase("median_seconds");
    std::ofstream(plain) << untimed.dump();
    args = base;
    args.insert(args.end(), {"--baseline", plain});
    const ProgramResult no_times = run(args);
    CHECK(no_times.exit_code == 1);
    CHECK(no_times.err.find("holds no timings") != std::string::npos);

    const ProgramResult no_perf = run_conformance(
        {"--device", "cpu:0", "--plugin", kCpuPlugin, "--ops", "^neg$", "--baseline", report_path});
    CHECK(no_perf.exit_code == 2);
    CHECK(no_perf.err.find("--baseline requires --perf") != std::string::npos);
  }
}

TEST_CASE("conformance --determinism: bitwise repeats pass, a nondeterministic kernel fails") {
  const ProgramResult cpu = run({"--device", "cpu:0", "--plugin", kCpuPlugin, "--ops",
                                 "^(mul\\.Tensor|exp)$", "--dtypes", "f32", "--determinism"});
  CHECK_MESSAGE(cpu.exit_code == 0, cpu.out);
  CHECK(cpu.out.find("determinism: 2 ops repeated; not deterministic: none") != std::string::npos);

  const std::vector<std::string> buggy = {"--device",     "buggy_nondeterministic_exp:0",
                                          "--plugin",     kNondeterministic,
                                          "--ops",        "^exp$",
                                          "--determinism"};
  const ProgramResult flagged = run(buggy);
  CHECK(flagged.exit_code == 1);
  CHECK(flagged.out.find("not deterministic: two runs on the device differ (output 0 [") !=
        std::string::npos);
  CHECK(flagged.out.find("not declared nondeterministic") != std::string::npos);
  CHECK(flagged.out.find("determinism: 1 ops repeated; not deterministic: exp") !=
        std::string::npos);

  // Without --determinism the same plugin passes: one run cannot show it.
  const ProgramResult once = run({"--device", "buggy_nondeterministic_exp:0", "--plugin",
                                  kNondeterministic, "--ops", "^exp$"});
  CHECK_MESSAGE(once.exit_code == 0, once.out);

  const std::string expect = scratch_file("nondeterministic.toml");
  std::ofstream(expect) << "[[nondeterministic]]\ncases = \"exp/*/*\"\n"
                           "reason = \"the order of the products varies\"\natol = 1e-3\n";
  std::vector<std::string> declared = buggy;
  declared.insert(declared.end(), {"--expect", expect});
  const ProgramResult tolerated = run(declared);
  CHECK_MESSAGE(tolerated.exit_code == 0, tolerated.out);
  CHECK(tolerated.out.find("not deterministic: none; within a declared tolerance: exp") !=
        std::string::npos);
}
