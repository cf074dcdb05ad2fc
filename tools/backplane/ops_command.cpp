// `backplane ops [--device SEL] [--json] [--config FILE] [--plugin PATH]...`: for every op
// of the catalog and every loaded backend (or only the backends of the devices --device
// picks), how a call would run there: `native` (the backend registered a kernel, for some
// dtypes), `composite` (core decomposes the op into others), `fallback` (the call runs on
// the CPU backend: fallback.policy = cpu, or fallback.ops forces it) or `missing`. Read from
// bp::op_table, the computed dispatch table itself, and the fallback settings the
// dispatcher reads, so what it prints is what the dispatcher does. docs/cli.md documents
// the output and the JSON shape. `backplane ops --markdown` prints the op reference
// instead (op_reference.hpp; docs/op-reference.md), which depends on no plugin.
//
// Exit code: 0; 1 when a --plugin file did not load or --device picks no loaded device.
#include "command.hpp"
#include "dtype_text.hpp"
#include "op_reference.hpp"
#include "plugin_options.hpp"

#include <backplane/core/catalog.hpp>
#include <backplane/core/dtype_mask.hpp>
#include <backplane/core/error.hpp>
#include <backplane/dispatch/fallback.hpp>
#include <backplane/dispatch/runtime.hpp>
#include <backplane/dispatch/selector.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace bp::cli {
namespace {

struct OpsOptions {
  bool json = false;
  bool markdown = false;
  PluginOptions plugins;
};

// The backends of the devices a --device selector picks, in its order; the first device.
// Throws bp::Error naming the selector and what is loaded when it picks none (a backend
// that loaded without devices cannot be picked: the full matrix shows it).
std::pair<std::vector<BackendInfo>, Device> select_backends(const std::string& text,
                                                            const std::vector<BackendInfo>& all) {
  const DeviceSelector selector = DeviceSelector::parse(text);
  const Device first = selector.first_available(all);
  std::vector<BackendInfo> shown;
  for (Device d : selector.select(all))
    for (const BackendInfo& b : all)
      if (b.type == d.type && std::none_of(shown.begin(), shown.end(),
                                           [&](const BackendInfo& s) { return s.type == b.type; }))
        shown.push_back(b);
  return {shown, first};
}

// One cell of the matrix: how one op runs on one backend.
struct Cell {
  std::string status;   // native, composite, fallback, missing
  std::string plugin;   // native: the plugin that registered the kernel
  uint32_t dtypes = 0;  // native: bp_dtype_mask
};

// A call leaves the backend for the CPU when the config forces the op there, or when the
// backend lacks the kernel, the policy is `cpu` and the CPU backend has one (the
// dispatcher's rule, docs/fallback.md). The CPU never falls back to itself.
bool falls_back(const OpDef& op, const OpTableEntry& e, bool cpu_has_kernel) {
  if (e.backend == "cpu" || !op.can_fall_back || !cpu_has_kernel) return false;
  if (e.kind == EntryKind::Kernel) return is_fallback_forced(e.backend, op.name);
  return e.kind == EntryKind::Missing && fallback_policy() == FallbackPolicy::Cpu;
}

Cell cell_of(const OpDef& op, const OpTableEntry& e, bool cpu_has_kernel) {
  if (falls_back(op, e, cpu_has_kernel)) return {"fallback", "", 0};
  switch (e.kind) {
    case EntryKind::Kernel:
      return {"native", e.plugin, e.dtypes};
    case EntryKind::Composite:
      return {"composite", "", 0};
    case EntryKind::Missing:
      return {"missing", "", 0};
  }
  return {"missing", "", 0};
}

// The matrix's text for a cell: a native kernel lists its dtypes unless it takes all ten.
std::string cell_text(const Cell& c) {
  if (c.status != "native" || c.dtypes == BP_DTYPES_ALL) return c.status;
  return fmt::format("native({})", dtype_summary(c.dtypes));
}

struct OpRow {
  const OpDef* op = nullptr;
  std::vector<Cell> cells;  // one per shown backend, in their order
};

std::vector<OpRow> gather(const std::vector<BackendInfo>& shown) {
  std::vector<OpRow> rows;
  for (const OpDef& op : Catalog::get().ops()) {
    const std::vector<OpTableEntry> entries = op_table(op.name);
    const bool cpu_has_kernel = std::any_of(entries.begin(), entries.end(), [](const auto& e) {
      return e.backend == "cpu" && e.kind == EntryKind::Kernel;
    });
    std::map<std::string, Cell> by_backend;
    for (const OpTableEntry& e : entries) by_backend[e.backend] = cell_of(op, e, cpu_has_kernel);
    OpRow row{&op, {}};
    for (const BackendInfo& b : shown) row.cells.push_back(by_backend.at(b.name));
    rows.push_back(std::move(row));
  }
  std::sort(rows.begin(), rows.end(),
            [](const OpRow& a, const OpRow& b) { return a.op->name < b.op->name; });
  return rows;
}

std::string_view kind_name(OpKind kind) {
  return kind == OpKind::Primitive ? "primitive" : "composite";
}

nlohmann::ordered_json to_json(const std::optional<std::string>& device,
                               const std::vector<BackendInfo>& shown,
                               const std::vector<OpRow>& rows) {
  nlohmann::ordered_json out;
  out["device"] = device ? nlohmann::ordered_json(*device) : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json backends = nlohmann::ordered_json::array();
  for (const BackendInfo& b : shown)
    backends.push_back({{"name", b.name}, {"plugin", b.plugin}, {"device_count", b.device_count}});
  out["backends"] = std::move(backends);
  nlohmann::ordered_json ops = nlohmann::ordered_json::array();
  for (const OpRow& row : rows) {
    nlohmann::ordered_json cells = nlohmann::ordered_json::object();
    for (size_t i = 0; i < shown.size(); ++i) {
      const Cell& c = row.cells[i];
      nlohmann::ordered_json cell = {{"status", c.status}};
      if (c.status == "native") {
        cell["plugin"] = c.plugin;
        cell["dtypes"] = dtype_mask_names(c.dtypes);
      }
      cells[shown[i].name] = std::move(cell);
    }
    ops.push_back({{"name", row.op->name},
                   {"kind", kind_name(row.op->kind)},
                   {"schema", row.op->schema.str()},
                   {"backends", std::move(cells)}});
  }
  out["ops"] = std::move(ops);
  return out;
}

void print_text(const std::optional<std::string>& device, const std::vector<BackendInfo>& shown,
                const std::vector<OpRow>& rows) {
  std::vector<std::vector<std::string>> table = {{"OP", "KIND"}};
  for (const BackendInfo& b : shown) table[0].push_back(b.name);
  for (const OpRow& row : rows) {
    std::vector<std::string> line = {row.op->name, std::string(kind_name(row.op->kind))};
    for (const Cell& c : row.cells) line.push_back(cell_text(c));
    table.push_back(std::move(line));
  }
  // Per backend: how many ops run natively, by decomposition, or not at all.
  bool first_total = true;
  for (const char* status : {"native", "composite", "fallback", "missing"}) {
    std::vector<std::string> line = {first_total ? "total" : "", status};
    first_total = false;
    for (size_t i = 0; i < shown.size(); ++i)
      line.push_back(std::to_string(std::count_if(
          rows.begin(), rows.end(), [&](const OpRow& r) { return r.cells[i].status == status; })));
    table.push_back(std::move(line));
  }
  std::vector<size_t> width(table[0].size(), 0);
  for (const auto& line : table)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());

