// `backplane conformance`: runs the conformance suite against one device and reports the
// result (terminal matrix on stdout, progress on stderr, --json/--junit/--markdown files),
// and `backplane conformance merge REPORT.json...` combines the reports of shards.
//
// Every case runs in a worker process (this program again, with the hidden --worker flag),
// so a kernel that crashes or hangs is a recorded failure of its case. Exit code: 0 when
// nothing failed, crashed, timed out or passed unexpectedly; 1 otherwise or on an error;
// 2 for a bad command line.
#include "certificate_context.hpp"
#include "command.hpp"
#include "conformance_perf.hpp"
#include "conformance_runner.hpp"
#include "dtype_text.hpp"
#include "plugin_options.hpp"
#include "program_files.hpp"

#include <backplane/backplane.hpp>
#include <backplane/conformance/certificate.hpp>
#include <backplane/conformance/device_checks.hpp>
#include <backplane/conformance/expectations.hpp>
#include <backplane/conformance/gradient_checks.hpp>
#include <backplane/conformance/manifest.hpp>
#include <backplane/conformance/plan.hpp>
#include <backplane/conformance/report.hpp>
#include <backplane/conformance/repro.hpp>
#include <backplane/conformance/worker_pool.hpp>
#include <backplane/core/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace bp::cli {
namespace fs = std::filesystem;
namespace cf = conformance;

namespace {

struct ConformanceOptions {
  PluginOptions plugins;  // with --device: the device under test
  std::string ops;
  std::string dtypes;
  uint64_t seed = 0;
  bool quick = false;
  bool full = false;
  std::string expect;
  std::string json, junit, markdown;
  std::string certificate, sign_key;  // --certificate FILE, --sign-key PEM
  // --perf [--baseline FILE --perf-threshold R --perf-floor S --perf-repetitions N]
  bool perf = false;
  std::string baseline;
  double perf_threshold = 1.5;
  double perf_floor = 20e-6;
  int perf_repetitions = 7;
  bool determinism = false;
  // One worker per core, at most 8: every worker holds its own context on the device, and
  // a GPU shared by dozens of processes spends its time switching between them.
  int jobs = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  double timeout = 60.0;
  std::string case_id;
  std::string shard;
  bool verbose = false;
  std::string emit_repro;  // folder
  bool worker = false;
  std::vector<std::string> merge_inputs;
};

void write_reports(const cf::Report& report, const ConformanceOptions& o) {
  if (!o.json.empty()) write_file(o.json, cf::to_json(report).dump(2) + "\n", "JSON report");
  if (!o.junit.empty()) write_file(o.junit, cf::to_junit(report), "JUnit report");
  if (!o.markdown.empty()) write_file(o.markdown, cf::to_markdown(report), "Markdown report");
}

// The plugin's capability manifest against what it registered and what this run passed
// (manifest.hpp), into the report; nothing for a built-in backend or a shard (its other
// cases ran elsewhere). Returns true when a claim is false: claimed but not registered, or
// registered but not passing. A registration without a claim is listed, not a failure.
bool audit_claims(cf::Report& report, const ConformanceOptions& o, Device device) {
  if (report.plugin_path.empty() || !o.shard.empty() || o.perf) return false;
  if (!cf::read_manifest_note(report.plugin_path)) {
    fmt::print(
        "\ncapability manifest: none (the plugin was built without "
        "backplane_add_plugin's MANIFEST)\n");
    return false;
  }
  const cf::Manifest manifest = cf::read_plugin_manifest(report.plugin_path);
  const cf::ManifestAudit audit =
      cf::audit_manifest(manifest, device_type_name(device.type), report);
  report.manifest_audit = cf::to_json(audit);
  fmt::print("\n{}", cf::to_text(audit));
  return !audit.not_registered.empty() || !audit.not_passing.empty();
}

// --certificate FILE: the run sealed (and signed with --sign-key) for someone who did not run
// it (docs/conformance.md, "Certificates").
void write_certificate(const cf::Report& report, const std::vector<cf::PlannedCase>& plan,
                       const ConformanceOptions& o, const std::string& isa) {
  nlohmann::json certificate = cf::make_certificate(
      report, certificate_context(report, plan, {o.ops, o.dtypes, o.expect, isa}));
  std::optional<fs::path> key;
  if (!o.sign_key.empty()) key = o.sign_key;
  cf::seal_certificate(certificate, key);
  write_file(o.certificate, cf::certificate_text(certificate), "certificate");
  fmt::print("certificate: {} ({}; sha256 {})\n", o.certificate,
             certificate["integrity"]["seal"].get<std::string>(),
             certificate["integrity"]["sha256"].get<std::string>());
}

// Plugin files the workers and repro lines must load: the explicit --plugin files and the
// file of the plugin behind the device, as absolute paths.
std::vector<std::string> plugin_files(const ConformanceOptions& o,
                                      const std::string& device_plugin_path) {
  std::vector<std::string> files;
  for (const std::string& p : o.plugins.plugins) files.push_back(fs::absolute(p).string());
  if (!device_plugin_path.empty() &&
      std::find(files.begin(), files.end(), device_plugin_path) == files.end())
    files.push_back(device_plugin_path);
  return files;
}

cf::OpCoverage coverage_of(const OpDef& op, const std::string& backend) {
  cf::OpCoverage c{op.name, op.kind == OpKind::Primitive, "missing"};
  for (const OpTableEntry& e : op_table(op.name)) {
    if (e.backend != backend) continue;
    c.implementation = e.kind == EntryKind::Kernel      ? "native"
                       : e.kind == EntryKind::Composite ? "decomposed"
                                                        : "missing";
  }
  return c;
}

// --verbose: for the single case of --case, or for every case that did not pass, its
// inputs (made again here from the seed: no device runs, so a crashed case has them too)
// and the device's and the reference's outputs around the first mismatch.
void print_explanations(const cf::Report& report, const std::vector<cf::PlannedCase>& plan,
                        const std::vector<std::string>& details, uint64_t seed) {
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const cf::CaseResult& c = report.cases[i];
    if (report.cases.size() > 1 &&
        (c.status == cf::CaseStatus::Passed || c.status == cf::CaseStatus::Unsupported))
      continue;
    fmt::print("\ncase {} ({}):\ninputs (seed {}):\n{}", c.id, cf::to_string(c.status), seed,
               cf::describe_inputs(plan[i].id, seed));
    if (!details[i].empty()) fmt::print("outputs (device, reference):\n{}", details[i]);
  }
}

