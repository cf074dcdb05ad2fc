// Expectations files: TOML parsing with toml++ (every error names file, line and key),
// case-id globs, matching (unsupported before xfail) and the classification of outcomes.
#include "backplane/conformance/expectations.hpp"

#include "toml_text.hpp"

#include <backplane/core/error.hpp>

#include <toml++/toml.h>

#include <cmath>
#include <fstream>
#include <sstream>

namespace bp::conformance {
namespace {

std::string_view type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    case toml::node_type::none:
      break;
  }
  return "nothing";
}

// Reads the entries of one file into rules; every error is thrown as "file:line: what".
class Reader {
 public:
  explicit Reader(std::string_view file) : file_(file) {}

  [[noreturn]] void fail(const toml::source_region& where, std::string_view what) const {
    BP_FAIL(ErrorCode::Parse, "{}:{}: {}", file_, where.begin.line, what);
  }

  // One [[section]] entry: `cases` (a glob or a non-empty list of globs) and `reason`; a
  // [[nondeterministic]] entry also `atol` and optionally `rtol`.
  void read_entry(ExpectationKind kind, std::string_view section, const toml::table& entry,
                  std::vector<Expectations::Rule>& out) const {
    const toml::node* cases = nullptr;
    const toml::node* reason = nullptr;
    Expectations::Rule rule{kind, "", "", file_, 0, 0.0, 0.0};
    bool has_atol = false;
    const bool tolerant = kind == ExpectationKind::Nondeterministic;
    for (auto&& [key, value] : entry) {
      if (key.str() == "cases") {
        cases = &value;
      } else if (key.str() == "reason") {
        reason = &value;
      } else if (tolerant && (key.str() == "atol" || key.str() == "rtol")) {
        (key.str() == "atol" ? rule.atol : rule.rtol) = tolerance(section, key.str(), value);
        has_atol = has_atol || key.str() == "atol";
      } else {
        fail(key.source(), fmt::format("[[{}]]: unknown key '{}' (expected {})", section, key.str(),
                                       tolerant ? "'cases', 'reason', 'atol' and 'rtol'"
                                                : "'cases' and 'reason'"));
      }
    }
    if (cases == nullptr) fail(entry.source(), fmt::format("[[{}]]: missing 'cases'", section));
    if (reason == nullptr) fail(entry.source(), fmt::format("[[{}]]: missing 'reason'", section));
    if (tolerant && !has_atol)
      fail(entry.source(), fmt::format("[[{}]]: missing 'atol' (the largest difference allowed "
                                       "between two runs; 0 for bitwise)",
                                       section));
    if (!reason->is_string()) {
      fail(reason->source(), fmt::format("[[{}]]: 'reason' must be a string, not {}", section,
                                         type_name(reason->type())));
    }
    rule.reason = reason->as_string()->get();
    // A reason is what the report shows next to every matching case; blank says nothing.
    if (rule.reason.find_first_not_of(" \t\r\n") == std::string::npos) {
      fail(reason->source(), fmt::format("[[{}]]: 'reason' is empty", section));
    }
    read_globs(section, *cases, rule, out);
  }

  // A tolerance of a [[nondeterministic]] entry: a finite number >= 0.
  double tolerance(std::string_view section, std::string_view key, const toml::node& value) const {
    const std::optional<double> v = value.value<double>();
    if (!v || !std::isfinite(*v) || *v < 0)
      fail(value.source(),
           fmt::format("[[{}]]: '{}' must be a number >= 0, not {}", section, key,
                       value.is_number() ? "a negative one" : type_name(value.type())));
    return *v;
  }

  // `cases`: one glob or a non-empty list; one rule per glob, at the glob's line.
  void read_globs(std::string_view section, const toml::node& cases, Expectations::Rule rule,
                  std::vector<Expectations::Rule>& out) const {
    std::vector<const toml::node*> globs;
    if (cases.is_string()) {
      globs.push_back(&cases);
    } else if (const toml::array* list = cases.as_array()) {
      if (list->empty()) fail(cases.source(), fmt::format("[[{}]]: 'cases' is empty", section));
      for (const toml::node& item : *list) globs.push_back(&item);
    } else {
      fail(cases.source(),
           fmt::format("[[{}]]: 'cases' must be a string or an array of strings, not {}", section,
                       type_name(cases.type())));
    }
    for (const toml::node* glob : globs) {
      if (!glob->is_string()) {
        fail(glob->source(), fmt::format("[[{}]]: 'cases' must hold strings, not {}", section,
                                         type_name(glob->type())));
      }
      const std::string& text = glob->as_string()->get();
      if (auto error = glob_error(text)) {
        fail(glob->source(),
             fmt::format("[[{}]]: 'cases': bad glob '{}': {}", section, text, *error));
      }
      rule.glob = text;
      rule.line = static_cast<int>(glob->source().begin.line);
      out.push_back(rule);
    }
  }

