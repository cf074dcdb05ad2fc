// Registering plugins through the C ABI: descriptor checks, ABI version negotiation, and
// every way init can fail — each reported, none leaving anything registered.
#include "fixture_plugin.hpp"

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cstring>

using bp::testing::TestPluginMode;

namespace {

bool test_dev_registered() {
  for (const auto& b : bp::backends())
    if (b.name == "test_dev") return true;
  return false;
}

bp_plugin_descriptor copy_of_test_descriptor() {
  bp_plugin_descriptor d;
  std::memcpy(&d, bp::testing::test_plugin_descriptor(), sizeof d);
  return d;
}

}  // namespace

TEST_CASE("a NULL or truncated descriptor fails to load") {
  CHECK(bp::register_plugin(nullptr, "null.so").status == bp::LoadStatus::Failed);
  bp_plugin_descriptor d = copy_of_test_descriptor();
  d.struct_size = 8;
  auto r = bp::register_plugin(&d, "small.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message.find("struct_size 8") != std::string::npos);
  CHECK_FALSE(test_dev_registered());
}

TEST_CASE("a plugin of another ABI major is refused") {
  bp_plugin_descriptor d = copy_of_test_descriptor();
  d.abi_major = BP_ABI_MAJOR + 1;
  auto r = bp::register_plugin(&d, "future.so");
  CHECK(r.status == bp::LoadStatus::Refused);
  CHECK(r.message.find("major version must match") != std::string::npos);
  CHECK_FALSE(test_dev_registered());
}

static_assert(BP_ABI_MAJOR == 1 && BP_ABI_MINOR == 3, "update the expected ABI versions");

TEST_CASE("a plugin built against a newer minor is refused with both versions") {
  bp_plugin_descriptor d = copy_of_test_descriptor();
  d.abi_minor = BP_ABI_MINOR + 1;
  auto r = bp::register_plugin(&d, "newer.so");
  CHECK(r.status == bp::LoadStatus::Refused);
  CHECK(r.message.starts_with("built against ABI 1.4, this runtime provides 1.3"));
  CHECK(r.abi_minor == BP_ABI_MINOR + 1);
  CHECK(r.path.empty());  // registered from a descriptor, not a library file
}

TEST_CASE("a plugin built against an older minor (ABI 1.0) loads") {
  bp_plugin_descriptor d = copy_of_test_descriptor();
  d.abi_minor = 0;
  auto r = bp::register_plugin(&d, "older.so");
  CHECK(r.status == bp::LoadStatus::Loaded);
  CHECK(r.abi_minor == 0);
  CHECK(test_dev_registered());
  bp::unregister_plugin(r.plugin);
  CHECK_FALSE(test_dev_registered());
}

TEST_CASE("an init that fails is reported with the plugin's message and rolled back") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::InitFails),
                               "fails.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message.find("the device did not answer") != std::string::npos);
  CHECK_FALSE(test_dev_registered());
  for (const auto& e : bp::op_table("add.Tensor")) CHECK(e.backend != "test_dev");
}

TEST_CASE("an init that throws across the C boundary is reported, not propagated") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::InitThrows),
                               "throws.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message.find("C++ exception") != std::string::npos);
  CHECK_FALSE(test_dev_registered());
}

TEST_CASE("registering a kernel for an unknown op fails the plugin and names the op") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::UnknownOp),
                               "unknown-op.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  CHECK(r.message.find("frobnicate.Tensor") != std::string::npos);
  CHECK_FALSE(test_dev_registered());
}

TEST_CASE("a second kernel for the same op and backend fails the plugin; the same one merges") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::DuplicateKernel),
                               "duplicate.so");
  CHECK(r.status == bp::LoadStatus::Failed);
  // The f64 registration of the same function was accepted; the other function was not.
  CHECK(r.message.find("register_kernel(add.Tensor): backend 'test_dev' already has another "
                       "kernel for this op (f32, f64)") != std::string::npos);
  CHECK_FALSE(test_dev_registered());
}

TEST_CASE("a backend without devices is reported as no-devices with its reason") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::NoDevices),
                               "nodev.so");
  CHECK(r.status == bp::LoadStatus::NoDevices);
  CHECK(r.message == "test: no hardware attached");
  CHECK(r.backends == std::vector<std::string>{"test_dev"});
  std::string msg;
  try {
    bp::empty({1}, bp::ScalarType::Float32, bp::Device::parse("test_dev:0"));
  } catch (const bp::Error& e) {
    msg = e.what();
  }
  CHECK(msg.find("no hardware attached") != std::string::npos);
  bp::unregister_plugin("testdev");
}

TEST_CASE("a second plugin with a loaded plugin's name is refused") {
  auto first = bp::register_plugin(bp::testing::test_plugin_descriptor(), "a.so");
  REQUIRE(first.status == bp::LoadStatus::Loaded);
  auto second = bp::register_plugin(bp::testing::test_plugin_descriptor(), "b.so");
  CHECK(second.status == bp::LoadStatus::Refused);
  CHECK(second.message.find("already loaded (from a.so)") != std::string::npos);
  bp::unregister_plugin("testdev");
}

TEST_CASE("every load is recorded in the plugin reports") {
  bool reference_loaded = false;
  for (const auto& r : bp::plugin_reports())
    if (r.plugin == "reference" && r.status == bp::LoadStatus::Loaded) reference_loaded = true;
  CHECK(reference_loaded);
}

TEST_CASE("device_attributes passes a plugin's key=value line through, and its failure") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(), "attributes.so");
  REQUIRE(r.status == bp::LoadStatus::Loaded);
  const bp::Device dev = bp::Device::parse("test_dev:0");
  const std::vector<bp::DeviceAttribute> attributes = bp::device_attributes(dev);
  // "fixture=testdev  flag  level=2": runs of spaces separate, a bare word is a key.
  REQUIRE(attributes.size() == 3);
  CHECK(attributes[0].key == "fixture");
  CHECK(attributes[0].value == "testdev");
  CHECK(attributes[1].key == "flag");
  CHECK(attributes[1].value == "");
  CHECK(bp::device_attribute(attributes, "level") == "2");
  CHECK(bp::device_attribute(attributes, "isa") == "");
  CHECK(bp::format_device_attributes(attributes) == "fixture=testdev flag level=2");
  bp::unregister_plugin(r.plugin);

  r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::AttributesFail),
                          "attributes.so");
  REQUIRE(r.status == bp::LoadStatus::Loaded);
  std::string msg;
  try {
    bp::device_attributes(dev);
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::Backend);
    msg = e.what();
  }
  CHECK(msg ==
        "test_dev:0: device_attributes returned status 4: test: the attributes are unreadable");
  bp::unregister_plugin(r.plugin);
}

TEST_CASE("a device API of ABI 1.1's size has no attributes, and is never asked") {
  auto r = bp::register_plugin(bp::testing::test_plugin_descriptor(TestPluginMode::DeviceApiV1_1),
                               "v1_1.so");
  REQUIRE(r.status == bp::LoadStatus::Loaded);
  CHECK(bp::device_attributes(bp::Device::parse("test_dev:0")).empty());
  bp::unregister_plugin(r.plugin);
  CHECK_THROWS_AS(bp::device_attributes(bp::Device::parse("test_dev:0")), bp::Error);
}
