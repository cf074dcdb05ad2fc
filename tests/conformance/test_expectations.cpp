// Expectations files (conformance/src/expectations.cpp): globs, matching order, outcome
// classification, and every error path with its exact "file:line: " message.
#include <backplane/conformance/expectations.hpp>
#include <backplane/core/error.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

using bp::conformance::classify;
using bp::conformance::Expectation;
using bp::conformance::ExpectationKind;
using bp::conformance::Expectations;
using bp::conformance::glob_error;
using bp::conformance::glob_match;
using bp::conformance::is_failure;
using bp::conformance::Outcome;

namespace {

// The message of the bp::Error that parsing `text` (as "vendor.toml") throws.
std::string parse_error(const std::string& text) {
  try {
    Expectations::parse(text, "vendor.toml");
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::Parse);
    return e.what();
  }
  FAIL("no bp::Error thrown for:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("expectations: glob syntax") {
  CHECK_FALSE(glob_error("matmul/f16/*"));
  CHECK_FALSE(glob_error("*/*/*"));
  CHECK_FALSE(glob_error("add.Tensor/f[13][26]/x?_[!a-c]*"));
  CHECK_FALSE(glob_error("add/[a-z0-9_.]/x"));
  CHECK(glob_error("matmul/*").value() ==
        "expected op/dtype/sample (three parts separated by '/'), found 2");
  CHECK(glob_error("*").value() ==
        "expected op/dtype/sample (three parts separated by '/'), found 1");
  CHECK(glob_error("a/b/c/d").value() ==
        "expected op/dtype/sample (three parts separated by '/'), found 4");
  CHECK(glob_error("add//x").value() == "empty part at position 4");
  CHECK(glob_error("add/F32/x").value() ==
        "'F' at position 4 is not allowed (a-z 0-9 _ . * ? [...] only)");
  CHECK(glob_error("ad d/f32/x").value() ==
        "' ' at position 2 is not allowed (a-z A-Z 0-9 _ . * ? [...] only)");
  CHECK(glob_error("add/f32/x]").value() ==
        "']' at position 9 is not allowed (a-z 0-9 _ . * ? [...] only)");
  CHECK(glob_error("add/f[13/x").value() == "'[' at position 1 is not closed (in part 'f[13')");
  CHECK(glob_error("add/f[]/x").value() == "empty set at position 1 (in part 'f[]')");
  CHECK(glob_error("add/f[!]/x").value() == "empty set at position 1 (in part 'f[!]')");
  CHECK(glob_error("add/f[z-a]/x").value() ==
        "range 'z-a' at position 2 is reversed (in part 'f[z-a]')");
  // A '-' that is not between two characters would be a literal, but ids never hold one.
  CHECK(glob_error("add/x/[a-]").value() ==
        "'-' at position 2 is not allowed in a [...] set (in part '[a-]')");
  CHECK(glob_error("add/f[A]/x").value() ==
        "'A' at position 2 is not allowed in a [...] set (in part 'f[A]')");
}

TEST_CASE("expectations: glob matching") {
  CHECK(glob_match("matmul/f16/*", "matmul/f16/square_4x4"));
  CHECK_FALSE(glob_match("matmul/f16/*", "matmul/f32/square_4x4"));
  CHECK_FALSE(glob_match("matmul/f16/*", "matmul.out/f16/x"));
  // '*' may match nothing, and never crosses '/'.
  CHECK(glob_match("add*/f32/*", "add/f32/x"));
  CHECK(glob_match("add*/f32/*", "add.Tensor/f32/x"));
  CHECK(glob_match("*/*/*", "a/b/c"));
  CHECK_FALSE(glob_match("*", "a/b/c"));
  // Backtracking: the first '*' must give back what the tail needs.
  CHECK(glob_match("a/b/*_nan_*nan", "a/b/x_nan_y_nan_nan"));
  CHECK_FALSE(glob_match("a/b/*_nan_*nan", "a/b/x_nan_y_na"));
  CHECK(glob_match("a/b/**x", "a/b/x"));
  // '?' is exactly one character ("?" "?" is split so it is not read as a trigraph).
  CHECK(
      glob_match("a/f?"
                 "?/x",
                 "a/f32/x"));
  CHECK_FALSE(
      glob_match("a/f?"
                 "?/x",
                 "a/f8/x"));
  CHECK_FALSE(
      glob_match("a/f?"
                 "?/x",
                 "a/bf16/x"));
  // Sets, ranges and negation.
  CHECK(glob_match("a/[bf]f16/x", "a/bf16/x"));
  CHECK(glob_match("a/f[0-9][0-9]/x", "a/f64/x"));
  CHECK_FALSE(glob_match("a/f[0-9][0-9]/x", "a/f8/x"));
  CHECK(glob_match("a/[!f]*/x", "a/i64/x"));
  CHECK_FALSE(glob_match("a/[!f]*/x", "a/f64/x"));
  CHECK(glob_match("a/[!a-e]16/x", "a/f16/x"));
  CHECK_FALSE(glob_match("a/[!a-e]16/x", "a/b16/x"));
  CHECK(glob_match("a/x/[a.]", "a/x/."));
  // Literals are case-sensitive and '.' is not special.
  CHECK_FALSE(glob_match("add.tensor/f32/x", "add.Tensor/f32/x"));
  CHECK_FALSE(glob_match("add.Tensor/f32/x", "addxTensor/f32/x"));
  // An invalid glob matches nothing, not even what its valid prefix would.
  CHECK_FALSE(glob_match("a/b/[x", "a/b/[x"));
  CHECK_FALSE(glob_match("a/b/x[", "a/b/x"));
}

TEST_CASE("expectations: matching order and sources") {
  const std::string text =
      "# vendor expectations\n"                // line 1
      "[[xfail]]\n"                            // line 2
      "cases = [\"softmax.int/bf16/*\",\n"     // line 3
      "         \"matmul/f16/big_*\"]\n"       // line 4
      "reason = \"rounding bug, ACME-123\"\n"  // line 5
      "\n"                                     // line 6
      "[[unsupported]]\n"                      // line 7
      "cases = \"matmul/f16/*\"\n"             // line 8
      "reason = \"no f16 GEMM\"\n"             // line 9
      "[[unsupported]]\n"                      // line 10
      "cases = \"matmul/*/*\"\n"               // line 11
      "reason = \"second entry\"\n";           // line 12
  const Expectations e = Expectations::parse(text, "vendor.toml");
  REQUIRE(e.rules().size() == 4);

  // Unsupported wins over an xfail that also matches, even though the xfail comes first.
  const Expectation big = e.match("matmul/f16/big_512");
  CHECK(big.kind == ExpectationKind::Unsupported);
  CHECK(big.reason == "no f16 GEMM");
  CHECK(big.glob == "matmul/f16/*");
  CHECK(big.where() == "vendor.toml:8");

  // Within one kind, the first entry in the file wins.
  const Expectation f32 = e.match("matmul/f32/square");
  CHECK(f32.kind == ExpectationKind::Unsupported);
  CHECK(f32.reason == "second entry");
  CHECK(f32.where() == "vendor.toml:11");

  const Expectation soft = e.match("softmax.int/bf16/dim_1");
  CHECK(soft.kind == ExpectationKind::Xfail);
  CHECK(soft.reason == "rounding bug, ACME-123");
  CHECK(soft.glob == "softmax.int/bf16/*");
  CHECK(soft.file == "vendor.toml");
  CHECK(soft.line == 3);

  const Expectation none = e.match("softmax.int/f32/dim_1");
  CHECK(none.kind == ExpectationKind::None);
  CHECK(none.reason.empty());
  CHECK(none.glob.empty());

  // Bad ids are a caller bug, not a silent "no match".
  CHECK_THROWS_AS(e.match("softmax/f32"), bp::Error);
}

TEST_CASE("expectations: an empty file and empty sections expect every case to pass") {
  CHECK(Expectations::parse("", "e.toml").rules().empty());
  CHECK(Expectations::parse("# nothing yet\n", "e.toml").match("a/f32/x").kind ==
        ExpectationKind::None);
  CHECK(Expectations::parse("xfail = []\n", "e.toml").rules().empty());
  CHECK(Expectations().match("a/f32/x").kind == ExpectationKind::None);
}

TEST_CASE("expectations: outcomes") {
  const Expectation none;
  Expectation unsupported;
  unsupported.kind = ExpectationKind::Unsupported;
  Expectation xfail;
  xfail.kind = ExpectationKind::Xfail;

  CHECK(classify(true, none) == Outcome::Passed);
  CHECK(classify(false, none) == Outcome::Failed);
  CHECK(classify(true, xfail) == Outcome::Xpass);
  CHECK(classify(false, xfail) == Outcome::Xfail);
  CHECK(classify(true, unsupported) == Outcome::Unsupported);
  CHECK(classify(false, unsupported) == Outcome::Unsupported);

  CHECK_FALSE(is_failure(Outcome::Passed));
  CHECK(is_failure(Outcome::Failed));
  CHECK(is_failure(Outcome::Xpass));
  CHECK_FALSE(is_failure(Outcome::Xfail));
  CHECK_FALSE(is_failure(Outcome::Unsupported));

  CHECK(to_string(Outcome::Passed) == "passed");
  CHECK(to_string(Outcome::Failed) == "failed");
  CHECK(to_string(Outcome::Unsupported) == "unsupported");
  CHECK(to_string(Outcome::Xfail) == "xfail");
  CHECK(to_string(Outcome::Xpass) == "xpass");
  CHECK(to_string(ExpectationKind::None) == "none");
  CHECK(to_string(ExpectationKind::Unsupported) == "unsupported");
  CHECK(to_string(ExpectationKind::Xfail) == "xfail");
}

TEST_CASE("expectations: errors name file, line and key") {
  CHECK(parse_error("[[xfail]]\ncases = \"a/b/*\"\nreason = \"r\"\nticket = 3\n") ==
        "vendor.toml:4: [[xfail]]: unknown key 'ticket' (expected 'cases' and 'reason')");
  CHECK(parse_error("[[unsupported]]\ncases = \"a/b/*\"\n") ==
        "vendor.toml:1: [[unsupported]]: missing 'reason'");
  CHECK(parse_error("\n[[xfail]]\nreason = \"r\"\n") ==
        "vendor.toml:2: [[xfail]]: missing 'cases'");
  CHECK(parse_error("[[xfail]]\ncases = \"a/b/*\"\nreason = \"  \"\n") ==
        "vendor.toml:3: [[xfail]]: 'reason' is empty");
  CHECK(parse_error("[[xfail]]\ncases = \"a/b/*\"\nreason = \"\"\n") ==
        "vendor.toml:3: [[xfail]]: 'reason' is empty");
  CHECK(parse_error("[[xfail]]\ncases = \"a/b/*\"\nreason = 7\n") ==
        "vendor.toml:3: [[xfail]]: 'reason' must be a string, not an integer");
  CHECK(parse_error("[[xfail]]\ncases = 1.5\nreason = \"r\"\n") ==
        "vendor.toml:2: [[xfail]]: 'cases' must be a string or an array of strings, not a float");
  CHECK(parse_error("[[xfail]]\ncases = []\nreason = \"r\"\n") ==
        "vendor.toml:2: [[xfail]]: 'cases' is empty");
  CHECK(parse_error("[[xfail]]\ncases = [\"a/b/*\",\n  true]\nreason = \"r\"\n") ==
        "vendor.toml:3: [[xfail]]: 'cases' must hold strings, not a boolean");
  CHECK(parse_error("[[xfail]]\ncases = [\"a/b/*\",\n\n  \"matmul/*\"]\nreason = \"r\"\n") ==
        "vendor.toml:4: [[xfail]]: 'cases': bad glob 'matmul/*': expected op/dtype/sample "
        "(three parts separated by '/'), found 2");
  CHECK(parse_error("[[xfail]]\ncases = \"a/b[/c\"\nreason = \"r\"\n") ==
        "vendor.toml:2: [[xfail]]: 'cases': bad glob 'a/b[/c': '[' at position 1 is not closed "
        "(in part 'b[')");
}

TEST_CASE("expectations: errors in sections") {
  CHECK(parse_error("[[xfial]]\ncases = \"a/b/*\"\nreason = \"r\"\n") ==
        "vendor.toml:1: unknown section 'xfial' (expected [[unsupported]], [[xfail]] or "
        "[[nondeterministic]])");
  CHECK(parse_error("\nreason = \"r\"\n") ==
        "vendor.toml:2: unknown section 'reason' (expected [[unsupported]], [[xfail]] or "
        "[[nondeterministic]])");
  CHECK(parse_error("# one table, not an array of tables\n[xfail]\ncases = \"a/b/*\"\n"
                    "reason = \"r\"\n") ==
        "vendor.toml:2: 'xfail' must be an array of tables: write [[xfail]], not a table");
  CHECK(parse_error("unsupported = \"a/b/*\"\n") ==
        "vendor.toml:1: 'unsupported' must be an array of tables: write [[unsupported]], not a "
        "string");
  CHECK(parse_error("unsupported = [\"a/b/*\"]\n") ==
        "vendor.toml:1: 'unsupported' must be an array of tables: write [[unsupported]], not an "
        "array");
}

TEST_CASE("expectations: TOML syntax errors keep the line") {
  const std::string message = parse_error("[[xfail]]\ncases = \"a/b/*\"\nreason = \"r\n");
  CHECK(message.rfind("vendor.toml:3: TOML syntax error: ", 0) == 0);
  const std::string duplicate =
      parse_error("[[xfail]]\ncases = \"a/b/*\"\nreason = \"r\"\nreason = \"s\"\n");
  CHECK(duplicate.rfind("vendor.toml:4: TOML syntax error: ", 0) == 0);
}

TEST_CASE("expectations: load reads a file and names it") {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "bp_test_expectations_load.toml";
  {
    std::ofstream out(path);
    out << "[[unsupported]]\ncases = \"matmul/f16/*\"\nreason = \"no f16 GEMM\"\n"
        << "[[xfail]]\ncases = \"x/y/*\"\nreason = \"\"\n";
  }
  try {
    Expectations::load(path);
    FAIL("no error for an empty reason");
  } catch (const bp::Error& e) {
    CHECK(std::string(e.what()) == path.string() + ":6: [[xfail]]: 'reason' is empty");
  }
  {
    std::ofstream out(path);
    out << "[[unsupported]]\ncases = \"matmul/f16/*\"\nreason = \"no f16 GEMM\"\n";
  }
  const Expectation m = Expectations::load(path).match("matmul/f16/a");
  CHECK(m.kind == ExpectationKind::Unsupported);
  CHECK(m.where() == path.string() + ":2");
  std::filesystem::remove(path);

  try {
    Expectations::load(path);
    FAIL("no error for a missing file");
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::InvalidArgument);
    CHECK(std::string(e.what()) == "expectations file '" + path.string() + "' cannot be read");
  }
}

