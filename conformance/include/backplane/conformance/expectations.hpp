// The expectations file a vendor keeps next to a plugin (TOML): which cases are permanently
// `unsupported` (not run at all) and which are known failures, `xfail` (run; a pass is XPASS).
//
//   [[unsupported]]
//   cases = "matmul/f16/*"            # one glob, or a list of globs, over case ids
//   reason = "no f16 GEMM on this device"
//   [[xfail]]
//   cases = ["softmax.int/bf16/*"]
//   reason = "rounding bug, ticket ACME-123"
//   [[nondeterministic]]
//   cases = "index_add/f32/*"
//   reason = "float atomics: the order of the additions varies"
//   atol = 1e-5                       # the largest |difference| between two runs
//   rtol = 0.0                        # optional, relative to the first run's value
//
// Globs have the three parts of a case id (op/dtype/sample, see case_id.hpp) and match part by
// part: `*` is any run of characters within a part (never a '/'), `?` one character, `[abc]`,
// `[a-z]` and `[!abc]` one character of (or not of) a set. Anything else is a literal and must
// be a character an id part may hold (A-Z only in the op part); a bad glob is a parse error.
// When several entries match a case, `unsupported` wins over `xfail` (a case that is not run
// cannot fail), and within one kind the first entry in the file wins. [[nondeterministic]]
// entries are separate: they declare the ops allowed to give other bits from one run to the
// next (`conformance --determinism`), with how far apart two runs may be.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backplane/conformance/case_id.hpp"

namespace bp::conformance {

enum class ExpectationKind { None, Unsupported, Xfail, Nondeterministic };

// What the file says about one case; kind None (and empty strings) when nothing matched.
struct Expectation {
  ExpectationKind kind = ExpectationKind::None;
  std::string reason;  // the entry's reason
  std::string glob;    // the glob that matched
  std::string file;    // where the glob is written: file name and 1-based line
  int line = 0;

  std::string where() const;  // "file:line", for reports
};

// The result of one case after the expectations are applied. Passed/Failed: no entry.
// Unsupported: the case was not run. Xfail: failed as expected. Xpass: an xfail case that
// passed, which counts as a failure of the run (the entry is stale and should be removed).
enum class Outcome { Passed, Failed, Unsupported, Xfail, Xpass };

// Classifies a case; `passed` is ignored for an unsupported case, which the runner must not
// run at all (its kernel may crash or hang, and the vendor said so).
Outcome classify(bool passed, const Expectation& expectation);
// True for the outcomes that make a run fail (exit status non-zero): Failed and Xpass.
bool is_failure(Outcome outcome);
std::string_view to_string(Outcome outcome);       // "passed", "failed", ... as in reports
std::string_view to_string(ExpectationKind kind);  // "none", "unsupported", "xfail"

// Returns why `glob` is not a valid case-id glob, or nothing when it is.
std::optional<std::string> glob_error(std::string_view glob);
// True when `glob` matches the case id `case_id` (both op/dtype/sample); an invalid glob
// matches nothing.
bool glob_match(std::string_view glob, std::string_view case_id);

class Expectations {
 public:
  // One glob of one entry, in file order.
  struct Rule {
    ExpectationKind kind;
    std::string glob;
    std::string reason;
    std::string file;
    int line;
    double atol = 0.0, rtol = 0.0;  // [[nondeterministic]] only
  };

  Expectations() = default;  // no entries: every case is expected to pass

  // Reads and parses a file; throws bp::Error (InvalidArgument when it cannot be read, Parse
  // for its content) with "file:line: " in front of the message.
  static Expectations load(const std::filesystem::path& path);
  // Parses `text`; `source_name` stands for the file name in messages.
  static Expectations parse(std::string_view text, std::string_view source_name);

  // The expectation for `case_id` (a valid id; throws bp::Error Parse otherwise).
  Expectation match(std::string_view case_id) const;
  Expectation match(const CaseId& case_id) const;
  // The first [[nondeterministic]] rule matching `case_id`, if any.
  std::optional<Rule> nondeterminism(const CaseId& case_id) const;

  const std::vector<Rule>& rules() const { return rules_; }

 private:
  std::vector<Rule> rules_;  // unsupported rules first, then xfail, each in file order
};

}  // namespace bp::conformance
