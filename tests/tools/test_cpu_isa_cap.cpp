// The CPU plugin's ISA cap (plugins/cpu/isa_cap.hpp, docs/cpu.md "ISA levels"), through the
// `backplane` program, one process per setting (the cap is per process: oneDNN takes one
// only before its first kernel): under each level this CPU has, Highway's target and
// oneDNN's ISA are that level's; the config key does the same and the variable wins over
// it; a bad level or option fails the plugin's load naming the setting; and a failing
// case's repro line carries the cap, so it reruns at the level it failed at.
#include "cli_fixture.hpp"

#include <doctest/doctest.h>
#include <hwy/detect_targets.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bp::test {
namespace {

namespace fs = std::filesystem;

const std::string kCpuPlugin = BP_CLI_CPU_PLUGIN;

// Highway's portable baseline as this compiler builds it, which is what the plugin (built by
// the same compiler) runs at the scalar level: Highway 1.0 marks its EMU128 target broken
// under GCC < 12.3 and builds SCALAR instead, so g++ 12.2 gives SCALAR and clang EMU128.
const std::string kHighwayBaseline = HWY_BASELINE_SCALAR == HWY_SCALAR ? "SCALAR" : "EMU128";

// What each level must make the libraries choose (Highway 1.0's target names, oneDNN's
// ISA names as in ONEDNN_MAX_CPU_ISA).
struct Level {
  std::string name, highway, onednn;
};
const std::vector<Level> kLevels = {{"avx512", "AVX3", "avx512_core"},
                                    {"avx2", "AVX2", "avx2"},
                                    {"sse4", "SSE4", "sse41"},
                                    {"scalar", kHighwayBaseline, "sse41"}};

// cpu:0's attributes from `backplane devices --json` under `env` (and --config `config`).
nlohmann::json cpu_attributes(const Environment& env, const std::string& config = "") {
  std::vector<std::string> args = {"devices", "--json",   "--device",
                                   "cpu:0",   "--plugin", kCpuPlugin};
  if (!config.empty()) args.insert(args.end(), {"--config", config});
  const ProgramResult r = run_cli(args, std::nullopt, env);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(r.out);
  REQUIRE(report.at("devices").size() == 1);
  return report.at("devices").at(0).at("attributes");
}

// Whether this CPU runs `level`: its best level comes no later in kLevels.
bool cpu_has(const std::string& level) {
  const std::string best = cpu_attributes({}).at("cpu_best");
  size_t best_at = 0, level_at = 0;
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i].name == best) best_at = i;
    if (kLevels[i].name == level) level_at = i;
  }
  return level_at >= best_at;
}

fs::path write_config(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "bp_cpu_isa_cap_test";
  fs::create_directories(dir);
  const fs::path file = dir / name;
  std::ofstream(file) << text;
  return file;
}

TEST_CASE("without a cap, cpu:0 reports the CPU's best level and each library's choice") {
  const nlohmann::json a = cpu_attributes({});
  CHECK(a.at("isa") == a.at("cpu_best"));
  CHECK(a.at("isa_cap") == "none");
  CHECK_FALSE(a.contains("isa_cap_from"));
  CHECK_FALSE(a.at("highway").get<std::string>().empty());
  CHECK(a.at("onednn") != "unavailable");
}

TEST_CASE("BACKPLANE_CPU_ISA caps Highway's target and oneDNN's ISA at every level") {
  for (const Level& level : kLevels) {
    CAPTURE(level.name);
    if (!cpu_has(level.name)) {
      MESSAGE("level " << level.name << " skipped: this CPU's best level is "
                       << cpu_attributes({}).at("cpu_best").get<std::string>());
      continue;
    }
    const nlohmann::json a = cpu_attributes({{"BACKPLANE_CPU_ISA", level.name}});
    CHECK(a.at("isa") == level.name);
    CHECK(a.at("isa_cap") == level.name);
    CHECK(a.at("isa_cap_from") == "BACKPLANE_CPU_ISA");
    CHECK(a.at("highway") == level.highway);
    CHECK(a.at("onednn") == level.onednn);
  }
}

