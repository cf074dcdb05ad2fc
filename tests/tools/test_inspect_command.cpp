// `backplane inspect` (tools/backplane/inspect_command.cpp), run as a program: the manifest
// of the CPU plugin, of a plugin that aborts when loaded (proof that the file is read,
// never loaded), the errors for a plugin without a manifest and for a file that is not
// ELF, and --write-manifest, which loads the plugin and writes what it registers.
#include "cli_fixture.hpp"

#include <backplane/plugin.h>

#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace bp::test {
namespace {
namespace fs = std::filesystem;

const std::string kCpuPlugin = BP_CLI_CPU_PLUGIN;
const std::string kInspectOnlyPlugin = BP_CLI_INSPECT_ONLY_PLUGIN;  // aborts when loaded

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_CASE("inspect prints the CPU plugin's manifest") {
  const ProgramResult r = run_cli({"inspect", kCpuPlugin});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("plugin: cpu\nfile: " + kCpuPlugin + "\n") == 0);
  CHECK(r.out.find("ABI: " + std::to_string(BP_ABI_MAJOR) + "." + std::to_string(BP_ABI_MINOR) +
                   " ") != std::string::npos);
  CHECK(r.out.find("\nbackends: cpu\n") != std::string::npos);
  CHECK(r.out.find("\n  add.Tensor: ") != std::string::npos);
}

TEST_CASE("inspect reads the file without loading it") {
  // Loading this plugin aborts (a constructor does): the command reads its note instead.
  const ProgramResult r = run_cli({"inspect", kInspectOnlyPlugin});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("plugin: inspect_only\n") == 0);
  CHECK(r.out.find("backends: inspect_only\nclaims: 2 ops, 3 (op, dtype) pairs\n") !=
        std::string::npos);
  CHECK(r.out.find("  add.Tensor: f32, f64\n  relu:       bf16\n") != std::string::npos);

  const ProgramResult json = run_cli({"inspect", "--json", kInspectOnlyPlugin});
  REQUIRE(json.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(json.out);
  CHECK(j["name"] == "inspect_only");
  CHECK(j["file"] == kInspectOnlyPlugin);
  CHECK(j["abi"]["major"] == BP_ABI_MAJOR);
  CHECK(j["claims"]["add.Tensor"] == nlohmann::json{"f32", "f64"});
  CHECK(j["claims_count"] == 3);
}

TEST_CASE("inspect: no manifest, not ELF, a bad command line") {
  const ProgramResult none = run_cli({"inspect", kTestdevPlugin});
  CHECK(none.exit_code == 1);
  CHECK(none.err.find("'" + kTestdevPlugin +
                      "': no capability manifest (built without backplane_add_plugin's "
                      "MANIFEST)") != std::string::npos);
  const std::string text = kFixtureDir + "/not_a_library.so";
  const ProgramResult not_elf = run_cli({"inspect", text});
  CHECK(not_elf.exit_code == 1);
  CHECK(not_elf.err.find("'" + text + "' is not an ELF file") != std::string::npos);
  CHECK(run_cli({"inspect"}).exit_code == 2);
  CHECK(run_cli({"inspect", kCpuPlugin, "--json", "--write-manifest", "x.toml"}).exit_code == 2);
}

TEST_CASE("inspect --write-manifest loads the plugin and writes what it registers") {
  const fs::path out =
      fs::temp_directory_path() / ("bp_inspect_" + std::to_string(::getpid()) + ".toml");
  const ProgramResult r = run_cli({"inspect", kTestdevPlugin, "--write-manifest", out.string()});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("this runs the plugin's code") != std::string::npos);
  const std::string toml = read(out);
  fs::remove(out);
  CHECK(toml.find("\n[plugin]\nname = \"testdev\"\nbackends = [\"test_dev\"]\n\n[claims]\n") !=
        std::string::npos);
  CHECK(toml.find("\n\"add.Tensor\" = [\"f32\"]\n") != std::string::npos);

  // A plugin that does not load: exit 1 with the reason.
  const ProgramResult bad =
      run_cli({"inspect", kFixtureDir + "/not_a_library.so", "--write-manifest", out.string()});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.find("did not load") != std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

}  // namespace bp::test
