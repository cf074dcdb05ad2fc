// The `backplane` program's command line (tools/backplane/main.cpp): --help, --version,
// and exit status 2 with a message on stderr for a bad command line.
#include "cli_fixture.hpp"

#include <doctest/doctest.h>

namespace bp::test {
namespace {

TEST_CASE("--help lists the subcommands and exits 0") {
  const ProgramResult r = run_cli({"--help"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("info") != std::string::npos);
}

TEST_CASE("--version prints the runtime's version") {
  const ProgramResult r = run_cli({"--version"});
  CHECK(r.exit_code == 0);
  CHECK(r.out == std::string("backplane ") + BP_CLI_EXPECTED_VERSION + "\n");
}

TEST_CASE("a bad command line exits 2 and says what is wrong on stderr") {
  SUBCASE("no subcommand") {
    const ProgramResult r = run_cli({});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("subcommand") != std::string::npos);
  }
  SUBCASE("an unknown subcommand") {
    const ProgramResult r = run_cli({"frobnicate"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("frobnicate") != std::string::npos);
  }
  SUBCASE("an unknown option") {
    const ProgramResult r = run_cli({"info", "--bogus"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--bogus") != std::string::npos);
  }
  SUBCASE("--plugin without a value") {
    const ProgramResult r = run_cli({"info", "--plugin"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("--plugin") != std::string::npos);
  }
}

}  // namespace
}  // namespace bp::test