// --emit-repro DIR: a standalone reproducer (repro.hpp) per failing case of an op, or of the
// one case of --case whatever its status, in DIR/<op>__<dtype>__<sample>/.
void emit_reproducers(const cf::Report& report, const std::vector<cf::PlannedCase>& plan,
                      const ConformanceOptions& o, const cf::ReproTarget& target) {
  for (size_t i = 0; i < report.cases.size(); ++i) {
    const cf::CaseResult& c = report.cases[i];
    if (plan[i].id.op == cf::kDeviceApiOp || plan[i].id.op == cf::kGradientCheckOp) continue;
    if (report.cases.size() > 1 && !cf::is_failure(c.status)) continue;
    const fs::path dir = fs::path(o.emit_repro) / cf::repro_folder_name(plan[i].id);
    const cf::ReproFiles files = cf::make_repro(plan[i].id, o.seed, target);
    fs::create_directories(dir);
    write_file((dir / "CMakeLists.txt").string(), files.cmake_lists, "reproducer");
    write_file((dir / "repro.cpp").string(), files.source, "reproducer");
    fmt::print(
        "reproducer of {}: {} (cmake -S {} -B {}/build -DCMAKE_PREFIX_PATH=<Backplane "
        "prefix> && cmake --build {}/build && {}/build/repro)\n",
        c.id, dir.string(), shell_quote(dir.string()), shell_quote(dir.string()),
        shell_quote(dir.string()), shell_quote(dir.string()));
  }
}

cf::WorkerMode worker_mode(const ConformanceOptions& o) {
  return {o.verbose, o.perf ? o.perf_repetitions : 0, o.determinism};
}

int run_worker(const ConformanceOptions& o) {
  (void)load_plugins(o.plugins);
  // The parent resolved the selector: a worker's --device is one device.
  return cf::worker_loop(Device::parse(o.plugins.device), o.seed, 3, worker_mode(o));
}

int run_merge(const ConformanceOptions& o) {
  std::vector<cf::Report> shards;
  for (const std::string& path : o.merge_inputs) {
    shards.push_back(cf::report_from_json(read_json_file(path, "merge"), path));
  }
  const cf::Report merged = cf::merge_reports(std::move(shards));
  write_reports(merged, o);
  fmt::print("{}", cf::terminal_matrix(merged, ::isatty(STDOUT_FILENO) != 0));
  return merged.failed() ? kExitFailure : kExitOk;
}

