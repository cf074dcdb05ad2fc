// The conformance suite against buggy plugins (tests/plugins/buggy/): `backplane
// conformance` is run as a process on each one, and its JSON report must fail the run
// (exit code 1) and name the bug in a case's status and message — guard bytes for an
// out-of-bounds write, the first bad element for a wrong value, SIGSEGV for a crash, a
// timeout for a hang — while the plugin's correct kernels pass and the run goes on after a
// crash or a hang.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct CliRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
  json report;         // the --json file (null when it was not written or is not JSON)
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `backplane conformance --device <device> --plugin <fixture> <args...> --json <tmp>`
// with a deadline far above what the run needs (a hung test must not hang ctest).
CliRun run_conformance(const std::string& device, const std::string& fixture,
                       const std::vector<std::string>& args) {
  const fs::path dir = fs::temp_directory_path() / ("bp_buggy_" + std::to_string(::getpid()) + "_" +
                                                    device.substr(0, device.find(':')));
  fs::create_directories(dir);
  const fs::path json_path = dir / "report.json";
  const fs::path log_path = dir / "output.txt";
  fs::remove(json_path);
  std::vector<std::string> argv_s = {
      BP_CLI_PATH, "conformance",
      "--device",  device,
      "--plugin",  std::string(BP_FIXTURE_DIR) + "/libbp_fixture_" + fixture + ".so"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  argv_s.push_back("--json");
  argv_s.push_back(json_path.string());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, STDOUT_FILENO);
      ::dup2(fd, STDERR_FILENO);
      ::close(fd);
    }
    ::setpgid(0, 0);  // its own group, so the deadline kills its workers too
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      FAIL("backplane conformance on " << device << " ran for more than 300 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CliRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.output = read_file(log_path);
  if (fs::exists(json_path)) run.report = json::parse(read_file(json_path), nullptr, false);
  fs::remove_all(dir);
  return run;
}

// The cases of `report` whose status is `status` (and whose id contains `id_part`).
std::vector<json> cases_with(const json& report, const std::string& status,
                             const std::string& id_part = "") {
  std::vector<json> out;
  if (!report.is_object() || !report.contains("cases")) return out;
  for (const json& c : report["cases"])
    if (c.value("status", "") == status && c.value("id", "").find(id_part) != std::string::npos)
      out.push_back(c);
  return out;
}

bool any_message_has(const std::vector<json>& cases, const std::string& text) {
  for (const json& c : cases)
    if (c.value("message", "").find(text) != std::string::npos) return true;
  return false;
}

// A wrong-value message names the first bad element: by its multi-index, as the
// comparator writes it ("first at [2, 3]: got 1, want 2"), or as "index".
bool any_message_names_element(const std::vector<json>& cases) {
  static const std::regex element(R"(at \[[0-9, ]*\]|index)");
  for (const json& c : cases)
    if (std::regex_search(c.value("message", ""), element)) return true;
  return false;
}

// A run that must fail: exit code 1 and a well-formed report for the device.
void require_failed_run(const CliRun& run, const std::string& device) {
  INFO("output:\n" << run.output);
  CHECK(run.exit_code == 1);
  REQUIRE(run.report.is_object());
  CHECK(run.report.value("device", "") == device);
  REQUIRE(run.report.contains("cases"));
  REQUIRE(run.report.contains("summary"));
}

}  // namespace

