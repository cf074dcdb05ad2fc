// The human- and CI-facing renderings of a report: JUnit XML, Markdown and the terminal
// matrix (report.hpp).
#include "backplane/conformance/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <vector>

namespace bp::conformance {
namespace {

// Per (op, dtype): how many cases ended in each status.
struct Cell {
  std::array<int64_t, kCaseStatusCount> count{};
  int64_t get(CaseStatus s) const { return count[static_cast<size_t>(s)]; }
};

struct Matrix {
  std::vector<std::string> ops;     // rows, in plan order
  std::vector<std::string> dtypes;  // columns, in the order of op set v1
  std::map<std::pair<std::string, std::string>, Cell> cells;
};

Matrix build_matrix(const Report& report) {
  static const std::vector<std::string> kDtypeOrder = {"bool", "i8",  "u8",   "i16", "i32",
                                                       "i64",  "f16", "bf16", "f32", "f64"};
  Matrix m;
  std::vector<std::string> other_dtypes;
  for (const CaseResult& c : report.cases) {
    if (std::find(m.ops.begin(), m.ops.end(), c.op) == m.ops.end()) m.ops.push_back(c.op);
    if (std::find(kDtypeOrder.begin(), kDtypeOrder.end(), c.dtype) == kDtypeOrder.end() &&
        std::find(other_dtypes.begin(), other_dtypes.end(), c.dtype) == other_dtypes.end())
      other_dtypes.push_back(c.dtype);
    ++m.cells[{c.op, c.dtype}].count[static_cast<size_t>(c.status)];
  }
  for (const std::string& d : kDtypeOrder)
    for (const auto& [key, cell] : m.cells)
      if (key.second == d) {
        m.dtypes.push_back(d);
        break;
      }
  m.dtypes.insert(m.dtypes.end(), other_dtypes.begin(), other_dtypes.end());
  return m;
}

// A short cell: failures first (count and letter), then "ok" (all passed), "p/n" (p of n
// passed, the rest unsupported), "x" (only xfail), "-" (only unsupported). F failed,
// C crashed, T timeout, P xpass, B blocked.
std::string cell_text(const Cell& c) {
  std::string out;
  const std::pair<CaseStatus, char> bad[] = {{CaseStatus::Failed, 'F'},
                                             {CaseStatus::Crashed, 'C'},
                                             {CaseStatus::Timeout, 'T'},
                                             {CaseStatus::Xpass, 'P'},
                                             {CaseStatus::Blocked, 'B'}};
  for (const auto& [status, letter] : bad)
    if (c.get(status) > 0) out += fmt::format("{}{}", c.get(status), letter);
  if (!out.empty()) return out;
  const int64_t passed = c.get(CaseStatus::Passed);
  const int64_t unsupported = c.get(CaseStatus::Unsupported);
  if (passed > 0 && unsupported > 0) return fmt::format("{}/{}", passed, passed + unsupported);
  if (passed > 0) return "ok";
  if (c.get(CaseStatus::Xfail) > 0) return "x";
  if (c.get(CaseStatus::Unsupported) > 0) return "-";
  return "";
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r')
          out += '?';
        else
          out += c;
    }
  }
  return out;
}

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string summary_line(const Summary& s) {
  return fmt::format(
      "{} passed, {} failed, {} crashed, {} timeout, {} xpass, {} xfail, "
      "{} blocked, {} unsupported ({} cases); ops: {} claimed, {} compared",
      s.passed, s.failed, s.crashed, s.timeout, s.xpass, s.xfail, s.blocked, s.unsupported,
      s.total(), s.ops_claimed, s.ops_compared);
}

}  // namespace

