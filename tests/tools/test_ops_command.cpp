// `backplane ops` (tools/backplane/ops_command.cpp), run as a program: the JSON shape, how
// the reference backend and the testdev fixture plugin implement a few ops (native kernels
// with their dtypes, composite decompositions, missing ops), the --device filter and its
// errors, the exit status and the text matrix. Expected values are literals from the
// plugins' sources (plugins/reference/binary.cpp, tests/dispatch/fixture_plugin.cpp) and the
// catalog (core/src/ops/: add.Tensor is primitive, div.Scalar composite).
#include "cli_fixture.hpp"

#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace bp::test {
namespace {

nlohmann::json parse_report(const ProgramResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  nlohmann::json report;
  REQUIRE_NOTHROW(report = nlohmann::json::parse(r.out));
  return report;
}

// The entry of report["ops"] named `name`; a null json when there is none.
nlohmann::json find_op(const nlohmann::json& report, const std::string& name) {
  for (const nlohmann::json& op : report.at("ops"))
    if (op.at("name") == name) return op;
  return nullptr;
}

const std::vector<std::string> kAllDtypes = {"bool", "i8",  "u8",   "i16", "i32",
                                             "i64",  "f16", "bf16", "f32", "f64"};

TEST_CASE("ops --json: every op has a kind, a schema and one status per loaded backend") {
  const ProgramResult r = run_cli({"ops", "--json"});
  REQUIRE(r.exit_code == 0);
  CHECK(r.err == "");
  const nlohmann::json report = parse_report(r);
  CHECK(report.at("device").is_null());
  const nlohmann::json want_backend = {
      {"name", "reference"}, {"plugin", "reference"}, {"device_count", 1}};
  CHECK(report.at("backends") == nlohmann::json::array({want_backend}));

  const nlohmann::json& ops = report.at("ops");
  REQUIRE(ops.size() > 50);  // op set v1 (OPS.md) has far more; an empty list is a bug
  std::vector<std::string> names;
  for (const nlohmann::json& op : ops) {
    names.push_back(op.at("name"));
    CHECK((op.at("kind") == "primitive" || op.at("kind") == "composite"));
    CHECK(op.at("schema").get<std::string>().starts_with(op.at("name").get<std::string>() + "("));
    REQUIRE(op.at("backends").size() == 1);
    const nlohmann::json& cell = op.at("backends").at("reference");
    const std::string status = cell.at("status");
    CHECK((status == "native" || status == "composite" || status == "missing"));
    // Only native cells carry a plugin and dtypes.
    CHECK(cell.size() == (status == "native" ? 3u : 1u));
    // A decomposition exists only for composite ops.
    if (status == "composite") CHECK(op.at("kind") == "composite");
  }
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());

