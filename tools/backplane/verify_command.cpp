// `backplane verify CERT.json`: checks a conformance certificate (docs/conformance.md,
// "Certificates"). Without options it checks the seal (the SHA-256 of the canonical form,
// and the Ed25519 signature when there is one) and that the results agree with the cases;
// --public-key also checks who signed it; --plugin checks that a plugin file is the one
// certified; --rerun runs a seeded sample of the certified cases on the certified device and
// compares each status. Exit code: 0 when everything matches, 1 when anything differs (each
// difference is printed), 2 for a bad command line.
#include "certificate_context.hpp"
#include "command.hpp"
#include "conformance_runner.hpp"
#include "dtype_text.hpp"
#include "plugin_options.hpp"
#include "program_files.hpp"

#include <backplane/backplane.hpp>
#include <backplane/conformance/certificate.hpp>
#include <backplane/conformance/plan.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <thread>

namespace bp::cli {
namespace fs = std::filesystem;
namespace cf = conformance;
using nlohmann::json;

namespace {

struct VerifyOptions {
  std::string certificate;
  std::string plugin;      // --plugin: the file that must be the certified one
  std::string public_key;  // --public-key PEM
  std::string config;
  bool rerun = false;
  int64_t sample = 50;
  uint64_t sample_seed = 0;
  int jobs = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  double timeout = 60.0;
};

void print_certificate(const json& c, const std::string& seal) {
  const json& plugin = c["plugin"];
  const json& summary = c["results"]["summary"];
  fmt::print("certificate of {} ({}), plugin {} {} (ABI {}, {} sha256 {})\n",
             c["device"].value("id", ""), c["device"].value("name", ""), plugin.value("name", ""),
             plugin.value("version", ""), plugin.value("abi", ""), plugin.value("file", ""),
             plugin.value("sha256", ""));
  fmt::print("  runtime {}, suite {} {} seed {}, {} cases: {} passed, {} failed; made {}\n",
             c["runtime"].value("version", ""), c["suite"].value("version", ""),
             c["suite"].value("name", ""), c["suite"].value("seed", uint64_t{0}),
             summary.value("total", 0), summary.value("passed", 0), summary.value("failed", 0),
             c.value("created", ""));
  fmt::print("  seal: {}{}\n", seal,
             seal == "checksum" ? " (intact, but not a signature: anyone can recompute it)" : "");
}

// --plugin: the file must be the certified one, byte for byte.
void check_plugin_file(const json& c, const std::string& plugin,
                       std::vector<std::string>& problems) {
  const std::string certified = c["plugin"].value("sha256", "");
  const std::string actual = cf::file_sha256(plugin);
  if (actual != certified)
    problems.push_back(
        fmt::format("the plugin file differs: {} has sha256 {}, the certified {} "
                    "has {}",
                    plugin, actual, c["plugin"].value("file", ""), certified));
}

// The certified cases to rerun: those that ran (not unsupported), a seeded sample of at
// most `sample`, in plan order, each with the certified status.
std::vector<std::pair<cf::PlannedCase, cf::CaseStatus>> rerun_sample(
    const json& c, const std::vector<cf::PlannedCase>& plan, const VerifyOptions& o,
    std::vector<std::string>& problems) {
  std::map<std::string, const cf::PlannedCase*> planned;
  for (const cf::PlannedCase& p : plan) planned[p.id.str()] = &p;
  std::vector<cf::CertifiedCase> eligible;
  for (const cf::CertifiedCase& k : cf::certified_cases(c))
    if (k.status != cf::CaseStatus::Unsupported) eligible.push_back(k);
  std::mt19937_64 random(o.sample_seed);
  std::shuffle(eligible.begin(), eligible.end(), random);
  eligible.resize(std::min<size_t>(eligible.size(), static_cast<size_t>(o.sample)));
  std::vector<std::pair<cf::PlannedCase, cf::CaseStatus>> out;
  for (const cf::CertifiedCase& k : eligible) {
    const auto it = planned.find(k.id);
    if (it == planned.end()) {
      problems.push_back(fmt::format("case {}: certified {}, but this suite has no such case", k.id,
                                     cf::to_string(k.status)));
      continue;
    }
    cf::PlannedCase p = *it->second;
    p.unsupported.reset();  // the certified run ran it
    // The certified verdict already applied the expectations: an expected failure reruns
    // as one, so its status compares like for like.
    p.expectation = {};
    if (k.status == cf::CaseStatus::Xfail || k.status == cf::CaseStatus::Xpass)
      p.expectation.kind = cf::ExpectationKind::Xfail;
    out.emplace_back(std::move(p), k.status);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first.index < b.first.index; });
  return out;
}

// The device and plugin of the certificate, loaded; the plan a run with its options makes.
std::vector<cf::PlannedCase> load_certified_run(const json& c, const std::string& plugin_file,
                                                const VerifyOptions& o, Device& device) {
  // A certificate made at an ISA level reruns at that level (docs/cpu.md).
  const std::string isa = c["device"].value("isa", "");
  if (!isa.empty()) ::setenv("BACKPLANE_CPU_ISA", isa.c_str(), 1);
  PluginOptions plugins{{plugin_file}, o.config, c["device"].value("id", "")};
  for (const LoadedPlugin& p : load_plugins(plugins).plugins)
    BP_CHECK(!p.explicit_file || p.report.status == LoadStatus::Loaded, ErrorCode::InvalidArgument,
             "verify --rerun: plugin {}: {} ({})", p.report.path, to_string(p.report.status),
             p.report.message);
  device = default_device();
  cf::SuiteOptions suite;
  suite.device = device;
  suite.seed = c["suite"].value("seed", uint64_t{0});
  suite.full = c["suite"].value("name", "") == "full";
  if (const std::string ops = c["suite"].value("ops", ""); !ops.empty()) suite.ops = ops;
  suite.dtypes = parse_dtype_list(c["suite"].value("dtypes", ""), "the certificate's suite.dtypes");
  return cf::plan_cases(suite, cf::Expectations());
}

void rerun(const json& c, const VerifyOptions& o, std::vector<std::string>& problems) {
  const std::string plugin_file =
      !o.plugin.empty() ? fs::absolute(o.plugin).string() : c["plugin"].value("path", "");
  BP_CHECK(!plugin_file.empty() && fs::exists(plugin_file), ErrorCode::InvalidArgument,
           "verify --rerun: the certified plugin file '{}' is not here; name it with --plugin",
           plugin_file);
  Device device;
  const std::vector<cf::PlannedCase> plan = load_certified_run(c, plugin_file, o, device);
  if (plan_sha256(plan) != c["suite"].value("plan_sha256", ""))
    fmt::print(
        "  note: this suite plans other cases than the certified run (plan sha256 {} "
        "there, {} here): another build of the suite\n",
        c["suite"].value("plan_sha256", ""), plan_sha256(plan));
  const auto sample = rerun_sample(c, plan, o, problems);
  std::vector<cf::PlannedCase> subplan;
  for (const auto& entry : sample) subplan.push_back(entry.first);
  WorkerSetup setup{self_program(), device,   c["suite"].value("seed", uint64_t{0}),
                    {plugin_file},  o.config, {},
                    o.jobs,         o.timeout};
  const std::string prefix = fmt::format("{} conformance --device {} --plugin {} --seed {}",
                                         shell_quote(setup.self.string()), device.str(),
                                         shell_quote(plugin_file), setup.seed);
  cf::Report report;
  (void)run_plan(report, subplan, setup, prefix);
  int64_t matching = 0;
  for (size_t i = 0; i < sample.size(); ++i) {
    const cf::CaseResult& r = report.cases[i];
    if (r.status == sample[i].second) {
      ++matching;
      continue;
    }
    problems.push_back(fmt::format("case {}: certified {}, the rerun {}{}{}{}", r.id,
                                   cf::to_string(sample[i].second), cf::to_string(r.status),
                                   r.message.empty() ? "" : ": ", r.message,
                                   r.repro.empty() ? "" : "\n    " + r.repro));
  }
  fmt::print("rerun: {} of the certified cases (sample seed {}) on {}: {} match\n", sample.size(),
             o.sample_seed, device.str(), matching);
}

int run_verify(const VerifyOptions& o) {
  const json certificate = read_json_file(o.certificate, "verify");
  std::optional<fs::path> key;
  if (!o.public_key.empty()) key = o.public_key;
  cf::CertificateCheck check = cf::check_certificate(certificate, key);
  print_certificate(certificate, check.seal);
  if (!o.plugin.empty()) check_plugin_file(certificate, o.plugin, check.problems);
  if (o.rerun) rerun(certificate, o, check.problems);
  if (check.problems.empty()) {
    fmt::print("verified: {}\n", o.certificate);
    return kExitOk;
  }
  fmt::print("NOT verified: {} ({} {}):\n", o.certificate, check.problems.size(),
             check.problems.size() == 1 ? "difference" : "differences");
  for (const std::string& p : check.problems) fmt::print("  {}\n", p);
  return kExitFailure;
}

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<VerifyOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify",
      "Check a conformance certificate: its seal, and optionally the plugin file and a rerun "
      "of a sample of its cases; exit 1 on any difference");
  cmd->add_option("certificate", o->certificate,
                  "Certificate written by conformance "
                  "--certificate")
      ->required()
      ->type_name("CERT.json");
  cmd->add_option("--plugin", o->plugin,
                  "Check that this plugin file is the certified one "
                  "(and rerun on it with --rerun)")
      ->type_name("PATH");
  cmd->add_option("--public-key", o->public_key,
                  "Require a signature by this Ed25519 key (PEM public or private key)")
      ->type_name("PEM");
  cmd->add_flag("--rerun", o->rerun,
                "Rerun a seeded sample of the certified cases on the certified device and "
                "compare each status");
  cmd->add_option("--sample", o->sample, "Cases to rerun (default 50)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--sample-seed", o->sample_seed, "Seed of the sample (default 0)")
      ->type_name("N");
  cmd->add_option("--config", o->config, "Config file for the rerun's runtime")->type_name("FILE");
  cmd->add_option("--jobs", o->jobs, "Worker processes of the rerun")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", o->timeout, "Seconds a rerun case may take (default 60)")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  cmd->callback([o, &exit_code] { exit_code = run_verify(*o); });
}

}  // namespace bp::cli