  std::vector<Expectations::Rule> read(const toml::table& root) const {
    std::vector<Expectations::Rule> unsupported, xfail, nondeterministic;
    for (auto&& [key, value] : root) {
      const std::string_view section = key.str();
      ExpectationKind kind = ExpectationKind::None;
      if (section == "unsupported") kind = ExpectationKind::Unsupported;
      if (section == "xfail") kind = ExpectationKind::Xfail;
      if (section == "nondeterministic") kind = ExpectationKind::Nondeterministic;
      if (kind == ExpectationKind::None) {
        fail(key.source(), fmt::format("unknown section '{}' (expected [[unsupported]], [[xfail]] "
                                       "or [[nondeterministic]])",
                                       section));
      }
      const toml::array* entries = value.as_array();
      bool all_tables = entries != nullptr;
      if (entries != nullptr) {
        for (const toml::node& entry : *entries) all_tables = all_tables && entry.is_table();
      }
      if (!all_tables) {
        fail(key.source(), fmt::format("'{}' must be an array of tables: write [[{}]], not {}",
                                       section, section, type_name(value.type())));
      }
      for (const toml::node& entry : *entries) {
        read_entry(kind, section, *entry.as_table(),
                   kind == ExpectationKind::Unsupported ? unsupported
                   : kind == ExpectationKind::Xfail     ? xfail
                                                        : nondeterministic);
      }
    }
    // Matching takes the first rule that matches, so unsupported rules go first; the
    // nondeterministic ones are matched on their own (nondeterminism()).
    unsupported.insert(unsupported.end(), xfail.begin(), xfail.end());
    unsupported.insert(unsupported.end(), nondeterministic.begin(), nondeterministic.end());
    return unsupported;
  }

 private:
  std::string file_;
};

// Length of the bracket expression starting at glob[pos] == '[' (through the ']'), or the
// reason it is invalid. Sets hold id characters and ranges a-z; a leading '!' negates.
std::optional<std::string> bracket_error(std::string_view glob, size_t pos, bool op_part,
                                         size_t& length) {
  size_t i = pos + 1;
  if (i < glob.size() && glob[i] == '!') ++i;
  const size_t first = i;
  while (i < glob.size() && glob[i] != ']') {
    const char c = glob[i];
    if (!is_case_id_char(c, op_part)) {
      return fmt::format("'{}' at position {} is not allowed in a [...] set", c, i);
    }
    if (i + 2 < glob.size() && glob[i + 1] == '-' && glob[i + 2] != ']') {
      const char hi = glob[i + 2];
      if (!is_case_id_char(hi, op_part)) {
        return fmt::format("'{}' at position {} is not allowed in a [...] set", hi, i + 2);
      }
      if (hi < c) return fmt::format("range '{}-{}' at position {} is reversed", c, hi, i);
      i += 3;
    } else {
      ++i;
    }
  }
  if (i >= glob.size()) return fmt::format("'[' at position {} is not closed", pos);
  if (i == first) return fmt::format("empty set at position {}", pos);
  length = i + 1 - pos;
  return std::nullopt;
}

// Does the one-character pattern at pat[p] ('?', a [...] set or a literal) match c?
// Advances p past it. The pattern is valid (checked by glob_error).
bool match_one(std::string_view pat, size_t& p, char c) {
  if (pat[p] == '?') {
    ++p;
    return true;
  }
  if (pat[p] != '[') return pat[p++] == c;
  size_t i = p + 1;
  const bool negate = pat[i] == '!';
  if (negate) ++i;
  bool hit = false;
  while (pat[i] != ']') {
    if (pat[i + 1] == '-' && pat[i + 2] != ']') {
      hit = hit || (c >= pat[i] && c <= pat[i + 2]);
      i += 3;
    } else {
      hit = hit || c == pat[i];
      ++i;
    }
  }
  p = i + 1;
  return hit != negate;
}

// Matches one part of a glob against one part of an id; '*' backtracks to the last star.
bool match_part(std::string_view pat, std::string_view text) {
  size_t p = 0, t = 0;
  size_t star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pat.size() && pat[p] == '*') {
      star = p++;
      mark = t;
      continue;
    }
    size_t next = p;
    if (p < pat.size() && match_one(pat, next, text[t])) {
      p = next;
      ++t;
      continue;
    }
    if (star == std::string_view::npos) return false;
    p = star + 1;
    t = ++mark;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

