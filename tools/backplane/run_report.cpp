// The `backplane run` summary: table and JSON (run_report.hpp).
#include "run_report.hpp"

#include <backplane/core/error.hpp>
#include <backplane/dispatch/runtime.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace bp::cli {

bool RunDevice::ok() const {
  if (conformance && !conformance->ok()) return false;
  return std::all_of(models.begin(), models.end(), [](const RunModel& m) { return m.ok(); });
}

bool RunReport::ok() const {
  return std::all_of(plugins.begin(), plugins.end(), [](const RunPlugin& p) { return p.ok(); }) &&
         std::all_of(devices.begin(), devices.end(), [](const RunDevice& d) { return d.ok(); });
}

namespace {

// "BACKPLANE_CPU_ISA=avx2 " for a device that names its ISA level, so that a command to rerun
// its suite runs at the level this run did.
std::string isa_prefix(const RunDevice& d) {
  const std::string isa = device_attribute(parse_device_attributes(d.attributes), "isa");
  return isa.empty() ? std::string() : "BACKPLANE_CPU_ISA=" + isa + " ";
}

std::string conformance_cell(const std::optional<RunConformance>& c, bool oracle) {
  if (!c) return oracle ? "oracle" : "not run";
  if (!c->error.empty()) return "ERROR";
  const conformance::Summary& n = c->counts;
  std::string text = fmt::format("{} passed", n.passed);
  if (n.failed) text += fmt::format(", {} FAILED", n.failed);
  if (n.crashed) text += fmt::format(", {} CRASHED", n.crashed);
  if (n.timeout) text += fmt::format(", {} TIMEOUT", n.timeout);
  if (n.xpass) text += fmt::format(", {} XPASS", n.xpass);
  if (n.blocked) text += fmt::format(", {} BLOCKED", n.blocked);
  if (n.xfail) text += fmt::format(", {} xfail", n.xfail);
  if (n.unsupported) text += fmt::format(", {} unsupported", n.unsupported);
  return text;
}

const RunModel* find_model(const RunDevice& d, const std::string& name) {
  for (const RunModel& m : d.models)
    if (m.model == name) return &m;
  return nullptr;
}

std::string error_cell(const RunModel* m) {
  if (!m) return "-";
  if (!m->error.empty()) return "ERROR";
  if (!m->checked) return "(oracle)";
  return fmt::format("{:.2e}{}", m->max_abs_err, m->max_abs_err <= m->tolerance ? "" : " FAIL");
}

std::string time_cell(const RunModel* m) {
  if (!m || !m->error.empty()) return "-";
  return fmt::format("{:.3f}", m->ms_per_forward);
}

// The plugins, one line each: name, status, where from and what it said.
std::string plugins_section(const RunReport& report) {
  std::string out = "plugins\n";
  size_t name_width = 6;
  for (const RunPlugin& p : report.plugins) name_width = std::max(name_width, p.name.size());
  for (const RunPlugin& p : report.plugins) {
    std::string detail = p.path.empty() ? "built in" : p.path;
    if (!p.message.empty()) detail += ": " + p.message;
    out += fmt::format("  {:<{}}  {:<10}  {}\n", p.name, name_width, p.status, detail);
  }
  return out;
}

// Cells laid out in columns of the widest cell (the device name cut at 32 characters).
std::string columns(const std::vector<std::string>& header,
                    const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  // The device name is the one free-text column: keep the table readable.
  width[1] = std::min<size_t>(width[1], 32);
  auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < cells.size(); ++c) {
      std::string cell = cells[c];
      if (cell.size() > width[c]) cell = cell.substr(0, width[c] - 3) + "...";
      text += fmt::format("{}{:<{}}", c ? "  " : "", cell, width[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return text + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

// One row per device: device, name, conformance, then per model error and time, then the
// verdict.
std::string devices_table(const RunReport& report) {
  std::vector<std::string> header = {"device", "name", "conformance (quick)"};
  for (const std::string& m : report.model_names) {
    header.push_back(m + " max err");
    header.push_back("ms/fwd");
  }
  header.push_back("result");
  std::vector<std::vector<std::string>> rows;
  for (const RunDevice& d : report.devices) {
    std::vector<std::string> row = {d.device, d.name,
                                    conformance_cell(d.conformance, d.device == "reference:0")};
    for (const std::string& m : report.model_names) {
      row.push_back(error_cell(find_model(d, m)));
      row.push_back(time_cell(find_model(d, m)));
    }
    row.push_back(d.ok() ? "ok" : "FAILED");
    rows.push_back(std::move(row));
  }
  return columns(header, rows);
}

// What went wrong, in full: "" when nothing did.
std::string problems_section(const RunReport& report) {
  std::string problems;
  for (const RunPlugin& p : report.plugins)
    if (!p.ok()) problems += fmt::format("  --plugin {}: {}: {}\n", p.path, p.status, p.message);
  for (const RunDevice& d : report.devices) {
    if (d.conformance && !d.conformance->ok())
      problems += d.conformance->error.empty()
                      ? fmt::format(
                            "  {}: the quick conformance suite failed; rerun it for the "
                            "failing cases and their repro lines:\n    {} "
                            "conformance --device {}\n",
                            d.device, isa_prefix(d) + "backplane", d.device)
                      : fmt::format("  {}: conformance: {}\n", d.device, d.conformance->error);
    for (const RunModel& m : d.models) {
      if (!m.error.empty())
        problems += fmt::format("  {}: {}: {}\n", d.device, m.model, m.error);
      else if (!m.ok())
        problems += fmt::format("  {}: {}: max abs error {:.3g} exceeds the tolerance {:.3g}\n",
                                d.device, m.model, m.max_abs_err, m.tolerance);
    }
  }
  return problems;
}

}  // namespace

std::string render_table(const RunReport& report) {
  std::string out = plugins_section(report);
  out += "\n" + devices_table(report);
  // Where it ran, so that tables from two machines can be compared.
  out += fmt::format("\nhost CPU: {}\n", report.host_cpu);
  for (const RunDevice& d : report.devices)
    if (!d.attributes.empty()) out += fmt::format("{}: {}\n", d.device, d.attributes);
  // What went wrong, in full, under the table.
  if (const std::string problems = problems_section(report); !problems.empty())
    out += "\nproblems:\n" + problems;
  return out;
}

nlohmann::json model_to_json(const RunModel& m) {
  nlohmann::json j = {{"model", m.model},
                      {"description", m.description},
                      {"output_shape", m.output_shape},
                      {"iterations", m.iterations},
                      {"ms_per_forward", m.ms_per_forward},
                      {"checked", m.checked},
                      {"ok", m.ok()}};
  if (m.checked) {
    j["max_abs_err"] = m.max_abs_err;
    j["tolerance"] = m.tolerance;
  }
  if (!m.error.empty()) j["error"] = m.error;
  return j;
}

RunModel model_from_json(const nlohmann::json& j) {
  auto field = [&](const char* name) -> const nlohmann::json& {
    BP_CHECK(j.is_object() && j.contains(name), ErrorCode::Parse,
             "run: the model result has no '{}' field", name);
    return j.at(name);
  };
  RunModel m;
  m.model = field("model").get<std::string>();
  m.description = j.value("description", "");
  m.output_shape = j.value("output_shape", "");
  m.iterations = j.value("iterations", 0);
  m.ms_per_forward = j.value("ms_per_forward", 0.0);
  m.checked = field("checked").get<bool>();
  if (m.checked) {
    m.max_abs_err = field("max_abs_err").get<double>();
    m.tolerance = field("tolerance").get<double>();
  }
  m.error = j.value("error", "");
  return m;
}

nlohmann::json to_json(const RunReport& report) {
  nlohmann::json plugins = nlohmann::json::array();
  for (const RunPlugin& p : report.plugins)
    plugins.push_back({{"name", p.name},
                       {"status", p.status},
                       {"path", p.path},
                       {"message", p.message},
                       {"backends", p.backends},
                       {"requested", p.requested},
                       {"ok", p.ok()}});
  nlohmann::json devices = nlohmann::json::array();
  for (const RunDevice& d : report.devices) {
    nlohmann::json dj = {{"device", d.device}, {"name", d.name}, {"plugin", d.plugin}};
    nlohmann::json attributes = nlohmann::json::object();
    for (const DeviceAttribute& a : parse_device_attributes(d.attributes))
      attributes[a.key] = a.value;
    dj["attributes"] = std::move(attributes);
    if (d.conformance) {
      const RunConformance& c = *d.conformance;
      const conformance::Summary& n = c.counts;
      dj["conformance"] = {{"suite", "quick"},     {"passed", n.passed},
                           {"failed", n.failed},   {"unsupported", n.unsupported},
                           {"xfail", n.xfail},     {"xpass", n.xpass},
                           {"crashed", n.crashed}, {"timeout", n.timeout},
                           {"blocked", n.blocked}, {"seconds", c.seconds},
                           {"ok", c.ok()}};
      if (!c.error.empty()) dj["conformance"]["error"] = c.error;
    } else {
      dj["conformance"] = nullptr;
    }
    dj["models"] = nlohmann::json::array();
    for (const RunModel& m : d.models) dj["models"].push_back(model_to_json(m));
    dj["ok"] = d.ok();
    devices.push_back(std::move(dj));
  }
  return {{"host_cpu", report.host_cpu},
          {"plugins", plugins},
          {"devices", devices},
          {"seconds", report.seconds},
          {"ok", report.ok()}};
}

}  // namespace bp::cli