  if (device) fmt::print("device {} (backend {})\n\n", *device, shown.at(0).name);
  for (size_t r = 0; r < table.size(); ++r) {
    if (r == rows.size() + 1) fmt::print("\n");  // a blank line before the totals
    std::string text;
    for (size_t c = 0; c < table[r].size(); ++c)
      text +=
          c + 1 < table[r].size() ? fmt::format("{:<{}}  ", table[r][c], width[c]) : table[r][c];
    fmt::print("{}\n", text);
  }
  fmt::print(
      "\nlegend:\n"
      "  native      the backend registered a kernel; native(...) lists its dtypes when not "
      "all ten (int: the five integer types, float: the four floating types)\n"
      "  composite   core decomposes the op into other ops, each dispatched on this backend\n"
      "  fallback    runs on the CPU backend and copies back (fallback.policy = cpu, or "
      "fallback.ops forces it)\n"
      "  missing     no kernel and no decomposition: a call on this backend fails\n"
      "  KIND        primitive (backends implement it) or composite (core decomposes it; a "
      "backend may override it with a native kernel)\n");
}

int run_ops(const OpsOptions& options) {
  if (options.markdown) {
    // The catalog's own facts, the same whatever plugins are installed: none is loaded.
    fmt::print("{}\n", op_reference_markdown());
    return kExitOk;
  }
  const std::vector<LoadedPlugin> plugins = load_plugins(options.plugins).plugins;
  int code = kExitOk;
  for (const LoadedPlugin& p : plugins)
    if (p.explicit_file &&
        (p.report.status == LoadStatus::Failed || p.report.status == LoadStatus::Refused)) {
      fmt::print(stderr, "backplane: plugin {} {}: {}\n", p.report.path, to_string(p.report.status),
                 p.report.message);
      code = kExitFailure;
    }

  std::vector<BackendInfo> shown = backends();
  std::optional<std::string> device;
  if (const std::string& text = options.plugins.device; !text.empty()) {
    try {
      auto [selected, first] = select_backends(text, shown);
      shown = std::move(selected);
      device = first.str();
    } catch (const Error& e) {
      // The message names the selector and every loaded backend with its devices.
      fmt::print(stderr, "backplane: error: --device '{}': {}\n", text, e.what());
      return kExitFailure;
    }
  }
  const std::vector<OpRow> rows = gather(shown);
  if (options.json)
    fmt::print("{}\n", to_json(device, shown, rows).dump(2));
  else
    print_text(device, shown, rows);
  return code;
}

}  // namespace

void add_ops_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<OpsOptions>();
  CLI::App* command = app.add_subcommand(
      "ops",
      "Show, per op and backend, whether a call runs a native kernel, a composite "
      "decomposition, a fallback, or is missing");
  add_device_option(*command, options->plugins,
                    "Only the backends of the devices this selector picks");
  command->add_flag("--json", options->json,
                    "Print JSON: {device: selector|null, backends: [{name, plugin, "
                    "device_count}], ops: [{name, kind, schema, backends: {<backend>: {status, "
                    "plugin, dtypes: [name]}}}]} (plugin and dtypes only for status native)");
  command
      ->add_flag("--markdown", options->markdown,
                 "Print the op reference instead (Markdown, docs/op-reference.md): every op's "
                 "schema, kind, dtypes, what its kernel receives and its edge semantics; no "
                 "plugin is loaded")
      ->excludes("--json");
  add_plugin_options(*command, options->plugins);
  command->footer(
      "status: native (a kernel of the backend), composite (decomposed by core), fallback "
      "(runs on the CPU backend), missing.\n"
      "Exit status: 0; 1 when a --plugin file failed to load or was refused, or --device picks "
      "no device of a loaded backend; 2 for a bad command line.\n");
  command->callback([options, &exit_code] { exit_code = run_ops(*options); });
}

}  // namespace bp::cli
