// docs/sdk.md's table of status codes lists every bp_status of plugin.h with its value: a
// code added to the ABI without a line in the docs fails here.
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("docs/sdk.md lists every status code of plugin.h with its value") {
  const std::string header =
      read(std::string(BP_SOURCE_DIR) + "/plugin-sdk/include/backplane/plugin.h");
  const std::string docs = read(std::string(BP_SOURCE_DIR) + "/docs/sdk.md");
  const std::regex code(R"(\b(BP_(?:OK|ERR_[A-Z_]+)) = ([0-9]+))");
  int codes = 0;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), code);
       it != std::sregex_iterator(); ++it) {
    ++codes;
    const std::string row = "| `" + (*it)[1].str() + "` | " + (*it)[2].str() + " |";
    CHECK_MESSAGE(docs.find(row) != std::string::npos, "docs/sdk.md has no row " << row);
  }
  CHECK(codes >= 9);  // BP_OK and the eight errors of ABI 1.x
}