// Loads the plugins of the command line; an explicit --plugin that cannot be used is an
// error (a plugin found by discovery may fail: the suite still runs on the others).
void load_explicit_plugins(const ConformanceOptions& o) {
  for (const LoadedPlugin& p : load_plugins(o.plugins).plugins) {
    BP_CHECK(!p.explicit_file || p.report.status == LoadStatus::Loaded ||
                 p.report.status == LoadStatus::NoDevices,
             ErrorCode::InvalidArgument, "--plugin {}: {} ({})", p.report.path,
             to_string(p.report.status), p.report.message);
  }
}

// The report before any case runs: what was tested (device, plugin, host) and how each op
// is implemented on the device's backend.
cf::Report report_header(const ConformanceOptions& o, Device device,
                         const std::vector<DeviceAttribute>& attributes) {
  const std::string backend = device_type_name(device.type);
  cf::Report report;
  report.device = device.str();
  report.device_name = device_info(device).name;
  report.seed = o.seed;
  report.suite = o.full ? "full" : "quick";
  report.shard = o.shard;
  report.host_cpu = host_cpu_model();
  report.device_attributes = format_device_attributes(attributes);
  for (const BackendInfo& b : backends())
    if (b.name == backend) report.plugin = b.plugin;
  for (const PluginLoadReport& r : plugin_reports())
    if (r.plugin == report.plugin && r.status == LoadStatus::Loaded) {
      report.plugin_path = r.path;
      if (!r.version.empty()) report.plugin += " " + r.version;
    }
  for (const OpDef& op : Catalog::get().ops()) report.ops.push_back(coverage_of(op, backend));
  return report;
}

// The cases the options select, with the expectations file's verdicts.
std::vector<cf::PlannedCase> plan_for(const ConformanceOptions& o, Device device) {
  cf::SuiteOptions suite;
  suite.device = device;
  suite.seed = o.seed;
  suite.full = o.full;
  suite.perf = o.perf;
  if (!o.ops.empty()) suite.ops = o.ops;
  suite.dtypes = parse_dtype_list(o.dtypes, "--dtypes");
  if (!o.case_id.empty()) suite.case_id = o.case_id;
  if (!o.shard.empty()) cf::parse_shard(o.shard, suite.shard_index, suite.shard_count);
  const cf::Expectations expectations =
      o.expect.empty() ? cf::Expectations() : cf::Expectations::load(o.expect);
  return cf::plan_cases(suite, expectations);
}

// The command line that reruns one case of this run, less its `--case ID`.
std::string repro_prefix(const ConformanceOptions& o, const fs::path& self, Device device,
                         const std::vector<std::string>& plugins, const std::string& isa) {
  // A device that names its ISA level reruns at that level on any machine that has it
  // (the CPU plugin's cap, docs/cpu.md), whatever the best level of the machine is.
  std::string prefix =
      (isa.empty() ? std::string() : "BACKPLANE_CPU_ISA=" + shell_quote(isa) + " ") +
      fmt::format("{} conformance --device {}", shell_quote(self.string()), device.str());
  if (!o.plugins.config.empty())
    prefix += " --config " + shell_quote(fs::absolute(o.plugins.config).string());
  for (const std::string& p : plugins) prefix += " --plugin " + shell_quote(p);
  prefix += fmt::format(" --seed {}", o.seed);
  if (o.perf)
    prefix += fmt::format(
        " --perf --perf-threshold {} --perf-floor {}{}", o.perf_threshold, o.perf_floor,
        o.baseline.empty() ? "" : " --baseline " + shell_quote(fs::absolute(o.baseline).string()));
  if (o.determinism)
    prefix += " --determinism" +
              (o.expect.empty() ? "" : " --expect " + shell_quote(fs::absolute(o.expect).string()));
  return prefix;
}

// The terminal matrix, then each failure with the line that reruns it; with --case, the
// case's own verdict when it is not a failure.
void print_results(const cf::Report& report, const ConformanceOptions& o) {
  fmt::print("{}", cf::terminal_matrix(report, ::isatty(STDOUT_FILENO) != 0));
  bool first = true;
  for (const cf::CaseResult& c : report.cases) {
    if (!cf::is_failure(c.status)) continue;
    if (first) fmt::print("\nfailures (each line reruns one case):\n");
    first = false;
    fmt::print("  {} {}: {}\n    {}\n", cf::to_string(c.status), c.id, c.message, c.repro);
  }
  if (!o.case_id.empty() && !report.cases.empty() && !cf::is_failure(report.cases[0].status))
    fmt::print("{} {}{}{}\n", cf::to_string(report.cases[0].status), report.cases[0].id,
               report.cases[0].message.empty() ? "" : ": ", report.cases[0].message);
}