std::string to_junit(const Report& report) {
  const Summary s = report.summary();
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"backplane conformance\" tests=\"{}\" failures=\"{}\" "
      "errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
      s.total(), s.failed + s.xpass + s.blocked, s.crashed + s.timeout, s.unsupported + s.xfail,
      report.seconds);
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" "
      "skipped=\"{}\" time=\"{:.3f}\">\n",
      xml_escape(fmt::format("{} ({})", report.device, report.plugin)), s.total(),
      s.failed + s.xpass + s.blocked, s.crashed + s.timeout, s.unsupported + s.xfail,
      report.seconds);
  out += fmt::format(
      "    <properties><property name=\"seed\" value=\"{}\"/><property "
      "name=\"suite\" value=\"{}\"/></properties>\n",
      report.seed, xml_escape(report.suite));
  for (const CaseResult& c : report.cases) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.4f}\"",
                       xml_escape(c.op), xml_escape(c.id), c.seconds);
    const std::string detail =
        xml_escape(c.message + (c.repro.empty() ? "" : "\nrepro: " + c.repro));
    switch (c.status) {
      case CaseStatus::Passed:
        out += "/>\n";
        break;
      case CaseStatus::Failed:
      case CaseStatus::Xpass:
      case CaseStatus::Blocked:
        out += fmt::format(
            ">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    "
            "</testcase>\n",
            to_string(c.status), xml_escape(c.message), detail);
        break;
      case CaseStatus::Crashed:
      case CaseStatus::Timeout:
        out += fmt::format(
            ">\n      <error type=\"{}\" message=\"{}\">{}</error>\n    "
            "</testcase>\n",
            to_string(c.status), xml_escape(c.message), detail);
        break;
      case CaseStatus::Unsupported:
      case CaseStatus::Xfail:
        out += fmt::format(">\n      <skipped message=\"{}: {}\"/>\n    </testcase>\n",
                           to_string(c.status),
                           xml_escape(c.expectation.empty() ? c.message : c.expectation));
        break;
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

namespace {
// "host CPU: AMD EPYC; cpu:0 attributes: isa=avx2 highway=AVX2" and `end`, or "" when
// the report has neither (reports of older versions).
std::string where_it_ran(const Report& report, const char* end) {
  std::string out;
  if (!report.host_cpu.empty()) out += "host CPU: " + report.host_cpu;
  if (!report.device_attributes.empty())
    out += (out.empty() ? "" : "; ") + report.device + " attributes: " + report.device_attributes;
  return out.empty() ? out : out + end;
}
}  // namespace

std::string to_markdown(const Report& report) {
  const Summary s = report.summary();
  std::string out = fmt::format("# Conformance: {} ({})\n\n", report.device, report.plugin);
  out += fmt::format("Device **{}**, suite **{}**, seed **{}**{}, {:.1f} s.\n\n",
                     md_escape(report.device_name), report.suite, report.seed,
                     report.shard.empty() ? "" : ", shard " + report.shard, report.seconds);
  out += where_it_ran(report, "\n\n");
  out +=
      "| passed | failed | crashed | timeout | xpass | xfail | blocked | unsupported | ops "
      "claimed | ops compared |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n\n", s.passed, s.failed,
                     s.crashed, s.timeout, s.xpass, s.xfail, s.blocked, s.unsupported,
                     s.ops_claimed, s.ops_compared);
  out += fmt::format(
      "Coverage: primitives with a native kernel **{:.0f}%**, composites that run "
      "**{:.0f}%**.\n\n",
      100.0 * report.primitive_coverage(), 100.0 * report.composite_coverage());

  const Matrix m = build_matrix(report);
  std::map<std::string, std::string> impl;
  for (const OpCoverage& op : report.ops) impl[op.op] = op.implementation;
  out += "| op | kernel |";
  for (const std::string& d : m.dtypes) out += fmt::format(" {} |", d);
  out += "\n| --- | --- |";
  for (size_t i = 0; i < m.dtypes.size(); ++i) out += " --- |";
  out += "\n";
  for (const std::string& op : m.ops) {
    out += fmt::format("| `{}` | {} |", op, impl.count(op) ? impl[op] : "");
    for (const std::string& d : m.dtypes) {
      auto it = m.cells.find({op, d});
      out += fmt::format(" {} |", it == m.cells.end() ? "" : cell_text(it->second));
    }
    out += "\n";
  }
  out +=
      "\n`ok` all passed · `p/n` p of n passed, the rest unsupported · `-` unsupported · `x` "
      "expected failure · `nF` failed · `nC` crashed "
      "· `nT` timed out · `nP` passed unexpectedly · `nB` blocked (a helper op it needs has no "
      "kernel)\n";

  bool header = false;
  for (const CaseResult& c : report.cases) {
    if (!is_failure(c.status)) continue;
    if (!header) {
      out += "\n## Failures\n\n";
      header = true;
    }
    out += fmt::format("- `{}` **{}**: {}\n  ```\n  {}\n  ```\n", c.id, to_string(c.status),
                       md_escape(c.message), c.repro);
  }
  return out;
}

std::string terminal_matrix(const Report& report, bool color) {
  const Matrix m = build_matrix(report);
  std::string ran = where_it_ran(report, "\n");
  size_t op_width = 2;
  for (const std::string& op : m.ops) op_width = std::max(op_width, op.size());
  const char* red = color ? "\033[31m" : "";
  const char* green = color ? "\033[32m" : "";
  const char* dim = color ? "\033[2m" : "";
  const char* reset = color ? "\033[0m" : "";
  std::string out = fmt::format("{:<{}}", "op", op_width);
  for (const std::string& d : m.dtypes) out += fmt::format(" {:>5}", d);
  out += "\n";
  for (const std::string& op : m.ops) {
    out += fmt::format("{:<{}}", op, op_width);
    for (const std::string& d : m.dtypes) {
      auto it = m.cells.find({op, d});
      const std::string text = it == m.cells.end() ? "" : cell_text(it->second);
      const char* c = text == "ok"                                   ? green
                      : (text == "-" || text == "x" || text.empty()) ? dim
                                                                     : red;
      out += fmt::format(" {}{:>5}{}", c, text, text.empty() ? "" : reset);
    }
    out += "\n";
  }
  const Summary s = report.summary();
  out += fmt::format("\n{}{}{}\n", s.failures() ? red : green, summary_line(s), reset);
  out += fmt::format("coverage: primitives {:.0f}% native, composites {:.0f}% run\n",
                     100.0 * report.primitive_coverage(), 100.0 * report.composite_coverage());
  return out + ran;
}

}  // namespace bp::conformance