TEST_CASE("buggy plugins: an out-of-bounds write is caught by the guard bytes") {
  const CliRun run = run_conformance(
      "buggy_oob:0", "oob",
      {"--ops", "^add\\.Tensor$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_oob:0");
  INFO("report: " << run.report.dump(1));
  const std::vector<json> failed = cases_with(run.report, "failed", "add.Tensor/f32/");
  CHECK_FALSE(failed.empty());
  CHECK(any_message_has(failed, "guard"));
  CHECK(run.report["summary"].value("failed", 0) == static_cast<int>(failed.size()));
}

TEST_CASE("buggy plugins: a wrong dense entry is caught on the contiguous cases it takes") {
  const CliRun run = run_conformance(
      "buggy_dense_tail:0", "dense_tail",
      {"--ops", "^add\\.Tensor$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_dense_tail:0");
  INFO("report: " << run.report.dump(1));
  // 7 x 13 = 91 elements: the last 3 are self's.
  const std::vector<json> failed =
      cases_with(run.report, "failed", "add.Tensor/f32/contiguous_7x13");
  REQUIRE(failed.size() == 1);
  CHECK(any_message_names_element(failed));
  // The kernel itself is right: what the dense entry never sees passes.
  CHECK(cases_with(run.report, "passed", "add.Tensor/f32/transposed_").size() >= 1);
  CHECK(cases_with(run.report, "passed", "add.Tensor/f32/broadcast").size() >= 1);
}

TEST_CASE("buggy plugins: the same plugin's correct kernel passes (control)") {
  const CliRun run = run_conformance(
      "buggy_oob:0", "oob",
      {"--ops", "^mul\\.Tensor$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  INFO("output:\n" << run.output);
  CHECK(run.exit_code == 0);
  REQUIRE(run.report.is_object());
  CHECK_FALSE(cases_with(run.report, "passed", "mul.Tensor/f32/").empty());
  CHECK(cases_with(run.report, "failed").empty());
}

TEST_CASE("buggy plugins: f16 rounding toward zero is caught and the element named") {
  const CliRun run = run_conformance(
      "buggy_f16_rounding:0", "f16_rounding",
      {"--ops", "^add\\.Tensor$", "--dtypes", "f16", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_f16_rounding:0");
  INFO("report: " << run.report.dump(1));
  // 65504 + 65504 is inf rounded to nearest, 65504 rounded toward zero.
  const std::vector<json> failed = cases_with(run.report, "failed", "add.Tensor/f16/special_pairs");
  REQUIRE(failed.size() == 1);
  CHECK(any_message_names_element(failed));
}

TEST_CASE("buggy plugins: maximum that drops NaN is caught") {
  const CliRun run =
      run_conformance("buggy_nan_max:0", "nan_max",
                      {"--ops", "^maximum$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_nan_max:0");
  INFO("report: " << run.report.dump(1));
  const std::vector<json> failed = cases_with(run.report, "failed", "maximum/f32/special_pairs");
  REQUIRE(failed.size() == 1);
  CHECK(any_message_names_element(failed));
  // Without NaN the textbook max is right.
  CHECK(cases_with(run.report, "passed", "maximum/f32/contiguous_7x13").size() == 1);
}

TEST_CASE("buggy plugins: unary kernels that ignore input strides are caught") {
  const CliRun run = run_conformance(
      "buggy_strides:0", "strides",
      {"--ops", "^(neg|relu)$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_strides:0");
  INFO("report: " << run.report.dump(1));
  for (const char* op : {"neg/f32/", "relu/f32/"}) {
    CAPTURE(op);
    const std::vector<json> transposed =
        cases_with(run.report, "failed", std::string(op) + "transposed_17x9");
    REQUIRE(transposed.size() == 1);
    CHECK(any_message_names_element(transposed));
    CHECK(cases_with(run.report, "failed", std::string(op) + "strided_5x8").size() == 1);
    CHECK(cases_with(run.report, "passed", std::string(op) + "contiguous_7x13").size() == 1);
  }
}

TEST_CASE("buggy plugins: broadcasting by flat index modulo is caught") {
  const CliRun run = run_conformance(
      "buggy_broadcast:0", "broadcast",
      {"--ops", "^add\\.Tensor$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_broadcast:0");
  INFO("report: " << run.report.dump(1));
  // [3,1] + [1,4]: self's broadcast dimension is the last one.
  const std::vector<json> failed =
      cases_with(run.report, "failed", "add.Tensor/f32/broadcast_3x1_1x4");
  REQUIRE(failed.size() == 1);
  CHECK(any_message_names_element(failed));
  CHECK(cases_with(run.report, "passed", "add.Tensor/f32/contiguous_7x13").size() == 1);
  // A 0-d other broadcast everywhere is read right by the modulo (one element).
  CHECK(cases_with(run.report, "passed", "add.Tensor/f32/other_0d_5x6").size() == 1);
}

TEST_CASE("buggy plugins: a segfaulting kernel is a crashed case and the run goes on") {
  const CliRun run = run_conformance(
      "buggy_segfault:0", "segfault",
      {"--ops", "^(neg|relu)$", "--dtypes", "f32", "--timeout", "5", "--jobs", "2"});
  require_failed_run(run, "buggy_segfault:0");
  INFO("report: " << run.report.dump(1));
  const std::vector<json> crashed = cases_with(run.report, "crashed", "neg/f32/");
  CHECK_FALSE(crashed.empty());
  CHECK(any_message_has(crashed, "SIGSEGV"));
  CHECK(cases_with(run.report, "crashed", "relu/").empty());
  // relu runs after neg in catalog order: its cases were still run and pass.
  CHECK(cases_with(run.report, "passed", "relu/f32/contiguous_7x13").size() == 1);
  CHECK(cases_with(run.report, "passed", "relu/f32/transposed_17x9").size() == 1);
}

TEST_CASE("buggy plugins: a hanging kernel is a timeout and the run goes on") {
  const CliRun run = run_conformance(
      "buggy_hang:0", "hang",
      {"--ops", "^(exp|relu)$", "--dtypes", "f32", "--timeout", "2", "--jobs", "2"});
  require_failed_run(run, "buggy_hang:0");
  INFO("report: " << run.report.dump(1));
  CHECK(cases_with(run.report, "timeout", "exp/f32/contiguous_7x13").size() == 1);
  CHECK(cases_with(run.report, "timeout", "relu/").empty());
  CHECK(cases_with(run.report, "passed", "relu/f32/contiguous_7x13").size() == 1);
  CHECK(run.report["summary"].value("timeout", 0) >= 1);
}

TEST_CASE("buggy plugins: device API bugs are caught by the device_api cases") {
  const CliRun run = run_conformance("buggy_device:0", "device",
                                     {"--ops", "^device_api$", "--timeout", "20", "--jobs", "2"});
  require_failed_run(run, "buggy_device:0");
  INFO("report: " << run.report.dump(1));
  const std::vector<json> alignment =
      cases_with(run.report, "failed", "device_api/bytes/alignment");
  REQUIRE_FALSE(alignment.empty());
  CHECK(any_message_has(alignment, "not a multiple of the alignment 16"));
  const std::vector<json> d2h =
      cases_with(run.report, "failed", "device_api/bytes/copy_device_to_host");
  REQUIRE(d2h.size() == 1);
  CHECK(any_message_has(d2h, "the last byte of the copied range"));
  CHECK(cases_with(run.report, "passed", "device_api/bytes/copy_host_to_device").size() == 1);
}

// ---- the template plugin (tests/plugins/template/): a green run must mean "compared" ----

TEST_CASE("the template plugin: every op it claims is compared, and its run passes") {
  const CliRun run = run_conformance("template_device:0", "template", {"--jobs", "2"});
  INFO("output:\n" << run.output);
  CHECK(run.exit_code == 0);
  REQUIRE(run.report.is_object());
  const json& summary = run.report["summary"];
  CHECK(summary.value("ops_claimed", 0) == 6);
  // Its six kernels, and composites whose decomposition needs only them (empty inputs).
  CHECK(summary.value("ops_compared", 0) >= 6);
  CHECK(summary.value("blocked", -1) == 0);
  CHECK(summary.value("failed", -1) == 0);
  for (const std::string op : {"copy_/f32/", "fill_.Scalar/f32/", "add.Tensor/f32/",
                               "mul.Tensor/f32/", "relu/f32/", "sum.dim_IntList/f32/"}) {
    CAPTURE(op);
    // Passed with values compared (an error sample passes without comparing any).
    int compared = 0;
    for (const json& c : cases_with(run.report, "passed", op))
      compared += c.value("compared", false);
    CHECK(compared >= 5);
  }
  CHECK(run.output.find("ops: 6 claimed, ") != std::string::npos);
}

TEST_CASE(
    "the template with add ignoring the strides of self: caught, and only add and the "
    "composites over it fail") {
  const CliRun run = run_conformance("template_device:0", "template_strides", {"--jobs", "2"});
  require_failed_run(run, "template_device:0");
  INFO("report: " << run.report.dump(1));
  const std::vector<json> failed = cases_with(run.report, "failed", "add.Tensor/f32/");
  // addcmul is self + (value * t1) * t2 through this add (core/src/ops/pointwise.cpp): its
  // strided samples reach the bug too.
  const std::vector<json> composite = cases_with(run.report, "failed", "addcmul/f32/");
  CHECK(cases_with(run.report, "failed").size() == failed.size() + composite.size());
  CHECK(cases_with(run.report, "failed", "addcmul/f32/transposed_").size() == 1);
  CHECK(cases_with(run.report, "failed", "add.Tensor/f32/transposed_").size() == 1);
  CHECK(any_message_names_element(failed));
  // Contiguous inputs still pass: the bug is the strides alone.
  CHECK(cases_with(run.report, "passed", "add.Tensor/f32/contiguous_").size() >= 1);
}

TEST_CASE(
    "a plugin without copy_: its ops are still compared, and cases that need copy_ are "
    "blocked and fail the run unless the expectations file marks them") {
  const CliRun run = run_conformance("template_device:0", "template_no_copy", {"--jobs", "2"});
  require_failed_run(run, "template_device:0");
  INFO("report: " << run.report.dump(1));
  const std::vector<json> blocked = cases_with(run.report, "blocked");
  REQUIRE_FALSE(blocked.empty());
  for (const json& c : blocked) {
    CAPTURE(c.dump());
    const std::string id = c.value("id", "");
    // add/mul of mixed dtypes and wrapped numbers; sum with dtype= (self converted first).
    CHECK((id.rfind("add.Tensor/", 0) == 0 || id.rfind("mul.Tensor/", 0) == 0 ||
           id.rfind("sum.dim_IntList/", 0) == 0));
    CHECK(c.value("message", "").rfind("blocked: needs copy_ (", 0) == 0);
    CHECK_FALSE(c.value("compared", true));
    CHECK(c.value("repro", "").find("--case " + id) != std::string::npos);
  }
  CHECK(run.report["summary"].value("blocked", 0) == static_cast<int>(blocked.size()));
  // Results are read back with the device's own device-to-host copy, so its add kernel is
  // compared though the plugin has no copy_ to read a strided result with.
  CHECK(cases_with(run.report, "passed", "add.Tensor/f32/transposed_").size() == 1);
  CHECK(run.output.find("blocked add.Tensor/") != std::string::npos);

  // Marked xfail, the same cases no longer fail the run.
  const fs::path expect =
      fs::temp_directory_path() / ("bp_template_no_copy_" + std::to_string(::getpid()) + ".toml");
  std::ofstream(expect) << "[[xfail]]\n"
                           "cases = [\"add.Tensor/*/mixed_*\", \"mul.Tensor/*/mixed_*\",\n"
                           "         \"add.Tensor/*/wrapped_*\", \"mul.Tensor/*/wrapped_*\",\n"
                           "         \"sum.dim_IntList/*/dtype_*\"]\n"
                           "reason = \"no copy_ kernel yet\"\n";
  const CliRun marked = run_conformance("template_device:0", "template_no_copy",
                                        {"--jobs", "2", "--expect", expect.string()});
  fs::remove(expect);
  INFO("output:\n" << marked.output);
  CHECK(marked.exit_code == 0);
  REQUIRE(marked.report.is_object());
  CHECK(marked.report["summary"].value("blocked", -1) == 0);
  CHECK(marked.report["summary"].value("xfail", 0) == static_cast<int>(blocked.size()));
}

TEST_CASE("--case ID --verbose prints the inputs and the outputs around the first mismatch") {
  const CliRun run =
      run_conformance("template_device:0", "template_strides",
                      {"--case", "add.Tensor/f32/transposed_17x9", "--verbose", "--jobs", "1"});
  INFO("output:\n" << run.output);
  CHECK(run.exit_code == 1);
  for (const char* text :
       {"case add.Tensor/f32/transposed_17x9 (failed):\ninputs (seed 0):\n",
        "  add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor\n",
        "  argument 'self': f32 shape [17, 9] strides [1, 17] offset 0: [", ", ... (153 values)]\n",
        "  output 0: f32 shape [17, 9], first mismatch at [0, 1]\n", "  <- first mismatch\n"})
    CHECK_MESSAGE(run.output.find(text) != std::string::npos, "missing: " << text);
  // A case that crashes its worker still shows its inputs (made again in the parent).
  const CliRun crash = run_conformance(
      "buggy_segfault:0", "segfault",
      {"--case", "neg/f32/contiguous_7x13", "--verbose", "--jobs", "1", "--timeout", "20"});
  INFO("crash output:\n" << crash.output);
  CHECK(crash.exit_code == 1);
  CHECK(crash.output.find("case neg/f32/contiguous_7x13 (crashed):") != std::string::npos);
  CHECK(crash.output.find("argument 'self': f32 shape [7, 13]") != std::string::npos);
}

// The three ways a backward kernel goes wrong (tests/plugins/buggy/buggy_gradients.cpp),
// each caught twice: by the op's cases against the reference's backward, and by the
// gradient checks against central differences of the reference's forward op. The library's
// other two gradient kernels are right and pass both.
TEST_CASE(
    "buggy plugins: a wrong sign, a dropped term and a wrong reduction dim in backward "
    "kernels are caught by the op's cases and by the gradient checks") {
  struct BackwardBug {
    const char* fixture;
    const char* op;
    const char* passing_sample;  // a case the bug cannot reach ("" when every case does)
  };
  const BackwardBug bugs[] = {
      {"tanh_backward_sign", "tanh_backward", ""},
      {"sigmoid_backward_term", "sigmoid_backward", ""},
      // Summing over the last dim is right when that is the dim.
      {"softmax_backward_dim", "_softmax_backward_data", "last_dim_7x13"},
  };
  const std::string gradient_ops = "^(tanh_backward|sigmoid_backward|_softmax_backward_data)$";
  for (const BackwardBug& bug : bugs) {
    CAPTURE(bug.fixture);
    const std::string device = std::string("buggy_") + bug.fixture + ":0";
    const CliRun run = run_conformance(device, bug.fixture,
                                       {"--ops", gradient_ops, "--dtypes", "f32", "--jobs", "2"});
    require_failed_run(run, device);
    INFO("report: " << run.report.dump(1));
    const std::string op = bug.op;
    const std::vector<json> failed_cases = cases_with(run.report, "failed", op + "/f32/");
    CHECK_FALSE(failed_cases.empty());
    CHECK(any_message_names_element(failed_cases));
    const std::vector<json> failed_checks =
        cases_with(run.report, "failed", "gradcheck/f64/" + op + ".");
    CHECK_FALSE(failed_checks.empty());
    CHECK(any_message_has(failed_checks, "central differences"));
    // Nothing else fails: the bug is in one op.
    CHECK(cases_with(run.report, "failed").size() == failed_cases.size() + failed_checks.size());
    CHECK(cases_with(run.report, "passed", "gradcheck/f64/").size() >= 2);
    if (*bug.passing_sample)
      CHECK(cases_with(run.report, "passed", op + "/f32/" + bug.passing_sample).size() == 1);
  }
}