int run_suite(const ConformanceOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  load_explicit_plugins(o);
  // The first device the selector picks ("cuda" means cuda:0); throws naming the selector
  // and what is loaded when it picks none.
  const Device device = default_device();
  const std::vector<DeviceAttribute> attributes = device_attributes(device);
  cf::Report report = report_header(o, device, attributes);
  const std::vector<cf::PlannedCase> plan = plan_for(o, device);

  WorkerSetup setup{self_program(),   device,         o.seed, plugin_files(o, report.plugin_path),
                    o.plugins.config, worker_mode(o), o.jobs, o.timeout};
  // Timed cases run one at a time: parallel workers would time each other.
  if (o.perf) setup.jobs = 1;
  const std::string isa = device_attribute(attributes, "isa");
  const std::string rerun = repro_prefix(o, setup.self, device, setup.plugin_files, isa);
  const std::vector<std::string> details = run_plan(report, plan, setup, rerun);
  if (o.perf) {
    report.perf_threshold = o.perf_threshold;
    report.perf_floor_seconds = o.perf_floor;
    if (!o.baseline.empty()) compare_with_baseline(report, o.baseline, rerun);
  }
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_results(report, o);
  const bool false_claims = audit_claims(report, o, device);

  write_reports(report, o);
  if (!o.certificate.empty()) write_certificate(report, plan, o, isa);
  if (o.perf) fmt::print("{}", perf_table(report));
  if (o.determinism) fmt::print("{}", determinism_summary(report));
  if (o.verbose) print_explanations(report, plan, details, o.seed);
  if (!o.emit_repro.empty())
    emit_reproducers(report, plan, o, {device.str(), setup.plugin_files, isa});
  fmt::print("time: {:.1f} s\n", report.seconds);
  return report.failed() || false_claims ? kExitFailure : kExitOk;
}

}  // namespace

namespace {

// What runs: which ops, dtypes and samples, with which seed and expectations.
void add_selection_options(CLI::App& cmd, ConformanceOptions& o) {
  cmd.add_option("--ops", o.ops,
                 "Only ops whose name matches this regular expression "
                 "(device_api selects the device-API checks)")
      ->type_name("REGEX");
  cmd.add_option("--dtypes", o.dtypes, "Only these dtypes, comma-separated (f32,bf16,i64)")
      ->type_name("LIST");
  cmd.add_option("--seed", o.seed, "Seed of every generated input (default 0)")->type_name("N");
  auto* quick = cmd.add_flag("--quick", o.quick, "The quick suite (the default)");
  auto* full = cmd.add_flag("--full", o.full, "Every sample: large sizes and every layout");
  quick->excludes(full);
  cmd.add_option("--expect", o.expect, "Expectations file (TOML): unsupported and xfail cases")
      ->type_name("FILE");
}

void add_report_options(CLI::App& cmd, ConformanceOptions& o) {
  cmd.add_option("--json", o.json, "Write the JSON report here")->type_name("FILE");
  cmd.add_option("--junit", o.junit, "Write a JUnit XML report here")->type_name("FILE");
  cmd.add_option("--markdown", o.markdown, "Write a Markdown report here")->type_name("FILE");
  cmd.add_option("--certificate", o.certificate,
                 "Write a certificate of the run here: the plugin file's SHA-256, versions, "
                 "device, per-op results and coverage, sealed with a SHA-256 "
                 "(`backplane verify` checks it)")
      ->type_name("FILE");
  cmd.add_option("--sign-key", o.sign_key,
                 "Sign the certificate with this Ed25519 private key (PEM, e.g. from "
                 "`openssl genpkey -algorithm ed25519`); without it the seal is a checksum")
      ->type_name("PEM");
}

// A certificate covers one whole run, and a bad key is refused before the run, not after.
void check_certificate_options(const ConformanceOptions& o) {
  if (!o.sign_key.empty() && o.certificate.empty())
    throw CLI::ValidationError("--sign-key", "needs --certificate FILE");
  if (o.certificate.empty()) return;
  if (!o.case_id.empty() || !o.shard.empty() || o.perf)
    throw CLI::ValidationError("--certificate",
                               "a certificate covers a whole conformance run: "
                               "not with --case, --shard or --perf");
  if (!o.sign_key.empty()) (void)cf::signing_key_fingerprint(o.sign_key);
}

// How cases run, one case alone (--case, --verbose, --emit-repro), and shards.
void add_run_options(CLI::App& cmd, ConformanceOptions& o) {
  cmd.add_option("--jobs", o.jobs, "Worker processes at once (default: one per core, at most 8)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--timeout", o.timeout,
                 "Seconds a case may take before it is killed "
                 "(default 60)")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--case", o.case_id,
                 "Run exactly this case (op/dtype/sample), as the repro "
                 "line of a failure does")
      ->type_name("ID");
  cmd.add_flag("--verbose", o.verbose,
               "With --case (or for every case that does not pass): print each input's "
               "dtype, shape, strides, storage offset and values, and the device's and the "
               "reference's outputs around the first mismatch");
  cmd.add_option("--emit-repro", o.emit_repro,
                 "Write a standalone C++ reproducer (CMakeLists.txt and repro.cpp, built "
                 "against the installed package) of each failing case, or of the --case, "
                 "into DIR/<op>__<dtype>__<sample>/")
      ->type_name("DIR");
  cmd.add_option("--shard", o.shard,
                 "Run slice I of N (0 <= I < N); merge the shards' "
                 "JSON reports with `conformance merge`")
      ->type_name("I/N");
  cmd.add_flag("--worker", o.worker, "internal: run cases read from stdin")->group("");
}

