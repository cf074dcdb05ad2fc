// `backplane run` (tools/backplane/run_command.cpp), run as a program: the JSON summary on
// the reference backend and the CPU plugin (the examples' outputs within tolerance of the
// oracle), the text table, and how it fails: a model that cannot run on a device is that
// device's error, a model whose output is off is that device's failure with its error, a
// plugin whose neg crashes fails its quick conformance suite with crashed
// cases, and a --devices that matches nothing is an error. Small models (--batch 2 --seq 8) keep
// each run short.
#include "cli_fixture.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace bp::test {
namespace {

const std::string kCpuPlugin = BP_CLI_CPU_PLUGIN;
const std::vector<std::string> kSmall = {"--batch", "2", "--seq", "8", "--iterations", "2"};

std::vector<std::string> run_args(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.insert(args.end(), kSmall.begin(), kSmall.end());
  return args;
}

nlohmann::json parse_summary(const ProgramResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  nlohmann::json summary;
  REQUIRE_NOTHROW(summary = nlohmann::json::parse(r.out));
  return summary;
}

nlohmann::json find_device(const nlohmann::json& summary, const std::string& device) {
  for (const nlohmann::json& d : summary.at("devices"))
    if (d.at("device") == device) return d;
  return nullptr;
}

std::string fixture(const std::string& name) {
  return kFixtureDir + "/libbp_fixture_" + name + ".so";
}

// `backplane run` on one buggy fixture's device, falling back to the CPU plugin for the ops
// the fixture lacks, as --json (the summary's only device, which must have failed) and as
// the table (returned).
struct FailedRun {
  nlohmann::json device;
  ProgramResult table;
};

FailedRun run_buggy_with_fallback(const std::string& fixture_name) {
  const std::vector<std::string> args = {
      "--no-conformance", "--devices", "buggy_" + fixture_name, "--plugin", fixture(fixture_name),
      "--plugin",         kCpuPlugin};
  std::vector<std::string> json_args = args;
  json_args.insert(json_args.begin(), {"--json", "-"});
  const Environment env = {{"BACKPLANE_FALLBACK", "cpu"}};
  const ProgramResult r = run_cli(run_args(json_args), std::nullopt, env);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  const nlohmann::json summary = parse_summary(r);
  CHECK(summary.at("ok") == false);
  REQUIRE(summary.at("devices").size() == 1);
  FailedRun run{summary.at("devices")[0], run_cli(run_args(args), std::nullopt, env)};
  CHECK(run.device.at("device") == "buggy_" + fixture_name + ":0");
  CHECK(run.device.at("ok") == false);
  CHECK(run.table.exit_code == 1);
  CHECK(run.table.out.find("FAILED") != std::string::npos);
  return run;
}

TEST_CASE("run --json: the examples on the reference backend and the CPU plugin") {
  const ProgramResult r =
      run_cli(run_args({"--json", "-", "--no-conformance", "--plugin", kCpuPlugin}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json summary = parse_summary(r);
  CHECK(summary.at("ok") == true);
  const nlohmann::json cpu_plugin = find_plugin(summary, "name", "cpu");
  REQUIRE(cpu_plugin.is_object());
  CHECK(cpu_plugin.at("status") == "loaded");
  CHECK(cpu_plugin.at("backends") == nlohmann::json::array({"cpu"}));

  // The oracle runs the models for their time; it is not compared with itself.
  const nlohmann::json reference = find_device(summary, "reference:0");
  REQUIRE(reference.is_object());
  CHECK(reference.at("conformance").is_null());
  REQUIRE(reference.at("models").size() == 2);
  for (const nlohmann::json& m : reference.at("models")) {
    CHECK(m.at("checked") == false);
    CHECK(m.at("ms_per_forward").get<double>() > 0.0);
  }

  const nlohmann::json cpu = find_device(summary, "cpu:0");
  REQUIRE(cpu.is_object());
  CHECK(cpu.at("plugin") == "cpu");
  CHECK(cpu.at("ok") == true);
  // Where it ran: the host's CPU and the ISA level and library choices of cpu:0.
  CHECK_FALSE(summary.at("host_cpu").get<std::string>().empty());
  CHECK(cpu.at("attributes").at("isa") == cpu.at("attributes").at("cpu_best"));
  CHECK(cpu.at("attributes").contains("highway"));
  CHECK(reference.at("attributes") == nlohmann::json::object());
  REQUIRE(cpu.at("models").size() == 2);
  CHECK(cpu.at("models")[0].at("model") == "mlp");
  CHECK(cpu.at("models")[0].at("output_shape") == "[2, 16]");
  CHECK(cpu.at("models")[1].at("model") == "transformer_block");
  CHECK(cpu.at("models")[1].at("output_shape") == "[2, 8, 128]");
  for (const nlohmann::json& m : cpu.at("models")) {
    INFO(m.dump());
    CHECK(m.at("checked") == true);
    CHECK(m.at("iterations") == 2);
    // float32 kernels against the double-precision oracle: close, and not identical by
    // accident of a copy (a result that equals the reference bit for bit would be suspect
    // for a transformer block, whose matmuls accumulate in another order).
    CHECK(m.at("max_abs_err").get<double>() <= m.at("tolerance").get<double>());
    CHECK(m.at("max_abs_err").get<double>() > 0.0);
    CHECK(m.at("tolerance").get<double>() >= 1e-4);
  }
}

TEST_CASE("run prints the plugins and one table row per device") {
  const ProgramResult r = run_cli(run_args({"--no-conformance", "--plugin", kCpuPlugin}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("plugins\n") == 0);
  CHECK(r.out.find("conformance (quick)") != std::string::npos);
  CHECK(r.out.find("mlp max err") != std::string::npos);
  CHECK(r.out.find("transformer_block max err") != std::string::npos);
  CHECK(r.out.find("\nreference:0 ") != std::string::npos);
  CHECK(r.out.find("\ncpu:0 ") != std::string::npos);
  CHECK(r.out.find("\nhost CPU: ") != std::string::npos);
  CHECK(r.out.find("\ncpu:0: isa=") != std::string::npos);  // under the table
  CHECK(r.out.find("all devices passed") != std::string::npos);
  CHECK(r.out.find("problems:") == std::string::npos);
}

TEST_CASE("run under an ISA cap names the level, and the examples still agree there") {
  const ProgramResult r = run_cli(
      run_args({"--json", "-", "--no-conformance", "--devices", "cpu", "--plugin", kCpuPlugin}),
      std::nullopt, {{"BACKPLANE_CPU_ISA", "sse4"}});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json cpu = find_device(parse_summary(r), "cpu:0");
  REQUIRE(cpu.is_object());
  CHECK(cpu.at("attributes").at("isa") == "sse4");
  CHECK(cpu.at("attributes").at("highway") == "SSE4");
  CHECK(cpu.at("ok") == true);  // the examples agree with the reference at this level too
}

TEST_CASE("run fails a device on which a model cannot run, naming the model and the op") {
  // buggy_broadcast has a handful of kernels; with fallback to the CPU plugin the MLP runs
  // (its ops move to cpu:0 whole), but the transformer block's causal mask starts with an
  // arange, a factory, which cannot fall back (docs/fallback.md).
  const FailedRun run = run_buggy_with_fallback("broadcast");
  const nlohmann::json& device = run.device;
  REQUIRE(device.at("models").size() == 2);
  CHECK(device.at("models")[0].at("ok") == true);
  const nlohmann::json block = device.at("models")[1];
  CHECK(block.at("model") == "transformer_block");
  CHECK(block.at("ok") == false);
  CHECK(block.at("error").get<std::string>().find("arange") != std::string::npos);

  // The table marks the row and says what went wrong under it.
  CHECK(run.table.out.find("buggy_broadcast:0: transformer_block: arange") != std::string::npos);
}

TEST_CASE("run fails a device whose model output is out of tolerance, with the error") {
  // buggy_leaky_relu's relu lets 1% of each negative through. The MLP's linears fall back
  // to cpu:0 and its relus run on the plugin: the output is plausible, and wrong.
  const FailedRun run = run_buggy_with_fallback("leaky_relu");
  REQUIRE(run.device.at("models").size() == 2);
  const nlohmann::json mlp = run.device.at("models")[0];
  CHECK(mlp.at("model") == "mlp");
  CHECK(mlp.at("checked") == true);
  CHECK(mlp.at("ok") == false);
  CHECK_FALSE(mlp.contains("error"));  // it ran; its numbers are what failed
  CHECK(mlp.at("max_abs_err").get<double>() > mlp.at("tolerance").get<double>());

  CHECK(run.table.out.find(" FAIL ") != std::string::npos);
  CHECK(run.table.out.find("buggy_leaky_relu:0: mlp: max abs error ") != std::string::npos);
  CHECK(run.table.out.find("exceeds the tolerance") != std::string::npos);
}

TEST_CASE("run fails a device whose quick conformance suite finds crashes") {
  // buggy_segfault's neg writes through a null pointer; each case runs in a worker, so the
  // run goes on and counts the crashes. Without fallback the models need ops the plugin
  // lacks: that is each model's error, named.
  const ProgramResult r = run_cli(
      run_args({"--json", "-", "--devices", "buggy_segfault", "--plugin", fixture("segfault")}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  const nlohmann::json summary = parse_summary(r);
  REQUIRE(summary.at("devices").size() == 1);
  const nlohmann::json device = summary.at("devices")[0];
  const nlohmann::json conformance = device.at("conformance");
  REQUIRE(conformance.is_object());
  CHECK(conformance.at("crashed").get<int>() > 0);
  CHECK(conformance.at("passed").get<int>() > 0);
  CHECK(conformance.at("ok") == false);
  for (const nlohmann::json& m : device.at("models")) {
    INFO(m.dump());
    CHECK(m.at("ok") == false);
    CHECK(m.at("error").get<std::string>().find("buggy_segfault") != std::string::npos);
  }
}

TEST_CASE("run fails when a --plugin file does not load, and still runs the other devices") {
  // The user asked for that plugin: "all devices passed" without its devices would mislead.
  // The children get only the plugins that loaded, so cpu:0's suite and models are not
  // failed by the missing file.
  const std::string missing = "/nonexistent/libbackplane_plugin_acme.so";
  const ProgramResult r = run_cli(
      run_args({"--json", "-", "--devices", "cpu", "--plugin", missing, "--plugin", kCpuPlugin}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 1);
  const nlohmann::json summary = parse_summary(r);
  CHECK(summary.at("ok") == false);
  const nlohmann::json acme = find_plugin(summary, "path", missing);
  REQUIRE(acme.is_object());
  CHECK(acme.at("status") == "failed");
  CHECK(acme.at("requested") == true);
  CHECK(acme.at("ok") == false);
  CHECK(find_plugin(summary, "name", "cpu").at("ok") == true);
  const nlohmann::json cpu = find_device(summary, "cpu:0");
  REQUIRE(cpu.is_object());
  CHECK(cpu.at("ok") == true);
  CHECK(cpu.at("conformance").at("ok") == true);

  const ProgramResult table = run_cli(run_args(
      {"--no-conformance", "--devices", "cpu", "--plugin", missing, "--plugin", kCpuPlugin}));
  CHECK(table.exit_code == 1);
  CHECK(table.out.find("problems:\n  --plugin " + missing + ": failed: no such file") !=
        std::string::npos);
}

TEST_CASE("run with --devices that matches nothing is an error naming the option and why") {
  const ProgramResult r = run_cli(run_args({"--devices", "nosuch:3"}));
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("--devices nosuch:3: no device matches (devices here: reference:0") !=
        std::string::npos);

  // A mistyped --plugin path is named: it is why the device the user wanted is missing.
  const ProgramResult typo = run_cli(
      run_args({"--devices", "cpu", "--plugin", "/nonexistent/libbackplane_plugin_cpu.so"}));
  INFO("stderr: " << typo.err);
  CHECK(typo.exit_code == 1);
  CHECK(typo.err.find("--devices cpu: no device matches") != std::string::npos);
  CHECK(typo.err.find("--plugin /nonexistent/libbackplane_plugin_cpu.so: failed (no such file)") !=
        std::string::npos);
}

}  // namespace
}  // namespace bp::test
