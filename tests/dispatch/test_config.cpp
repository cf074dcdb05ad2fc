// The config file: every key with the file and line it came from, every error worded
// "<file>:<line>: <key>: <what>", the search order ($BACKPLANE_CONFIG, ./backplane.toml,
// $XDG_CONFIG_HOME or ~/.config, /etc), the environment overrides, and the checks that
// need the names of the loaded backends (validate_backends, skip_reason).
#include "plugin_test_support.hpp"

#include <backplane/dispatch/config.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace bp::test {
namespace {

const fs::path kFixtures = fs::path(__FILE__).parent_path() / "fixtures" / "config";

// The error of parsing `text` as backplane.toml.
std::string config_error(std::string_view text) {
  return error_of([&] { Config::parse(text, "backplane.toml"); }, ErrorCode::Parse);
}

// Sets (or unsets, for nullopt) environment variables for one scope and restores them.
class EnvGuard {
 public:
  explicit EnvGuard(std::map<std::string, std::optional<std::string>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      set(name, value);
    }
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) set(name, value);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

  static void set(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// None of the variables the config reads, for tests that set their own.
std::map<std::string, std::optional<std::string>> clean_env() {
  return {{"BACKPLANE_CONFIG", std::nullopt},      {"BACKPLANE_DEVICE", std::nullopt},
          {"BACKPLANE_PLUGIN_PATH", std::nullopt}, {"BACKPLANE_FALLBACK", std::nullopt},
          {"BACKPLANE_TRACE", std::nullopt},       {"BACKPLANE_ALLOCATOR", std::nullopt}};
}

// Runs in `dir` as the working directory for one scope.
struct InDirectory {
  fs::path saved = fs::current_path();
  explicit InDirectory(const fs::path& dir) { fs::current_path(dir); }
  ~InDirectory() { fs::current_path(saved); }
};

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("without a file every setting has its default and no origin") {
  const Config c;
  CHECK(c.plugins.search_path.value.empty());
  CHECK(c.plugins.load.value.empty());
  CHECK(c.plugins.deny.value.empty());
  CHECK(c.devices.priority.value.is_default());
  CHECK_FALSE(c.devices.default_device.value.has_value());
  CHECK(c.fallback.policy.value == FallbackPolicy::Error);
  CHECK(c.fallback.ops.empty());
  CHECK(c.backend_options.empty());
  CHECK(c.trace_file.value.empty());
  CHECK(c.memory.allocator.value == AllocatorMode::Caching);
  CHECK(c.default_selector().is_default());
  for (const Config::Entry& e : c.entries()) CHECK_MESSAGE(e.origin.empty(), e.key);
  CHECK(Config::parse("", "empty.toml").entries().size() == c.entries().size());
}

TEST_CASE("every key of a full config file, with the line it came from") {
  const fs::path file = kFixtures / "full.toml";
  const Config c = Config::load(file);
  const std::string f = file.string();
  CHECK(c.source == file);

  // A relative search path is relative to the file's directory.
  CHECK(c.plugins.search_path.value ==
        std::vector<fs::path>{kFixtures / "plugins", "/opt/acme/backplane"});
  CHECK(c.plugins.search_path.origin == f + ":4");
  CHECK(c.plugins.load.value ==
        std::vector<fs::path>{"/opt/vendor/libbackplane_plugin_acme_npu.so"});
  CHECK(c.plugins.load.origin == f + ":5");
  CHECK(c.plugins.deny.value ==
        std::vector<std::string>{"level_zero", "libbackplane_plugin_opencl.so"});
  CHECK(c.plugins.deny.origin == f + ":6");

  CHECK(c.devices.priority.value == DeviceSelector::parse("cuda,rocm,cpu,acme_npu"));
  CHECK(c.devices.priority.origin == f + ":9");
  REQUIRE(c.devices.default_device.value.has_value());
  CHECK(*c.devices.default_device.value == DeviceSelector::parse("cuda:1"));
  CHECK(c.devices.default_device.origin == f + ":10");
  CHECK(c.default_selector() == DeviceSelector::parse("cuda:1"));

  CHECK(c.fallback.policy.value == FallbackPolicy::Cpu);
  CHECK(c.fallback.policy.origin == f + ":13");
  REQUIRE(c.fallback.ops.size() == 2);
  CHECK(c.fallback.ops.at("cuda").value == std::vector<std::string>{"layer_norm", "add.Tensor"});
  CHECK(c.fallback.ops.at("cuda").origin == f + ":16");
  CHECK(c.fallback.ops.at("rocm").value.empty());
  CHECK(c.fallback.ops.at("rocm").origin == f + ":17");

  REQUIRE(c.backend_options.size() == 2);
  CHECK(c.backend_options.at("cuda").value == "streams = 4");
  CHECK(c.backend_options.at("cuda").origin == f + ":20");
  // A table reaches the plugin as TOML text holding the same values.
  const Setting<std::string>& acme = c.backend_options.at("acme_npu");
  CHECK(acme.origin == f + ":22");
  CHECK(acme.value.find("firmware = '/lib/firmware/acme.bin'\n") != std::string::npos);
  CHECK(acme.value.find("queues = 2") != std::string::npos);

  CHECK(c.memory.allocator.value == AllocatorMode::Direct);
  CHECK(c.memory.allocator.origin == f + ":27");

  // What `backplane info` will show.
  std::map<std::string, std::pair<std::string, std::string>> entries;
  for (const Config::Entry& e : c.entries()) entries[e.key] = {e.value, e.origin};
  CHECK(entries["devices.priority"] ==
        std::pair<std::string, std::string>{"cuda:*,rocm:*,cpu:*,acme_npu:*", f + ":9"});
  CHECK(entries["plugins.deny"] ==
        std::pair<std::string, std::string>{"[\"level_zero\", \"libbackplane_plugin_opencl.so\"]",
                                            f + ":6"});
  CHECK(entries["fallback.policy"] == std::pair<std::string, std::string>{"cpu", f + ":13"});
  CHECK(entries["fallback.ops.cuda"] ==
        std::pair<std::string, std::string>{"[\"layer_norm\", \"add.Tensor\"]", f + ":16"});
  CHECK(entries["backends.cuda.options"] ==
        std::pair<std::string, std::string>{"streams = 4", f + ":20"});
  CHECK(entries["memory.allocator"] == std::pair<std::string, std::string>{"direct", f + ":27"});
  CHECK(entries["trace"] == std::pair<std::string, std::string>{"", ""});
}

TEST_CASE("relative paths stay as written when parsing text without a directory") {
  const Config c = Config::parse("[plugins]\nload = [\"a/libbackplane_plugin_x.so\"]\n", "t.toml");
  CHECK(c.plugins.load.value == std::vector<fs::path>{"a/libbackplane_plugin_x.so"});
  CHECK(c.plugins.load.origin == "t.toml:2");
}

TEST_CASE("unknown keys name the file, the line and the full key") {
  CHECK(config_error("[plugin]\nsearch_path = []\n") ==
        "backplane.toml:1: plugin: unknown key (expected plugins, devices, fallback, memory or "
        "backends)");
  CHECK(config_error("# c\n[plugins]\nserch_path = [\"x\"]\n") ==
        "backplane.toml:3: plugins.serch_path: unknown key (expected search_path, load or deny)");
  CHECK(config_error("[devices]\npriority = \"cpu\"\ndefualt = \"cpu\"\n") ==
        "backplane.toml:3: devices.defualt: unknown key (expected priority or default)");
  CHECK(config_error("[fallback]\n\npolicies = \"cpu\"\n") ==
        "backplane.toml:3: fallback.policies: unknown key (expected policy or ops)");
  CHECK(config_error("[backends.cuda]\noption = \"x\"\n") ==
        "backplane.toml:2: backends.cuda.option: unknown key (expected options)");
  CHECK(config_error("trace = \"t.json\"\n") ==
        "backplane.toml:1: trace: unknown key (expected plugins, devices, fallback, memory or "
        "backends)");
  CHECK(config_error("[memory]\nallocater = \"direct\"\n") ==
        "backplane.toml:2: memory.allocater: unknown key (expected allocator)");
}

TEST_CASE("wrong types name the key and both types") {
  CHECK(config_error("plugins = 1\n") ==
        "backplane.toml:1: plugins: expected a table, got an integer");
  CHECK(config_error("[plugins]\nsearch_path = \"/opt\"\n") ==
        "backplane.toml:2: plugins.search_path: expected an array of strings, got a string");
  CHECK(config_error("[plugins]\nload = [\"a.so\",\n  2]\n") ==
        "backplane.toml:3: plugins.load[1]: expected a string, got an integer");
  CHECK(config_error("[plugins]\ndeny = [\"\"]\n") ==
        "backplane.toml:2: plugins.deny[0]: expected a non-empty string");
  CHECK(config_error("[devices]\npriority = [\"cuda\", \"cpu\"]\n") ==
        "backplane.toml:2: devices.priority: expected a string, got an array");
  CHECK(config_error("[devices]\ndefault = 0\n") ==
        "backplane.toml:2: devices.default: expected a string, got an integer");
  CHECK(config_error("[fallback]\npolicy = true\n") ==
        "backplane.toml:2: fallback.policy: expected a string, got a boolean");
  CHECK(config_error("[fallback]\nops = [\"add\"]\n") ==
        "backplane.toml:2: fallback.ops: expected a table, got an array");
  CHECK(config_error("[fallback.ops]\ncuda = \"add\"\n") ==
        "backplane.toml:2: fallback.ops.cuda: expected an array of strings, got a string");
  CHECK(config_error("[backends]\ncuda = \"x\"\n") ==
        "backplane.toml:2: backends.cuda: expected a table, got a string");
  CHECK(config_error("[memory]\nallocator = false\n") ==
        "backplane.toml:2: memory.allocator: expected a string, got a boolean");
  CHECK(config_error("[backends.cuda]\noptions = 4\n") ==
        "backplane.toml:2: backends.cuda.options: expected a string or a table, got an integer");
}

TEST_CASE("bad values: fallback policy, selectors, backend names, operators") {
  CHECK(config_error("[devices]\npriority = \"cpu\"\n\n\n\n[fallback]\npolicy = \"gpu\"\n") ==
        "backplane.toml:7: fallback.policy: expected \"error\" or \"cpu\", got \"gpu\"");
  CHECK(config_error("[memory]\nallocator = \"pooled\"\n") ==
        "backplane.toml:2: memory.allocator: expected \"caching\" or \"direct\", got \"pooled\"");
  CHECK(config_error("[devices]\npriority = \"cuda:x\"\n") ==
        "backplane.toml:2: devices.priority: device selector 'cuda:x': column 6: expected a "
        "device index or '*' after ':', found 'x'");
  CHECK(config_error("[devices]\ndefault = \"cuda,\"\n") ==
        "backplane.toml:2: devices.default: device selector 'cuda,': column 6: expected a "
        "backend name or '!' ([a-z_][a-z0-9_]*), found the end");
  // A default device whose plugin the priority list would never open.
  CHECK(config_error("[devices]\npriority = \"cuda\"\ndefault = \"cpu:0\"\n") ==
        "backplane.toml:3: devices.default: backend 'cpu' is excluded by devices.priority "
        "'cuda:*' (backplane.toml:2)");
  CHECK(config_error("[fallback.ops]\nCUDA = []\n") ==
        "backplane.toml:2: fallback.ops.CUDA: 'CUDA' is not a backend name ([a-z_][a-z0-9_]*)");
  CHECK(config_error("[backends.\"acme-npu\"]\noptions = \"\"\n") ==
        "backplane.toml:1: backends.acme-npu: 'acme-npu' is not a backend name "
        "([a-z_][a-z0-9_]*)");

  const std::string unknown_op =
      config_error("[fallback.ops]\ncuda = [\"add.Tensor\", \"ad.Tensor\"]\n");
  CHECK(unknown_op.starts_with(
      "backplane.toml:2: fallback.ops.cuda[1]: unknown operator 'ad.Tensor'; did you mean "));
  CHECK(unknown_op.find("'add.Tensor'") != std::string::npos);
  CHECK(config_error("[fallback.ops]\ncpu = [\"nosuchop\"]\n") ==
        "backplane.toml:2: fallback.ops.cpu[0]: unknown operator 'nosuchop'");
  // Factories have no inputs to copy to the CPU: they cannot fall back.
  CHECK(config_error("[fallback.ops]\ncuda = [\"arange\"]\n") ==
        "backplane.toml:2: fallback.ops.cuda[0]: operator 'arange.start_step' cannot fall back "
        "to the CPU (docs/fallback.md lists the operators that cannot)");
}

TEST_CASE("TOML syntax errors and unreadable files") {
  const std::string syntax = config_error("[devices]\npriority = cuda\n");
  CHECK(syntax.starts_with("backplane.toml:2: TOML syntax error: "));
  CHECK(config_error("[plugins]\nload = []\nload = []\n")
            .starts_with("backplane.toml:3: TOML syntax error: "));
  CHECK(error_of([] { Config::load("/nonexistent/backplane.toml"); }, ErrorCode::InvalidArgument) ==
        "config file '/nonexistent/backplane.toml' cannot be read");
}

TEST_CASE("fallback.ops forces an op by full name or by every overload of a base name") {
  const Config c = Config::parse("[fallback.ops]\ncuda = [\"add\", \"mul.Tensor\"]\n", "t.toml");
  CHECK(c.forces_fallback("cuda", "add.Tensor"));
  CHECK(c.forces_fallback("cuda", "add.Scalar"));
  CHECK(c.forces_fallback("cuda", "mul.Tensor"));
  CHECK_FALSE(c.forces_fallback("cuda", "mul.Scalar"));
  CHECK_FALSE(c.forces_fallback("cuda", "sub.Tensor"));
  CHECK_FALSE(c.forces_fallback("rocm", "add.Tensor"));
  // Expanded for bp::force_fallback, which takes full names.
  std::vector<std::string> forced = c.forced_ops("cuda");
  std::sort(forced.begin(), forced.end());
  CHECK(forced == std::vector<std::string>{"add.Scalar", "add.Tensor", "mul.Tensor"});
  CHECK(c.forced_ops("rocm").empty());
}

TEST_CASE("a denied or excluded plugin file is skipped, with the setting that says so") {
  CHECK(plugin_name_from_file("/x/libbackplane_plugin_opencl.so") == "opencl");
  CHECK(plugin_name_from_file("libbackplane_plugin_.so") == std::nullopt);
  CHECK(plugin_name_from_file("/x/libacme.so") == std::nullopt);

  const Config c = Config::parse(
      "[plugins]\ndeny = [\"level_zero\", \"libacme.so\"]\n[devices]\npriority = \"!rocm\"\n",
      "b.toml");
  CHECK(c.skip_reason("/p/libbackplane_plugin_level_zero.so") ==
        "denied by plugins.deny (b.toml:2)");
  CHECK(c.skip_reason("/p/libacme.so") == "denied by plugins.deny (b.toml:2)");
  CHECK(c.skip_reason("/p/libbackplane_plugin_rocm.so") ==
        "backend 'rocm' excluded by devices.priority '!rocm' (b.toml:4)");
  CHECK(c.skip_reason("/p/libbackplane_plugin_cuda.so") == std::nullopt);
  CHECK(c.skip_reason("/p/libother.so") == std::nullopt);
  CHECK(c.denies_plugin("level_zero"));
  CHECK_FALSE(c.denies_plugin("cuda"));

  // A positive list excludes every backend it does not name.
  const Config list = Config::parse("[devices]\npriority = \"cpu\"\n", "l.toml");
  CHECK(list.skip_reason("libbackplane_plugin_cuda.so") ==
        "backend 'cuda' excluded by devices.priority 'cpu:*' (l.toml:2)");
  CHECK(list.skip_reason("libbackplane_plugin_cpu.so") == std::nullopt);
  // An out-of-tree plugin's file may register a backend of another name: a list does not
  // rule it out before it is opened, a negation of its name does.
  CHECK(list.skip_reason("libbackplane_plugin_acme.so") == std::nullopt);
  const Config negated = Config::parse("[devices]\npriority = \"cpu, !acme\"\n", "n.toml");
  CHECK(negated.skip_reason("libbackplane_plugin_acme.so") ==
        "backend 'acme' excluded by devices.priority 'cpu:*,!acme' (n.toml:2)");
}

TEST_CASE("backend names are checked once the loaded backends are known") {
  const std::vector<std::string> backends{"reference", "cpu", "cuda"};
  const std::vector<std::string> plugins{"reference", "cpu", "nv"};
  auto validate_error = [&](std::string_view text) {
    const Config c = Config::parse(text, "v.toml");
    return error_of([&] { c.validate_backends(backends, plugins); }, ErrorCode::InvalidArgument);
  };
  const Config good = Config::parse(
      "[devices]\npriority = \"cuda,!cpu\"\n[fallback.ops]\ncuda = []\n[backends.nv]\noptions = "
      "\"\"\n[backends.cpu]\noptions = \"\"\n",
      "v.toml");
  CHECK_NOTHROW(good.validate_backends(backends, plugins));

  CHECK(validate_error("[fallback.ops]\ncpu = []\ncdua = [\"add\"]\n") ==
        "v.toml:3: fallback.ops.cdua: unknown backend 'cdua' (known: cpu, cuda, reference); did "
        "you mean 'cuda'?");
  CHECK(validate_error("\n[devices]\npriority = \"cpu,rocm\"\n") ==
        "v.toml:3: devices.priority 'cpu:*,rocm:*': unknown backend 'rocm' (known: cpu, cuda, "
        "reference)");
  CHECK(validate_error("[devices]\ndefault = \"cudaa:0\"\n") ==
        "v.toml:2: devices.default 'cudaa:0': unknown backend 'cudaa' (known: cpu, cuda, "
        "reference); did you mean 'cuda'?");
  // [backends.<name>] may name a plugin or a backend.
  CHECK(validate_error("[backends.nvv]\noptions = \"\"\n") ==
        "v.toml:2: backends.nvv: unknown backend 'nvv' (known: cpu, cuda, nv, reference); did "
        "you mean 'nv'?");

  // An environment variable is named as the origin.
  EnvGuard env(clean_env());
  EnvGuard::set("BACKPLANE_DEVICE", "opencl:0");
  Config from_env;
  apply_environment(from_env);
  CHECK(error_of([&] { from_env.validate_backends(backends); }, ErrorCode::InvalidArgument) ==
        "BACKPLANE_DEVICE: devices.priority 'opencl:0': unknown backend 'opencl' (known: cpu, "
        "cuda, reference)");
}

TEST_CASE("environment variables override the file and say so") {
  EnvGuard env(clean_env());
  const std::string text =
      "[plugins]\nsearch_path = [\"/a\", \"/b\"]\n[devices]\npriority = \"cuda,cpu\"\n"
      "default = \"cuda:1\"\n[fallback]\npolicy = \"error\"\n";

  // Unset and empty variables change nothing (nor does a path list naming no directory).
  EnvGuard::set("BACKPLANE_FALLBACK", "");
  EnvGuard::set("BACKPLANE_PLUGIN_PATH", ":");
  Config same = Config::parse(text, "e.toml");
  apply_environment(same);
  CHECK(same.fallback.policy.origin == "e.toml:7");
  CHECK(same.devices.priority.origin == "e.toml:4");
  CHECK(same.plugins.search_path.origin == "e.toml:2");
  CHECK(same.plugins.search_path.value == std::vector<fs::path>{"/a", "/b"});

  EnvGuard::set("BACKPLANE_DEVICE", "rocm:0, !cpu");
  EnvGuard::set("BACKPLANE_PLUGIN_PATH", "/x::/y");
  EnvGuard::set("BACKPLANE_FALLBACK", "cpu");
  EnvGuard::set("BACKPLANE_TRACE", "/tmp/trace.json");
  EnvGuard::set("BACKPLANE_ALLOCATOR", "direct");
  Config c = Config::parse(text + "[memory]\nallocator = \"caching\"\n", "e.toml");
  apply_environment(c);
  CHECK(c.devices.priority.value == DeviceSelector::parse("rocm:0,!cpu"));
  CHECK(c.devices.priority.origin == "BACKPLANE_DEVICE");
  REQUIRE(c.devices.default_device.value.has_value());
  CHECK(*c.devices.default_device.value == DeviceSelector::parse("rocm:0,!cpu"));
  CHECK(c.devices.default_device.origin == "BACKPLANE_DEVICE");
  CHECK(c.plugins.search_path.value == std::vector<fs::path>{"/x", "/y", "/a", "/b"});
  CHECK(c.plugins.search_path.origin == "BACKPLANE_PLUGIN_PATH, e.toml:2");
  CHECK(c.fallback.policy.value == FallbackPolicy::Cpu);
  CHECK(c.fallback.policy.origin == "BACKPLANE_FALLBACK");
  CHECK(c.trace_file.value == "/tmp/trace.json");
  CHECK(c.trace_file.origin == "BACKPLANE_TRACE");
  CHECK(c.memory.allocator.value == AllocatorMode::Direct);
  CHECK(c.memory.allocator.origin == "BACKPLANE_ALLOCATOR");

  Config defaults;
  apply_environment(defaults);
  CHECK(defaults.plugins.search_path.origin == "BACKPLANE_PLUGIN_PATH");
  CHECK(defaults.plugins.search_path.value == std::vector<fs::path>{"/x", "/y"});
}

TEST_CASE("bad environment values name the variable") {
  EnvGuard env(clean_env());
  Config c;
  EnvGuard::set("BACKPLANE_FALLBACK", "gpu");
  CHECK(error_of([&] { apply_environment(c); }, ErrorCode::Parse) ==
        "BACKPLANE_FALLBACK: expected \"error\" or \"cpu\", got \"gpu\"");
  EnvGuard::set("BACKPLANE_FALLBACK", std::nullopt);
  EnvGuard::set("BACKPLANE_DEVICE", "cuda:");
  CHECK(error_of([&] { apply_environment(c); }, ErrorCode::Parse) ==
        "BACKPLANE_DEVICE: device selector 'cuda:': column 6: expected a device index or '*' "
        "after ':', found the end");
  EnvGuard::set("BACKPLANE_DEVICE", std::nullopt);
  EnvGuard::set("BACKPLANE_ALLOCATOR", "none");
  CHECK(error_of([&] { apply_environment(c); }, ErrorCode::Parse) ==
        "BACKPLANE_ALLOCATOR: expected \"caching\" or \"direct\", got \"none\"");
}

TEST_CASE("the config file search order") {
  ScratchDir d("config_search");
  EnvGuard env(clean_env());
  EnvGuard home({{"HOME", (d.dir / "home").string()}, {"XDG_CONFIG_HOME", std::nullopt}});
  InDirectory cwd(d.dir);
  // /etc/backplane/config.toml is last; on a machine that has one it is what "none" finds.
  const fs::path etc = "/etc/backplane/config.toml";
  const std::optional<fs::path> last =
      fs::exists(etc) ? std::optional<fs::path>(etc) : std::nullopt;

  CHECK(find_config_file() == last);

  const fs::path home_file = d.dir / "home" / ".config" / "backplane" / "config.toml";
  write_file(home_file, "");
  CHECK(find_config_file() == home_file);

  // XDG_CONFIG_HOME replaces ~/.config (and then ~/.config is not read).
  EnvGuard::set("XDG_CONFIG_HOME", (d.dir / "xdg").string());
  CHECK(find_config_file() == last);
  const fs::path xdg_file = d.dir / "xdg" / "backplane" / "config.toml";
  write_file(xdg_file, "");
  CHECK(find_config_file() == xdg_file);

  write_file(d.dir / "backplane.toml", "");
  CHECK(find_config_file() == fs::path("backplane.toml"));

  const fs::path named = d.dir / "named.toml";
  write_file(named, "[fallback]\npolicy = \"cpu\"\n");
  EnvGuard::set("BACKPLANE_CONFIG", named.string());
  CHECK(find_config_file() == named);

  // load_config(): the file found, then the environment.
  EnvGuard::set("BACKPLANE_TRACE", "t.json");
  const Config c = load_config();
  CHECK(c.source == named);
  CHECK(c.fallback.policy.value == FallbackPolicy::Cpu);
  CHECK(c.fallback.policy.origin == named.string() + ":2");
  CHECK(c.trace_file.origin == "BACKPLANE_TRACE");

  // A $BACKPLANE_CONFIG naming no file is an error, never "use the defaults".
  EnvGuard::set("BACKPLANE_CONFIG", (d.dir / "missing.toml").string());
  CHECK(error_of([] { find_config_file(); }, ErrorCode::InvalidArgument) ==
        "BACKPLANE_CONFIG names '" + (d.dir / "missing.toml").string() +
            "', which is not a file (unset it to use the default search order)");
  CHECK(error_of([] { load_config(); }, ErrorCode::InvalidArgument)
            .starts_with("BACKPLANE_CONFIG names '"));
}

}  // namespace bp::test
