// `backplane run`: the main job, what `scripts/run` shows a new user. It lists the plugins
// found with their load status, then for every device with a driver: runs the quick
// conformance suite (`backplane conformance --quick` in a child process) and the two
// example models (examples/models/, in a child `backplane run --worker`), and prints one
// summary table (--json writes it as JSON). Children isolate the devices: a plugin that
// crashes or hangs fails its own row. Exit code 0 when every device passed, 1 otherwise.
#include "child_process.hpp"
#include "command.hpp"
#include "device_attributes_text.hpp"
#include "plugin_options.hpp"
#include "program_files.hpp"
#include "run_report.hpp"

#include "models/mlp.hpp"
#include "models/run_model.hpp"
#include "models/transformer_block.hpp"

#include <backplane/backplane.hpp>
#include <backplane/conformance/report.hpp>

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>

#include <unistd.h>

namespace bp::cli {
namespace fs = std::filesystem;
namespace ex = examples;

namespace {

struct RunOptions {
  PluginOptions plugins;
  std::string devices;  // comma-separated devices or backend names; "" = every device
  bool no_conformance = false;
  uint64_t seed = 0;
  int iterations = 10;
  int64_t batch = 0;  // 0: each model's default
  int64_t seq = 0;
  double timeout = 3600.0;  // per child process
  std::string json;
  bool worker = false;
  std::string result;  // the worker's result file
  // The worker's device. Not PluginOptions::device: a selector there would skip the plugins
  // of other backends, and the fallback backend (cpu) must load as it does in the parent.
  std::string worker_device;
};

ex::MlpConfig mlp_config(const RunOptions& o) {
  ex::MlpConfig c;
  if (o.batch > 0) c.batch = o.batch;
  return c;
}

ex::TransformerBlockConfig transformer_config(const RunOptions& o) {
  ex::TransformerBlockConfig c;
  if (o.batch > 0) c.batch = o.batch;
  if (o.seq > 0) c.seq = o.seq;
  return c;
}

// --plugin and --config as the children must see them (absolute: they start elsewhere).
std::vector<std::string> plugin_args(const RunOptions& o) {
  std::vector<std::string> args;
  for (const std::string& p : o.plugins.plugins) {
    args.push_back("--plugin");
    args.push_back(fs::absolute(p).string());
  }
  if (!o.plugins.config.empty()) {
    args.push_back("--config");
    args.push_back(fs::absolute(o.plugins.config).string());
  }
  return args;
}

std::string failure_text(const ChildOutcome& child) {
  std::string tail = child.output_tail;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  const size_t keep = tail.rfind('\n', tail.size() > 400 ? tail.size() - 400 : 0);
  if (keep != std::string::npos && tail.size() > 400) tail = tail.substr(keep + 1);
  return tail.empty() ? "the process " + child.how
                      : fmt::format("the process {}; last output: {}", child.how, tail);
}

// ---- the worker: both models on one device, results to a file after each -------------

template <class Model, class Config>
RunModel run_one(const Config& config, const RunOptions& o, Device device) {
  RunModel m;
  m.model = Model::kName;
  m.description = Model::describe(config);
  try {
    const bool is_reference = device.type == device_types::Reference;
    const ex::ModelRun run =
        ex::run_model<Model>(config, o.seed, device, o.iterations, !is_reference);
    m.output_shape = shape_str(run.output_shape);
    m.iterations = run.iterations;
    m.ms_per_forward = run.ms_per_forward;
    m.checked = run.checked;
    m.max_abs_err = run.max_abs_err;
    m.tolerance = run.tolerance;
  } catch (const std::exception& e) {
    m.error = e.what();
  }
  return m;
}

int run_worker(const RunOptions& o) {
  (void)load_plugins(o.plugins);
  const Device device = Device::parse(o.worker_device);
  nlohmann::json results = nlohmann::json::array();
  // Written after each model, so a crash in the second keeps the first's result.
  results.push_back(model_to_json(run_one<ex::Mlp>(mlp_config(o), o, device)));
  write_file(o.result, results.dump(), "model results");
  results.push_back(model_to_json(run_one<ex::TransformerBlock>(transformer_config(o), o, device)));
  write_file(o.result, results.dump(), "model results");
  return kExitOk;
}

// ---- the parent ------------------------------------------------------------------------

bool wanted(const RunOptions& o, const Device& device) {
  if (o.devices.empty()) return true;
  std::stringstream in(o.devices);
  for (std::string word; std::getline(in, word, ',');)
    if (word == device.str() || word == device_type_name(device.type)) return true;
  return false;
}

RunConformance run_conformance(const RunOptions& o, const std::string& device,
                               const fs::path& scratch) {
  const fs::path report_file = scratch / fmt::format("conformance-{}.json", device);
  std::vector<std::string> argv = {
      self_program().string(), "conformance", "--device",          device, "--quick", "--seed",
      std::to_string(o.seed),  "--json",      report_file.string()};
  for (const std::string& a : plugin_args(o)) argv.push_back(a);
  const ChildOutcome child = run_child(argv, o.timeout);
  RunConformance c;
  c.seconds = child.seconds;
  // Exit 1 with a report is a suite that ran and found failures; anything else without a
  // report (a bad device, a crash of the suite itself) is an error of the run.
  const nlohmann::json j = nlohmann::json::parse(read_file(report_file), nullptr, false);
  if (child.timed_out || !child.exited || j.is_discarded()) {
    c.error = failure_text(child);
    return c;
  }
  c.counts = conformance::report_from_json(j, report_file.string()).summary();
  return c;
}

std::vector<RunModel> run_models(const RunOptions& o, const std::string& device,
                                 const fs::path& scratch) {
  const fs::path result_file = scratch / fmt::format("models-{}.json", device);
  std::vector<std::string> argv = {self_program().string(),
                                   "run",
                                   "--worker",
                                   "--device",
                                   device,
                                   "--result",
                                   result_file.string(),
                                   "--seed",
                                   std::to_string(o.seed),
                                   "--iterations",
                                   std::to_string(o.iterations)};
  if (o.batch > 0) argv.insert(argv.end(), {"--batch", std::to_string(o.batch)});
  if (o.seq > 0) argv.insert(argv.end(), {"--seq", std::to_string(o.seq)});
  for (const std::string& a : plugin_args(o)) argv.push_back(a);
  const ChildOutcome child = run_child(argv, o.timeout);

  std::vector<RunModel> models;
  const nlohmann::json j = nlohmann::json::parse(read_file(result_file), nullptr, false);
  if (j.is_array())
    for (const nlohmann::json& m : j) models.push_back(model_from_json(m));
  // A model the worker did not get to (it crashed, hung or failed to start) is an error.
  for (const char* name : {ex::Mlp::kName, ex::TransformerBlock::kName}) {
    bool found = false;
    for (const RunModel& m : models) found = found || m.model == name;
    if (!found) {
      RunModel missing;
      missing.model = name;
      missing.error = failure_text(child);
      models.push_back(missing);
    }
  }
  if (models.size() == 2 && (child.timed_out || !child.exited || child.exit_code != 0)) {
    // Both results came back but the process then failed (at exit): say so on the last.
    if (models.back().error.empty()) models.back().error = failure_text(child);
  }
  return models;
}

// The children load the --plugin files that loaded here. One that failed is this run's
// problem, reported once (RunPlugin::ok); passed on, it would fail every child's start-up
// and read as a failure of each device.
RunOptions options_for_children(const RunOptions& o, const LoadedRuntime& runtime) {
  RunOptions children = o;
  children.plugins.plugins.clear();
  for (const LoadedPlugin& p : runtime.plugins)
    if (p.explicit_file &&
        (p.report.status == LoadStatus::Loaded || p.report.status == LoadStatus::NoDevices))
      children.plugins.plugins.push_back(p.report.path);
  return children;
}

// The devices --devices selects; none is an error that says what is there.
std::vector<Device> devices_to_run(const RunOptions& o, const LoadedRuntime& runtime) {
  std::vector<Device> devices;
  std::vector<std::string> present;
  for (const BackendInfo& b : backends())
    for (int i = 0; i < b.device_count; ++i) {
      const Device d = Device::parse(fmt::format("{}:{}", b.name, i));
      present.push_back(d.str());
      if (wanted(o, d)) devices.push_back(d);
    }
  if (devices.empty()) {
    // Say what is there, and which --plugin files did not load: a mistyped path is the
    // usual reason a device the user expected is missing.
    std::string not_loaded;
    for (const LoadedPlugin& p : runtime.plugins)
      if (p.explicit_file && p.report.status != LoadStatus::Loaded)
        not_loaded += fmt::format("; --plugin {}: {} ({})", p.report.path,
                                  to_string(p.report.status), p.report.message);
    throw Error(ErrorCode::InvalidArgument,
                fmt::format("--devices {}: no device matches (devices here: {}){}", o.devices,
                            fmt::join(present, ", "), not_loaded));
  }
  return devices;
}

// A folder for the children's result files, removed with everything in it on scope exit.
class ScratchFolder {
 public:
  explicit ScratchFolder(std::chrono::steady_clock::time_point start)
      : path_(fs::temp_directory_path() /
              fmt::format("backplane-run-{}-{}", ::getpid(), start.time_since_epoch().count())) {
    fs::create_directories(path_);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// One row of the table: the device, its quick conformance suite (not on the reference
// oracle itself) and the example models.
RunDevice run_device(const RunOptions& o, const RunOptions& children, Device device,
                     const fs::path& scratch) {
  RunDevice row;
  row.device = device.str();
  row.name = device_info(device).name;
  row.attributes = attributes_line(device);
  for (const BackendInfo& b : backends())
    if (b.name == device_type_name(device.type)) row.plugin = b.plugin;
  const bool oracle = device.type == device_types::Reference;
  if (!oracle && !o.no_conformance) {
    fmt::print(stderr, "backplane run: {}: quick conformance suite...\n", row.device);
    row.conformance = run_conformance(children, row.device, scratch);
  }
  fmt::print(stderr, "backplane run: {}: examples ({} timed forward passes each)...\n", row.device,
             o.iterations);
  row.models = run_models(children, row.device, scratch);
  return row;
}

// --json (a file, or "-" for stdout instead of the table), then the table with its legend.
void print_report(const RunReport& report, const RunOptions& o) {
  if (!o.json.empty()) {
    const std::string text = to_json(report).dump(2) + "\n";
    if (o.json == "-")
      fmt::print("{}", text);
    else
      write_file(o.json, text, "JSON summary");
  }
  if (o.json == "-") return;
  fmt::print("{}", render_table(report));
  fmt::print("\nmodels: {} ({}); {} ({})\n", ex::Mlp::kName, ex::Mlp::describe(mlp_config(o)),
             ex::TransformerBlock::kName, ex::TransformerBlock::describe(transformer_config(o)));
  fmt::print(
      "max err: largest |device - reference:0| over the output (tolerance {} x "
      "max(1, max |reference|)); ms/fwd: median of {} forward passes\n",
      ex::kTolerance, o.iterations);
  fmt::print("{} in {:.1f} s\n", report.ok() ? "all devices passed" : "FAILED", report.seconds);
}

int run_main(const RunOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  const LoadedRuntime runtime = load_plugins(o.plugins);
  RunReport report;
  report.host_cpu = host_cpu_model();
  report.model_names = {ex::Mlp::kName, ex::TransformerBlock::kName};
  for (const LoadedPlugin& p : runtime.plugins)
    report.plugins.push_back({p.report.plugin, std::string(to_string(p.report.status)),
                              p.report.path, p.report.message, p.report.backends, p.explicit_file});
  const RunOptions children = options_for_children(o, runtime);
  const std::vector<Device> devices = devices_to_run(o, runtime);

  const ScratchFolder scratch(start);
  for (const Device& device : devices)
    report.devices.push_back(run_device(o, children, device, scratch.path()));
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_report(report, o);
  return report.ok() ? kExitOk : kExitFailure;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "The main job: list the plugins, run the quick conformance suite and the example "
      "models (MLP, transformer block) on every device, compare with the reference backend, "
      "print one table; exit 1 when a device failed");
  add_plugin_options(*cmd, o->plugins);
  cmd->add_option("--devices", o->devices,
                  "Only these devices or backends, comma-separated (cpu:0,opencl); default: "
                  "every device found")
      ->type_name("LIST");
  cmd->add_flag("--no-conformance", o->no_conformance, "Skip the quick conformance suite");
  cmd->add_option("--iterations", o->iterations, "Timed forward passes per model (default 10)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "Seed of the weights, inputs and conformance cases")
      ->type_name("N");
  cmd->add_option("--batch", o->batch, "Batch of both models (default: mlp 64, transformer 2)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--seq", o->seq, "Sequence length of the transformer block (default 64)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--timeout", o->timeout,
                  "Seconds each device's suite or models may take (default 3600)")
      ->type_name("S")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--json", o->json, "Write the summary as JSON here ('-': stdout, no table)")
      ->type_name("FILE");
  cmd->add_flag("--worker", o->worker, "internal: run the models on --device")->group("");
  cmd->add_option("--device", o->worker_device, "internal: the worker's device")->group("");
  cmd->add_option("--result", o->result, "internal: the worker's result file")->group("");
  cmd->callback([o, &exit_code] {
    if (o->worker) {
      if (o->worker_device.empty() || o->result.empty())
        throw CLI::ValidationError("--worker", "needs --device and --result");
      exit_code = run_worker(*o);
      return;
    }
    if (!o->worker_device.empty())
      throw CLI::ValidationError("--device", "is for the worker; use --devices");
    exit_code = run_main(*o);
  });
}

}  // namespace bp::cli
