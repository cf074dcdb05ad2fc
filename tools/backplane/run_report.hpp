// What `backplane run` found, and its two renderings: the summary table on the terminal and
// the --json document (docs/examples.md describes both). Filled by run_command.cpp.
#pragma once

#include <backplane/conformance/report.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bp::cli {

struct RunPlugin {
  std::string name, status, path, message;
  std::vector<std::string> backends;
  bool requested = false;  // named with --plugin: failing to load it fails the run
  // A plugin the user asked for by file that failed or was refused: the devices it should
  // have brought are missing, so "all devices passed" would be wrong.
  bool ok() const { return !requested || (status != "failed" && status != "refused"); }
};

struct RunConformance {
  conformance::Summary counts;  // the quick suite's outcome counts
  double seconds = 0.0;
  std::string error;  // the suite could not run (its process failed before a report)
  bool ok() const { return error.empty() && counts.failures() == 0; }
};

struct RunModel {
  std::string model;  // "mlp", "transformer_block"
  std::string description;
  std::string output_shape;
  double max_abs_err = 0.0, tolerance = 0.0, ms_per_forward = 0.0;
  int iterations = 0;
  bool checked = false;  // false on reference:0, which is its own oracle
  std::string error;     // the model did not run: the error, or how its process ended
  bool ok() const { return error.empty() && (!checked || max_abs_err <= tolerance); }
};

struct RunDevice {
  std::string device, name, plugin;
  // Where it computed: "isa=avx2 highway=AVX2 onednn=avx2" (bp::device_attributes), or "".
  std::string attributes;
  // nullopt for reference:0 (the oracle the suite compares with) or with --no-conformance.
  std::optional<RunConformance> conformance;
  std::vector<RunModel> models;
  bool ok() const;
};

struct RunReport {
  std::vector<RunPlugin> plugins;
  std::vector<RunDevice> devices;
  std::vector<std::string> model_names;  // the table's model columns, in order
  std::string host_cpu;                  // the CPU model of the machine it ran on
  double seconds = 0.0;
  bool ok() const;
};

// The plugins with their load status, then one row per device: the quick suite's counts,
// each model's max abs error (or what went wrong) and time per forward pass, and the verdict.
std::string render_table(const RunReport& report);
nlohmann::json to_json(const RunReport& report);

// A model's result as the worker writes it (RunModel <-> JSON); from_json throws bp::Error
// naming the missing field.
nlohmann::json model_to_json(const RunModel& model);
RunModel model_from_json(const nlohmann::json& j);

}  // namespace bp::cli
