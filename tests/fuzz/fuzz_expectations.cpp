// libFuzzer target: a vendor's conformance expectations file,
// bp::conformance::Expectations::parse (conformance/src/expectations.cpp: TOML through
// toml++, then the case-id globs), and matching case ids against what it parsed.
//
// Input: the file text, optionally followed by a NUL byte and case ids, one a line, to
// match besides a fixed set of real ids. A bp::Error is the expected answer to a bad file
// or a bad case id. A bug is anything else: a crash, a sanitizer report, a hang, another
// exception type (a toml::parse_error escaping, say), or a parsed file that breaks its
// contract: every rule's glob is valid, and match() returns the first matching rule
// (unsupported rules before xfail ones) or None when no rule matches.
#include <backplane/conformance/expectations.hpp>
#include <backplane/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"

using bp::conformance::ExpectationKind;
using bp::conformance::Expectations;

namespace {

// Case ids as the generators write them (op/dtype/sample).
constexpr std::string_view kIds[] = {
    "add.Tensor/f32/broadcast_3x1_1x4", "matmul/f16/square_4x4", "softmax.int/bf16/dim_-1",
    "sum.dim_IntList/i64/empty_0x3",    "copy_/bool/transposed", "where.self/u8/scalar_0d",
};

void check_match(const Expectations& e, std::string_view id) {
  bp::conformance::Expectation got;
  try {
    got = e.match(id);
  } catch (const bp::Error&) {
    return;  // not a valid case id
  }
  const Expectations::Rule* first = nullptr;
  for (const Expectations::Rule& r : e.rules()) {
    if (bp::conformance::glob_match(r.glob, id)) {
      first = &r;
      break;
    }
  }
  const std::string what = "case id '" + std::string(id) + "'";
  if (!first) {
    FUZZ_CHECK(got.kind == ExpectationKind::None, what + " matched though no rule matches it");
    return;
  }
  FUZZ_CHECK(got.kind == first->kind && got.glob == first->glob && got.line == first->line,
             what + " did not match the first matching rule '" + first->glob + "'");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string_view text = input.substr(0, nul);
  Expectations e;
  try {
    e = Expectations::parse(text, "vendor.toml");
  } catch (const bp::Error&) {
    return 0;
  }
  bool xfail_seen = false;
  for (const Expectations::Rule& r : e.rules()) {
    FUZZ_CHECK(!bp::conformance::glob_error(r.glob), "a parsed rule has a bad glob: " + r.glob);
    FUZZ_CHECK(r.kind == ExpectationKind::Unsupported || r.kind == ExpectationKind::Xfail,
               "a rule of kind none");
    // rules() keeps unsupported rules first.
    if (r.kind == ExpectationKind::Xfail) xfail_seen = true;
    FUZZ_CHECK(!(xfail_seen && r.kind == ExpectationKind::Unsupported),
               "an unsupported rule after an xfail rule");
  }
  for (std::string_view id : kIds) check_match(e, id);
  if (nul != std::string_view::npos) {
    std::string_view ids = input.substr(nul + 1);
    while (!ids.empty()) {
      const size_t end = ids.find('\n');
      check_match(e, ids.substr(0, end));
      if (end == std::string_view::npos) break;
      ids.remove_prefix(end + 1);
    }
  }
  return 0;
}