TEST_CASE("expectations: [[nondeterministic]] entries declare a tolerance, apart from verdicts") {
  const Expectations e = Expectations::parse(R"(
[[xfail]]
cases = "index_add/f32/*"
reason = "a known bug"
[[nondeterministic]]
cases = ["index_add/*/*", "scatter_add/f32/*"]
reason = "float atomics"
atol = 1e-5
rtol = 1e-6
)",
                                             "vendor.toml");
  const auto rule = e.nondeterminism(bp::conformance::CaseId::parse("index_add/f32/large"));
  REQUIRE(rule.has_value());
  CHECK(rule->atol == 1e-5);
  CHECK(rule->rtol == 1e-6);
  CHECK(rule->reason == "float atomics");
  CHECK(rule->line == 6);
  CHECK(e.nondeterminism(bp::conformance::CaseId::parse("scatter_add/f32/x")).has_value());
  CHECK_FALSE(e.nondeterminism(bp::conformance::CaseId::parse("scatter_add/f64/x")).has_value());
  // The verdict of a case is still its [[xfail]] entry, never the declaration.
  CHECK(e.match("index_add/f32/large").kind == ExpectationKind::Xfail);
  CHECK(e.match("index_add/f64/large").kind == ExpectationKind::None);

  CHECK_THROWS_WITH_AS(
      Expectations::parse("[[nondeterministic]]\ncases = \"a/*/*\"\nreason = \"r\"\n", "v.toml"),
      doctest::Contains("v.toml:1: [[nondeterministic]]: missing 'atol'"), bp::Error);
  CHECK_THROWS_WITH_AS(Expectations::parse("[[nondeterministic]]\ncases = \"a/*/*\"\nreason = "
                                           "\"r\"\natol = -1.0\n",
                                           "v.toml"),
                       doctest::Contains("v.toml:4: [[nondeterministic]]: 'atol' must be a number "
                                         ">= 0, not a negative one"),
                       bp::Error);
  CHECK_THROWS_WITH_AS(
      Expectations::parse("[[xfail]]\ncases = \"a/*/*\"\nreason = \"r\"\natol = 1.0\n", "v.toml"),
      doctest::Contains("v.toml:4: [[xfail]]: unknown key 'atol'"), bp::Error);
}
