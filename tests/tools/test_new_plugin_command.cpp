// `backplane new-plugin` (tools/backplane/new_plugin_command.cpp, plugin_template.cpp), run
// as a program: the folder it makes from the source tree's template (renamed throughout,
// the kernels and files a vendor starts from, an empty expectations file, README links that
// resolve from anywhere), and its refusals (bad names, an existing folder, no template, a
// template naming itself in a form the rename does not know), each leaving nothing behind.
// scripts/check-out-of-tree builds such a folder against an install and runs its tests.
#include "cli_fixture.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bp::test {
namespace {
namespace fs = std::filesystem;

// A fresh scratch folder, removed with the object.
struct Scratch {
  fs::path dir = fs::temp_directory_path() /
                 ("bp_new_plugin_" + std::to_string(::getpid()) + "_" + std::to_string(next()));
  Scratch() { fs::create_directories(dir); }
  ~Scratch() { fs::remove_all(dir); }
  static int next() {
    static int n = 0;
    return n++;
  }
};

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(fs::relative(e.path(), dir).string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

TEST_CASE("new-plugin makes a complete plugin folder, renamed throughout") {
  Scratch scratch;
  const fs::path dir = scratch.dir / "acme-plugin";
  const ProgramResult r = run_cli({"new-plugin", "acme_npu", "--dir", dir.string()});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("created " + dir.string() + "/") != std::string::npos);
  CHECK(r.out.find("cmake -S " + dir.string()) != std::string::npos);

  const std::vector<std::string> expected = {
      "CMakeLists.txt", "README.md",           "expectations.toml",
      "manifest.toml",  "src/kernels.cpp",     "src/kernels.hpp",
      "src/plugin.cpp", "test/CMakeLists.txt", "test/check_acme_npu.cpp"};
  CHECK(files_under(dir) == expected);
  for (const std::string& file : expected) {
    CAPTURE(file);
    CHECK(lower(read(dir / file)).find("template") == std::string::npos);
  }
  CHECK(read(dir / "CMakeLists.txt").find("backplane_add_plugin(NAME acme_npu ") !=
        std::string::npos);
  CHECK(read(dir / "CMakeLists.txt").find("option(ACME_NPU_BUILD_TESTS") != std::string::npos);
  CHECK(read(dir / "src/plugin.cpp").find("BP_SDK_PLUGIN(\"acme_npu\"") != std::string::npos);
  CHECK(read(dir / "src/plugin.cpp").find("namespace acme_npu {") != std::string::npos);
  const std::string kernels = read(dir / "src/kernels.cpp");
  for (const char* op : {"\"copy_\"", "\"fill_.Scalar\"", "\"add.Tensor\"", "\"sum.dim_IntList\""})
    CHECK_MESSAGE(kernels.find(op) != std::string::npos, "no kernel registered for " << op);
  // The capability manifest names the new plugin and is embedded by its build.
  CHECK(read(dir / "manifest.toml").find("name = \"acme_npu\"\nbackends = [\"acme_npu\"]\n") !=
        std::string::npos);
  CHECK(read(dir / "CMakeLists.txt").find("MANIFEST manifest.toml") != std::string::npos);
  CHECK(read(dir / "test/CMakeLists.txt").find("conformance --device acme_npu:0") !=
        std::string::npos);
  // The expectations file is empty: comments only, no entry.
  std::istringstream expectations(read(dir / "expectations.toml"));
  for (std::string line; std::getline(expectations, line);) {
    CAPTURE(line);
    CHECK((line.empty() || line[0] == '#'));
  }
  // The README's links to the Backplane docs point at files that exist, from anywhere.
  const std::string readme = read(dir / "README.md");
  const std::regex link(R"(\]\(([^)#]+)(#[^)]*)?\))");
  int links = 0;
  for (auto it = std::sregex_iterator(readme.begin(), readme.end(), link);
       it != std::sregex_iterator(); ++it, ++links) {
    const fs::path target = (*it)[1].str();
    CAPTURE(target);
    CHECK(target.is_absolute());
    CHECK(fs::exists(target));
  }
  CHECK(links >= 1);
}

TEST_CASE("new-plugin refuses an existing folder and leaves it as it was") {
  Scratch scratch;
  const fs::path dir = scratch.dir / "taken";
  fs::create_directories(dir);
  std::ofstream(dir / "mine.txt") << "a vendor's file\n";
  const ProgramResult r = run_cli({"new-plugin", "acme_npu", "--dir", dir.string()});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("'" + dir.string() + "' already exists") != std::string::npos);
  CHECK(files_under(dir) == std::vector<std::string>{"mine.txt"});
  CHECK(files_under(scratch.dir) == std::vector<std::string>{"taken/mine.txt"});
}

TEST_CASE("new-plugin names what is wrong with a bad name, and creates nothing") {
  Scratch scratch;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Acme", "invalid name 'Acme': a name starts with a lowercase letter"},
      {"9acme", "invalid name '9acme': a name starts with a lowercase letter"},
      {"acme-npu", "invalid name 'acme-npu': character 5 ('-') is not a lowercase letter"},
      {"acme npu", "invalid name 'acme npu': character 5 (' ')"},
      {"acme__npu", "'__' is reserved in C++ identifiers"},
      {"namespace", "it is a C++ keyword"},
      {"cpu", "'cpu' is a backend of Backplane itself"},
      {"reference", "'reference' is a backend of Backplane itself"},
  };
  for (const auto& c : cases) {
    // (Not a structured binding: clang 14 cannot capture one in CAPTURE's lambda.)
    const std::string& name = c.first;
    const std::string& message = c.second;
    CAPTURE(name);
    const ProgramResult r =
        run_cli({"new-plugin", name, "--dir", (scratch.dir / "plugin").string()});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find(message) != std::string::npos, "stderr: " << r.err);
  }
  CHECK(run_cli({"new-plugin"}).exit_code == 2);  // NAME is required
  CHECK(files_under(scratch.dir).empty());
}

TEST_CASE("new-plugin without a template, or with one that names itself in an unknown form") {
  Scratch scratch;
  const ProgramResult none = run_cli({"new-plugin", "acme_npu", "--template", scratch.dir.string(),
                                      "--dir", (scratch.dir / "out").string()});
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("no plugin template (a folder with CMakeLists.txt and src/plugin.cpp) in '" +
                      scratch.dir.string() + "'") != std::string::npos);

  // A template whose text says "Template" in a form the rename does not replace: the copy
  // would keep the template's name, so it is refused, naming the file and line.
  const fs::path tmpl = scratch.dir / "tmpl";
  fs::create_directories(tmpl / "src");
  std::ofstream(tmpl / "CMakeLists.txt") << "backplane_add_plugin(NAME template_device)\n";
  std::ofstream(tmpl / "src/plugin.cpp") << "// the template_device plugin\n// a TemplateDevice\n";
  const ProgramResult bad = run_cli({"new-plugin", "acme_npu", "--template", tmpl.string(), "--dir",
                                     (scratch.dir / "out").string()});
  CHECK(bad.exit_code == 1);
  CHECK_MESSAGE(bad.err.find((tmpl / "src/plugin.cpp").string() + ":2: the template names itself "
                                                                  "in a form") != std::string::npos,
                "stderr: " << bad.err);
  CHECK_FALSE(fs::exists(scratch.dir / "out"));
  for (const auto& e : fs::directory_iterator(scratch.dir))  // no scratch copy left behind
    CHECK(e.path().filename().string().find(".new-plugin-") == std::string::npos);
}

}  // namespace
}  // namespace bp::test