  const nlohmann::json add = find_op(report, "add.Tensor");
  REQUIRE(add.is_object());
  CHECK(add.at("kind") == "primitive");
  CHECK(add.at("schema") == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(add.at("backends").at("reference") ==
        nlohmann::json{{"status", "native"}, {"plugin", "reference"}, {"dtypes", kAllDtypes}});
  const nlohmann::json div = find_op(report, "div.Scalar");
  REQUIRE(div.is_object());
  CHECK(div.at("kind") == "composite");
  CHECK(div.at("backends").at("reference") == nlohmann::json{{"status", "composite"}});
}

TEST_CASE("ops --plugin shows the fixture's native kernels with their dtypes, and the rest") {
  const ProgramResult r = run_cli({"ops", "--json", "--plugin", kTestdevPlugin});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  std::vector<std::string> backends;
  for (const nlohmann::json& b : report.at("backends")) backends.push_back(b.at("name"));
  CHECK(backends == std::vector<std::string>{"reference", "test_dev"});

  auto cell = [&](const std::string& op) {
    const nlohmann::json entry = find_op(report, op);
    REQUIRE(entry.is_object());
    return entry.at("backends").at("test_dev");
  };
  CHECK(cell("add.Tensor") ==
        nlohmann::json{{"status", "native"}, {"plugin", "testdev"}, {"dtypes", {"f32"}}});
  CHECK(cell("fill_.Scalar") ==
        nlohmann::json{{"status", "native"}, {"plugin", "testdev"}, {"dtypes", kAllDtypes}});
  CHECK(cell("copy_") ==
        nlohmann::json{{"status", "native"}, {"plugin", "testdev"}, {"dtypes", {"f32", "f64"}}});
  CHECK(cell("mul.Tensor") == nlohmann::json{{"status", "missing"}});
  CHECK(cell("div.Scalar") == nlohmann::json{{"status", "composite"}});

  // Every other primitive op is missing on test_dev: it registered three kernels.
  int native_count = 0;
  for (const nlohmann::json& op : report.at("ops")) {
    const nlohmann::json& c = op.at("backends").at("test_dev");
    native_count += c.at("status") == "native";
    if (op.at("kind") == "primitive" && c.at("status") != "native")
      CHECK(c.at("status") == "missing");
  }
  CHECK(native_count == 3);
}

TEST_CASE("ops --device shows only that device's backend") {
  for (const std::string sel : {"test_dev:0", "test_dev"}) {
    CAPTURE(sel);
    const ProgramResult r = run_cli({"ops", "--json", "--device", sel, "--plugin", kTestdevPlugin});
    REQUIRE(r.exit_code == 0);
    const nlohmann::json report = parse_report(r);
    CHECK(report.at("device") == "test_dev:0");
    const nlohmann::json want_backend = {
        {"name", "test_dev"}, {"plugin", "testdev"}, {"device_count", 1}};
    CHECK(report.at("backends") == nlohmann::json::array({want_backend}));
    const nlohmann::json add = find_op(report, "add.Tensor");
    REQUIRE(add.is_object());
    CHECK(add.at("backends").size() == 1);
    CHECK(add.at("backends").at("test_dev").at("dtypes") == nlohmann::json{"f32"});
  }
  const ProgramResult reference = run_cli({"ops", "--json", "--device", "reference:0"});
  REQUIRE(reference.exit_code == 0);
  CHECK(parse_report(reference).at("backends").at(0).at("name") == "reference");
}

TEST_CASE("ops --device picking no loaded device exits 1 and names what is loaded") {
  struct Case {
    std::string selector;
    std::string message;  // the whole of stderr
  };
  const std::vector<Case> cases = {
      // A built-in type whose plugin is not loaded.
      {"cuda:0",
       "backplane: error: --device 'cuda:0': no device matches device selector 'cuda:0' "
       "(available: reference (1 device), test_dev (1 device))\n"},
      // A device index past the backend's devices.
      {"test_dev:3",
       "backplane: error: --device 'test_dev:3': no device matches device selector "
       "'test_dev:3' (available: reference (1 device), test_dev (1 device))\n"},
      // A name no backend, shipped or loaded, has: checked when the runtime starts.
      {"acme_npu:0",
       "backplane: error: --device: devices.priority 'acme_npu:0': unknown backend "
       "'acme_npu' (known: cpu, cuda, level_zero, opencl, reference, rocm, test_dev, "
       "testdev)\n"},
      {"test_dev:x",
       "backplane: error: --device: device selector 'test_dev:x': column 10: expected a device "
       "index or '*' after ':', found 'x'\n"},
  };
  for (const Case& c : cases) {
    const ProgramResult r = run_cli({"ops", "--plugin", kTestdevPlugin, "--device", c.selector});
    CAPTURE(r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.out == "");
    CHECK(r.err == c.message);
  }

  // A backend that loaded without devices has no device to pick, and says why.
  const ProgramResult none =
      run_cli({"ops", "--device", "no_devices_dev", "--plugin", kNoDevicesPlugin});
  CHECK(none.exit_code == 1);
  CHECK(none.err ==
        "backplane: error: --device 'no_devices_dev': no device matches device selector "
        "'no_devices_dev:*' (available: reference (1 device), no_devices_dev (0 devices: "
        "no_devices: no accelerator is attached))\n");
}

TEST_CASE("ops --device with a list shows the backends it picks, in its order") {
  const ProgramResult r = run_cli(
      {"ops", "--json", "--device", "test_dev, reference, !cpu", "--plugin", kTestdevPlugin});
  REQUIRE(r.exit_code == 0);
  const nlohmann::json report = parse_report(r);
  CHECK(report.at("device") == "test_dev:0");
  REQUIRE(report.at("backends").size() == 2);
  CHECK(report.at("backends").at(0).at("name") == "test_dev");
  CHECK(report.at("backends").at(1).at("name") == "reference");
}

TEST_CASE("ops shows fallback where the config sends a call to the CPU") {
  const std::string cpu_plugin = std::string(BP_CLI_CPU_PLUGIN);
  const ProgramResult policy =
      run_cli({"ops", "--json", "--plugin", kTestdevPlugin, "--plugin", cpu_plugin}, std::nullopt,
              {{"BACKPLANE_FALLBACK", "cpu"}});
  REQUIRE(policy.exit_code == 0);
  const nlohmann::json report = parse_report(policy);
  // test_dev lacks mul.Tensor; the CPU has it: the call falls back.
  CHECK(find_op(report, "mul.Tensor").at("backends").at("test_dev").at("status") == "fallback");
  CHECK(find_op(report, "add.Tensor").at("backends").at("test_dev").at("status") == "native");
  // The CPU never falls back to itself; composites still decompose.
  CHECK(find_op(report, "mul.Tensor").at("backends").at("cpu").at("status") == "native");
  CHECK(find_op(report, "add.Scalar").at("backends").at("test_dev").at("status") == "composite");

  // fallback.ops forces an op the backend has a kernel for.
  const auto dir =
      std::filesystem::temp_directory_path() / ("bp_ops_forced_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "backplane.toml") << "[fallback.ops]\ntest_dev = [\"add\"]\n";
  const ProgramResult forced =
      run_cli({"ops", "--json", "--config", (dir / "backplane.toml").string(), "--plugin",
               kTestdevPlugin, "--plugin", cpu_plugin});
  std::filesystem::remove_all(dir);
  REQUIRE(forced.exit_code == 0);
  const nlohmann::json forced_report = parse_report(forced);
  CHECK(find_op(forced_report, "add.Tensor").at("backends").at("test_dev").at("status") ==
        "fallback");
  CHECK(find_op(forced_report, "mul.Tensor").at("backends").at("test_dev").at("status") ==
        "missing");
}

TEST_CASE("ops exits 1 when a --plugin file did not load, and still prints the matrix") {
  const std::string missing = kFixtureDir + "/libbackplane_plugin_missing.so";
  const ProgramResult r = run_cli({"ops", "--json", "--plugin", missing});
  CHECK(r.exit_code == 1);
  CHECK(r.err == "backplane: plugin " + missing + " failed: no such file\n");
  CHECK(find_op(parse_report(r), "add.Tensor").is_object());
}

// The line of `op` in an ops matrix printed as `out`.
std::string matrix_row(const std::string& out, const std::string& op) {
  const size_t at = out.find("\n" + op + " ");
  REQUIRE(at != std::string::npos);
  return out.substr(at + 1, out.find('\n', at + 1) - at - 1);
}

TEST_CASE("ops prints a matrix with ops as rows and backends as columns") {
  const ProgramResult r = run_cli({"ops", "--plugin", kTestdevPlugin});
  CHECK(r.exit_code == 0);
  INFO(r.out);
  CHECK(r.out.starts_with("OP "));
  const std::string header = r.out.substr(0, r.out.find('\n'));
  CHECK(header.find("  KIND  ") != std::string::npos);
  CHECK(header.find("  reference ") != std::string::npos);
  CHECK(header.ends_with("  test_dev"));
  // The test_dev column starts where its header does.
  const size_t column = header.find("test_dev");
  auto row = [&](const std::string& op) { return matrix_row(r.out, op); };
  CHECK(row("add.Tensor").substr(column) == "native(f32)");
  CHECK(row("copy_").substr(column) == "native(f32,f64)");
  CHECK(row("fill_.Scalar").substr(column) == "native");
  CHECK(row("mul.Tensor").substr(column) == "missing");
  CHECK(row("div.Scalar").find(" composite ") != std::string::npos);
  CHECK(row("div.Scalar").substr(column) == "composite");
}

TEST_CASE("ops abbreviates the reference's dtype groups as int and float") {
  const ProgramResult r = run_cli({"ops", "--plugin", kTestdevPlugin});
  INFO(r.out);
  const nlohmann::json report =
      parse_report(run_cli({"ops", "--json", "--plugin", kTestdevPlugin}));
  const std::string header = r.out.substr(0, r.out.find('\n'));
  const size_t column = header.find("test_dev");
  // The reference column abbreviates the common dtype groups: "int" for the five integer
  // types, "float" for the four floating ones.
  const std::vector<std::string> int_float = {"i8",  "u8",   "i16", "i32", "i64",
                                              "f16", "bf16", "f32", "f64"};
  const std::vector<std::string> floating = {"f16", "bf16", "f32", "f64"};
  const size_t ref_column = header.find("reference");
  int abbreviated = 0;
  for (const nlohmann::json& op : report.at("ops")) {
    const nlohmann::json& cell = op.at("backends").at("reference");
    if (cell.at("status") != "native") continue;
    const std::string text =
        matrix_row(r.out, op.at("name")).substr(ref_column, column - ref_column);
    const auto dtypes = cell.at("dtypes").get<std::vector<std::string>>();
    if (dtypes == int_float) {
      CHECK(text.starts_with("native(int,float) "));
      ++abbreviated;
    } else if (dtypes == floating) {
      CHECK(text.starts_with("native(float) "));
      ++abbreviated;
    }
  }
  CHECK(abbreviated > 0);
}

TEST_CASE("ops ends its matrix with totals and a legend; with --device, one backend's column") {
  const ProgramResult r = run_cli({"ops", "--plugin", kTestdevPlugin});
  INFO(r.out);
  const size_t op_count =
      parse_report(run_cli({"ops", "--json", "--plugin", kTestdevPlugin})).at("ops").size();
  const size_t header_end = r.out.find('\n');
  const size_t column = r.out.substr(0, header_end).find("test_dev");
  // One line per op between the header and the blank line before the totals.
  const size_t totals = r.out.find("\n\ntotal ");
  REQUIRE(totals != std::string::npos);
  CHECK(static_cast<size_t>(std::count(r.out.begin() + static_cast<long>(header_end),
                                       r.out.begin() + static_cast<long>(totals), '\n')) ==
        op_count);
  const std::string native_total =
      r.out.substr(totals + 2, r.out.find('\n', totals + 2) - totals - 2);
  CHECK(native_total.starts_with("total"));
  CHECK(native_total.find(" native ") != std::string::npos);
  CHECK(native_total.substr(column) == "3");
  for (const char* word : {"legend:", "  native ", "  composite ", "  fallback ", "  missing "})
    CHECK(r.out.find(word) != std::string::npos);

  const ProgramResult one = run_cli({"ops", "--device", "test_dev", "--plugin", kTestdevPlugin});
  CHECK(one.exit_code == 0);
  CHECK(one.out.starts_with("device test_dev:0 (backend test_dev)\n\nOP "));
  CHECK(one.out.find("reference") == std::string::npos);
}

TEST_CASE("ops: --help describes the command, and a bad flag is a usage error") {
  const ProgramResult help = run_cli({"ops", "--help"});
  CHECK(help.exit_code == 0);
  for (const char* word : {"--device", "--json", "--plugin", "fallback", "Exit status"})
    CHECK(help.out.find(word) != std::string::npos);

  const ProgramResult bad = run_cli({"ops", "--no-such-flag"});
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("--no-such-flag") != std::string::npos);
  const ProgramResult missing_value = run_cli({"ops", "--device"});
  CHECK(missing_value.exit_code == 2);
}

}  // namespace
}  // namespace bp::test
