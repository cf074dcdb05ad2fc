// Loading plugins from shared libraries (load_plugin): a working plugin, a text file, a
// library without the entry symbol, a missing path, and a duplicate backend name — each
// with a structured report and none crashing the host.
#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <string>

namespace {
const std::string kFixtures = BP_FIXTURE_DIR;
const std::string kPlugins = BP_PLUGIN_DIR;
}  // namespace

TEST_CASE("a plugin library loads, runs its kernels, and unregisters") {
  bp::PluginLoadReport r = bp::load_plugin(kFixtures + "/libbp_fixture_testdev.so");
  REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
  CHECK(r.plugin == "testdev");
  const bp::Device device = bp::Device::parse("test_dev:0");
  bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, device);
  bp::Tensor c = bp::add(a, a);
  CHECK(bp::to_vector<float>(c) == std::vector<float>{2, 4});
  bp::unregister_plugin("testdev");
}

TEST_CASE("a file that is not a shared library fails with the loader's reason") {
  bp::PluginLoadReport r = bp::load_plugin(kFixtures + "/not_a_library.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.plugin.find("not_a_library.so") != std::string::npos);
  CHECK(r.message.find("not a loadable shared library") != std::string::npos);
  CHECK(r.message.find("invalid ELF header") != std::string::npos);  // the dlerror text
}

TEST_CASE("a library without the entry symbol fails and names the symbol") {
  bp::PluginLoadReport r = bp::load_plugin(kFixtures + "/libbp_fixture_no_entry.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message.find("no entry symbol 'bp_plugin_query'") != std::string::npos);
}

TEST_CASE("a missing path fails without touching the loader") {
  bp::PluginLoadReport r = bp::load_plugin(kFixtures + "/does_not_exist.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message == "no such file");
}

TEST_CASE("the reference backend as a plugin library is refused next to the built-in one") {
  bp::PluginLoadReport r = bp::load_plugin(kPlugins + "/libbackplane_plugin_reference.so");
  CHECK(r.status == bp::LoadStatus::Refused);
  CHECK(r.message.find("'reference' is already loaded") != std::string::npos);
}