// Speed and repeatability (docs/conformance.md, "Performance and determinism").
void add_perf_options(CLI::App& cmd, ConformanceOptions& o) {
  auto* perf = cmd.add_flag("--perf", o.perf,
                            "Time a fixed set of large cases per op on the device (nothing is "
                            "compared); with --baseline, fail a case slower than its baseline");
  cmd.add_option("--baseline", o.baseline,
                 "A previous `--perf --json` report (this device or another) to compare with")
      ->type_name("FILE")
      ->needs(perf);
  cmd.add_option("--perf-threshold", o.perf_threshold,
                 "Largest ratio of medians (this run / baseline) that passes (default 1.5)")
      ->type_name("R")
      ->check(CLI::Range(1.0, 1e9))
      ->needs(perf);
  cmd.add_option("--perf-floor", o.perf_floor,
                 "Seconds below which a median counts as this much: timer noise "
                 "(default 2e-5)")
      ->type_name("S")
      ->check(CLI::NonNegativeNumber)
      ->needs(perf);
  cmd.add_option("--perf-repetitions", o.perf_repetitions,
                 "Timed calls per case after one warm-up call (default 7)")
      ->type_name("N")
      ->check(CLI::PositiveNumber)
      ->needs(perf);
  cmd.add_flag("--determinism", o.determinism,
               "Run every passing case twice more and fail it when the runs differ bitwise, "
               "unless the expectations file declares the op [[nondeterministic]] within a "
               "tolerance")
      ->excludes(perf);
}

CLI::App* add_merge_command(CLI::App& cmd, ConformanceOptions& o) {
  CLI::App* merge = cmd.add_subcommand(
      "merge", "Combine the JSON reports of the shards of one run into one report");
  merge->add_option("reports", o.merge_inputs, "JSON reports written with --json")
      ->required()
      ->type_name("REPORT.json");
  merge->add_option("--json", o.json, "Write the merged JSON report here")->type_name("FILE");
  merge->add_option("--junit", o.junit, "Write a JUnit XML report here")->type_name("FILE");
  merge->add_option("--markdown", o.markdown, "Write a Markdown report here")->type_name("FILE");
  return merge;
}

}  // namespace

void add_conformance_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ConformanceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "conformance",
      "Run the conformance suite against a device: every op against the reference backend, "
      "each case in a child process; exit 1 when a case failed, crashed, timed out or passed "
      "unexpectedly");
  add_device_option(*cmd, o->plugins,
                    "The device under test, e.g. cpu:0, opencl:0 (the first device the "
                    "selector picks)");
  add_plugin_options(*cmd, o->plugins);
  add_selection_options(*cmd, *o);
  add_report_options(*cmd, *o);
  add_run_options(*cmd, *o);
  add_perf_options(*cmd, *o);
  CLI::App* merge = add_merge_command(*cmd, *o);
  cmd->callback([o, merge, &exit_code] {
    if (merge->parsed()) {
      exit_code = run_merge(*o);
      return;
    }
    if (o->plugins.device.empty()) throw CLI::RequiredError("--device");
    check_certificate_options(*o);
    exit_code = o->worker ? run_worker(*o) : run_suite(*o);
  });
}

}  // namespace bp::cli
