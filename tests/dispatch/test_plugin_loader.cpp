// Loading plugins from shared libraries (load_plugin): a working plugin, a text file, a
// library without the entry symbol, a missing path and a duplicate plugin name — each with
// a structured report, one warning line for those refused or failed, none crashing the
// host — and explicit unloading followed by loading the same library again.
#include "plugin_test_support.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

namespace bp::test {
namespace {

bool test_dev_listed(const std::string& op) {
  for (const OpTableEntry& e : op_table(op))
    if (e.backend == "test_dev") return true;
  return false;
}

}  // namespace

TEST_CASE("a plugin library loads, runs its kernels, and unregisters") {
  const fs::path path = fixture("testdev");
  PluginLoadReport r = load_plugin(path);
  REQUIRE_MESSAGE(r.status == LoadStatus::Loaded, r.message);
  CHECK(r.plugin == "testdev");
  CHECK(r.message.empty());
  CHECK(r.path == path.string());
  CHECK(r.version == "1.0");
  CHECK(r.vendor == "Backplane tests");
  CHECK(r.abi_major == BP_ABI_MAJOR);
  CHECK(r.abi_minor == BP_ABI_MINOR);
  CHECK(r.backends == std::vector<std::string>{"test_dev"});
  const Device device = Device::parse("test_dev:0");
  Tensor a = from_vector<float>({1, 2}, {2}, device);
  Tensor c = add(a, a);
  CHECK(to_vector<float>(c) == std::vector<float>{2, 4});
  unregister_plugin("testdev");
}

TEST_CASE("a file that is not a shared library fails with the loader's reason") {
  PluginLoadReport r = load_plugin(fixture("not_a_library.so"), {.warn = false});
  CHECK(r.status == LoadStatus::Failed);
  CHECK(r.plugin == fixture("not_a_library.so").string());
  CHECK(r.message.find("not a loadable shared library") != std::string::npos);
  CHECK(r.message.find("invalid ELF header") != std::string::npos);  // the dlerror text
}

TEST_CASE("a library without the entry symbol fails and names the symbol") {
  PluginLoadReport r = load_plugin(fixture("no_entry"), {.warn = false});
  CHECK(r.status == LoadStatus::Failed);
  CHECK(r.message.find("no entry symbol 'bp_plugin_query'") != std::string::npos);
}

TEST_CASE("a missing path fails without touching the loader") {
  PluginLoadReport r = load_plugin(fixture("does_not_exist.so"), {.warn = false});
  CHECK(r.status == LoadStatus::Failed);
  CHECK(r.message == "no such file");
  CHECK(r.path == fixture("does_not_exist.so").string());
}

TEST_CASE("the reference backend as a plugin library is refused next to the built-in one") {
  PluginLoadReport r = load_plugin(BP_REFERENCE_MODULE, {.warn = false});
  CHECK(r.status == LoadStatus::Refused);
  CHECK(r.message == "a plugin named 'reference' is already loaded (from built-in)");
  CHECK(r.version == "0.1.0");
}

TEST_CASE("the built-in reference is the first report, with no library file") {
  const std::vector<PluginLoadReport> reports = plugin_reports();
  REQUIRE_FALSE(reports.empty());
  CHECK(reports[0].plugin == "reference");
  CHECK(reports[0].status == LoadStatus::Loaded);
  CHECK(reports[0].path.empty());
  CHECK(reports[0].backends == std::vector<std::string>{"reference"});
}

TEST_CASE("load_plugin prints one warning line for a refused or failed plugin, none else") {
  const std::string failed = capture_stderr([] { load_plugin(fixture("init_error")); });
  CHECK(failed ==
        fmt::format("backplane: warning: plugin init_error ({}) failed to load: init failed "
                    "with status 4 (device error): init_error: the firmware did not answer\n",
                    fixture("init_error").string()));
  const std::string refused = capture_stderr([] { load_plugin(fixture("abi_major")); });
  CHECK(lines_of(refused).size() == 1);
  CHECK(refused.starts_with("backplane: warning: plugin abi_major ("));
  CHECK(refused.find(") was refused: built against ABI 2.0") != std::string::npos);
  // Without a descriptor the path is the plugin's name, said once.
  const std::string missing = capture_stderr([] { load_plugin(fixture("missing.so")); });
  CHECK(missing == fmt::format("backplane: warning: plugin {} failed to load: no such file\n",
                               fixture("missing.so").string()));
  CHECK(capture_stderr([] { load_plugin(fixture("init_error"), {.warn = false}); }).empty());
  CHECK(capture_stderr([] { load_plugin(fixture("no_devices")); }).empty());
  CHECK(capture_stderr([] { load_plugin(fixture("testdev")); }).empty());
  unregister_plugin("no_devices");
  unregister_plugin("testdev");
}

TEST_CASE("an unloaded plugin leaves no kernel, fails calls on its device, and loads again") {
  REQUIRE(load_plugin(fixture("testdev")).status == LoadStatus::Loaded);
  REQUIRE(test_dev_listed("add.Tensor"));
  const Device device = Device::parse("test_dev:0");
  CHECK(to_vector<float>(add(from_vector<float>({1}, {1}, device),
                             from_vector<float>({2}, {1}, device))) == std::vector<float>{3});

  unregister_plugin("testdev");
  CHECK_FALSE(test_dev_listed("add.Tensor"));
  CHECK_FALSE(test_dev_listed("fill_.Scalar"));
  for (const BackendInfo& b : backends()) CHECK(b.name != "test_dev");
  std::string message;
  try {
    (void)empty({2}, ScalarType::Float32, device);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    message = e.what();
  }
  INFO(message);
  CHECK(
      message.starts_with("empty: device test_dev:0 is not available: no backend 'test_dev' is "
                          "loaded (loaded: reference"));
  CHECK_THROWS_AS(unregister_plugin("testdev"), Error);  // already gone

  // The same library registers again, on the same dispatch slot, and runs.
  const PluginLoadReport again = load_plugin(fixture("testdev"));
  REQUIRE_MESSAGE(again.status == LoadStatus::Loaded, again.message);
  CHECK(test_dev_listed("add.Tensor"));
  CHECK(Device::parse("test_dev:0") == device);
  CHECK(to_vector<float>(add(from_vector<float>({1}, {1}, device),
                             from_vector<float>({2}, {1}, device))) == std::vector<float>{3});
  unregister_plugin("testdev");
}

}  // namespace bp::test