// Splits at '/' (no limit on the count; callers check it).
std::vector<std::string_view> split(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t slash; (slash = text.find('/', start)) != std::string_view::npos; start = slash + 1) {
    parts.push_back(text.substr(start, slash - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

}  // namespace

std::string Expectation::where() const {
  return fmt::format("{}:{}", file, line);
}

Outcome classify(bool passed, const Expectation& expectation) {
  switch (expectation.kind) {
    case ExpectationKind::Unsupported:
      return Outcome::Unsupported;
    case ExpectationKind::Xfail:
      return passed ? Outcome::Xpass : Outcome::Xfail;
    case ExpectationKind::None:
    case ExpectationKind::Nondeterministic:  // never a case's verdict (match() skips it)
      break;
  }
  return passed ? Outcome::Passed : Outcome::Failed;
}

bool is_failure(Outcome outcome) {
  return outcome == Outcome::Failed || outcome == Outcome::Xpass;
}

std::string_view to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::Passed:
      return "passed";
    case Outcome::Failed:
      return "failed";
    case Outcome::Unsupported:
      return "unsupported";
    case Outcome::Xfail:
      return "xfail";
    case Outcome::Xpass:
      return "xpass";
  }
  return "?";
}

std::string_view to_string(ExpectationKind kind) {
  switch (kind) {
    case ExpectationKind::None:
      return "none";
    case ExpectationKind::Unsupported:
      return "unsupported";
    case ExpectationKind::Xfail:
      return "xfail";
    case ExpectationKind::Nondeterministic:
      return "nondeterministic";
  }
  return "?";
}

std::optional<std::string> glob_error(std::string_view glob) {
  const std::vector<std::string_view> parts = split(glob);
  // Three parts always: a glob like "matmul/*" would silently match nothing, since '*' never
  // crosses a '/'; saying so here saves a vendor a confusing FAILED.
  if (parts.size() != 3) {
    return fmt::format("expected op/dtype/sample (three parts separated by '/'), found {}",
                       parts.size());
  }
  size_t offset = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const std::string_view part = parts[k];
    const bool op_part = k == 0;
    if (part.empty()) return fmt::format("empty part at position {}", offset);
    for (size_t i = 0; i < part.size(); ++i) {
      const char c = part[i];
      if (c == '[') {
        size_t length = 0;
        if (auto error = bracket_error(part, i, op_part, length)) {
          return fmt::format("{} (in part '{}')", *error, part);
        }
        i += length - 1;
      } else if (!is_case_id_char(c, op_part) && c != '*' && c != '?') {
        return fmt::format("'{}' at position {} is not allowed ({} * ? [...] only)", c, offset + i,
                           op_part ? "a-z A-Z 0-9 _ ." : "a-z 0-9 _ .");
      }
    }
    offset += part.size() + 1;
  }
  return std::nullopt;
}

bool glob_match(std::string_view glob, std::string_view case_id) {
  // The matcher below reads sets without bounds checks, so it only sees valid globs.
  if (glob_error(glob)) return false;
  const std::vector<std::string_view> pat = split(glob);
  const std::vector<std::string_view> id = split(case_id);
  if (pat.size() != id.size()) return false;
  for (size_t k = 0; k < pat.size(); ++k) {
    if (!match_part(pat[k], id[k])) return false;
  }
  return true;
}

Expectations Expectations::load(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  BP_CHECK(in.good(), ErrorCode::InvalidArgument, "expectations file '{}' cannot be read",
           path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path.string());
}

Expectations Expectations::parse(std::string_view text, std::string_view source_name) {
  const toml::table root = parse_toml_text(text, source_name);
  Expectations result;
  result.rules_ = Reader(source_name).read(root);
  return result;
}

Expectation Expectations::match(std::string_view case_id) const {
  return match(CaseId::parse(case_id));
}

Expectation Expectations::match(const CaseId& case_id) const {
  const std::string id = case_id.str();
  for (const Rule& rule : rules_) {
    if (rule.kind == ExpectationKind::Nondeterministic) continue;
    if (glob_match(rule.glob, id)) return {rule.kind, rule.reason, rule.glob, rule.file, rule.line};
  }
  return {};
}

std::optional<Expectations::Rule> Expectations::nondeterminism(const CaseId& case_id) const {
  const std::string id = case_id.str();
  for (const Rule& rule : rules_)
    if (rule.kind == ExpectationKind::Nondeterministic && glob_match(rule.glob, id)) return rule;
  return std::nullopt;
}

}  // namespace bp::conformance