TEST_CASE("the config key [backends.cpu.options] isa caps it too; the variable wins") {
  const fs::path config = write_config("sse4.toml", "[backends.cpu.options]\nisa = \"sse4\"\n");
  nlohmann::json a = cpu_attributes({}, config.string());
  CHECK(a.at("isa") == "sse4");
  CHECK(a.at("isa_cap_from") == "options");
  CHECK(a.at("highway") == "SSE4");
  CHECK(a.at("onednn") == "sse41");
  a = cpu_attributes({{"BACKPLANE_CPU_ISA", "scalar"}}, config.string());
  CHECK(a.at("isa") == "scalar");
  CHECK(a.at("isa_cap_from") == "BACKPLANE_CPU_ISA");
  CHECK(a.at("highway") == kHighwayBaseline);
  // native lifts the file's cap.
  a = cpu_attributes({{"BACKPLANE_CPU_ISA", "native"}}, config.string());
  CHECK(a.at("isa_cap") == "none");
  CHECK(a.at("isa") == a.at("cpu_best"));
}

// The cpu plugin's load report from `backplane info --json --plugin cpu`.
nlohmann::json cpu_load(const Environment& env, const std::string& config = "") {
  std::vector<std::string> args = {"info", "--json", "--plugin", kCpuPlugin};
  if (!config.empty()) args.insert(args.end(), {"--config", config});
  const ProgramResult r = run_cli(args, std::nullopt, env);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);  // a --plugin file that failed to load
  const nlohmann::json cpu = find_plugin(nlohmann::json::parse(r.out), "path", kCpuPlugin);
  REQUIRE(cpu.is_object());
  CHECK(cpu.at("status") == "failed");
  return cpu;
}

TEST_CASE("a level that is not one fails the cpu plugin's load, naming the setting") {
  CHECK(cpu_load({{"BACKPLANE_CPU_ISA", "avx3"}}).at("reason") ==
        "init failed with status 1 (invalid argument): cpu: BACKPLANE_CPU_ISA is 'avx3', which is "
        "not an ISA level (use native, "
        "avx512, avx2, sse4 or scalar)");
  const fs::path typo = write_config("typo.toml", "[backends.cpu.options]\nisa = \"AVX2\"\n");
  CHECK(cpu_load({}, typo.string()).at("reason") ==
        "init failed with status 1 (invalid argument): cpu: option 'isa' is 'AVX2', which is not "
        "an ISA level (use native, "
        "avx512, avx2, sse4 or scalar)");
  const fs::path unknown = write_config("unknown.toml", "[backends.cpu.options]\nthreads = 2\n");
  CHECK(cpu_load({}, unknown.string()).at("reason") ==
        "init failed with status 1 (invalid argument): cpu: unknown option 'threads' in the "
        "plugin's options (the cpu plugin "
        "knows: isa)");
}

TEST_CASE("a failing case's repro line and the report carry the level it ran at") {
  // An xfail entry for a case that passes makes an XPASS: a failure with a repro line.
  const fs::path expect = write_config(
      "xpass.toml", "[[xfail]]\ncases = \"matmul/f32/dot_13\"\nreason = \"to get a repro\"\n");
  const fs::path report = fs::temp_directory_path() / "bp_cpu_isa_cap_test" / "report.json";
  const ProgramResult r =
      run_cli({"conformance", "--device", "cpu:0", "--plugin", kCpuPlugin, "--case",
               "matmul/f32/dot_13", "--expect", expect.string(), "--json", report.string()},
              std::nullopt, {{"BACKPLANE_CPU_ISA", "sse4"}});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out.find("\n    BACKPLANE_CPU_ISA=sse4 ") != std::string::npos);
  CHECK(r.out.find("cpu:0 attributes: isa=sse4 isa_cap=sse4") != std::string::npos);
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j.at("device_attributes").at("isa") == "sse4");
  CHECK(j.at("device_attributes").at("highway") == "SSE4");
  CHECK_FALSE(j.at("host_cpu").get<std::string>().empty());
  const std::string repro = j.at("cases").at(0).at("repro");
  CHECK(repro.rfind("BACKPLANE_CPU_ISA=sse4 ", 0) == 0);
}

}  // namespace
}  // namespace bp::test
