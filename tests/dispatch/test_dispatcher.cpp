// The dispatcher: key selection by device, a plugin's kernels reached through the C ABI,
// composites running when a backend lacks a kernel, missing kernels and unsupported dtypes,
// mixed devices, out/in-place rules, the table dump, and unregistration.
#include "fixture_plugin.hpp"

#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatch_key.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <doctest/doctest.h>

#include <string>

using bp::testing::TestPluginMode;

using bp::test::error_of;

namespace {

bp::Device load_test_plugin() {
  bp::PluginLoadReport r = bp::register_plugin(bp::testing::test_plugin_descriptor(), "test");
  REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
  return bp::Device::parse("test_dev:0");
}

struct TestPluginGuard {
  bp::Device device = load_test_plugin();
  ~TestPluginGuard() { bp::unregister_plugin("testdev"); }
};

}  // namespace

TEST_CASE("the highest key of a key set picks the backend slot") {
  using bp::DispatchKeySet;
  auto ks = DispatchKeySet::backend(bp::device_types::CPU) |
            DispatchKeySet::backend(bp::device_types::CUDA);
  CHECK(ks.highest() == bp::device_types::CUDA);
  CHECK((ks | DispatchKeySet::layer(bp::LayerKey::Tracing)).highest() == 48);
  CHECK((ks | DispatchKeySet::layer(bp::LayerKey::Tracing)).backends_only().raw() == ks.raw());
}

TEST_CASE("an out-of-tree backend with a device is preferred to the reference backend") {
  TestPluginGuard guard;
  CHECK(bp::default_device() == guard.device);
}

TEST_CASE("the reference backend is built in and is the default device without others") {
  auto backends = bp::backends();
  REQUIRE(!backends.empty());
  CHECK(backends[0].name == "reference");
  CHECK(backends[0].device_count == 1);
  CHECK(bp::default_device() == bp::Device(bp::device_types::Reference, 0));
  CHECK(bp::device_info(bp::default_device()).host_accessible);
}

TEST_CASE("a plugin's kernel runs for tensors on its device") {
  TestPluginGuard guard;
  auto& state = bp::testing::test_plugin_state();
  const int before = state.add_calls;
  bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, guard.device);
  bp::Tensor b = bp::from_vector<float>({10, 20, 30}, {3}, guard.device);
  bp::Tensor c = bp::add(a, b, 2);
  CHECK(state.add_calls == before + 1);
  CHECK(c.device() == guard.device);
  CHECK(bp::to_vector<float>(bp::to(c, bp::default_device())) == std::vector<float>{21, 42, 63});
}

TEST_CASE("broadcast inputs reach the kernel expanded to the output shape") {
  TestPluginGuard guard;
  bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {1, 3}, guard.device);
  bp::Tensor b = bp::from_vector<float>({10, 20}, {2, 1}, guard.device);
  bp::Tensor c = bp::add(a, b);
  CHECK(c.sizes() == bp::Shape{2, 3});
  CHECK(bp::to_vector<float>(bp::to(c, bp::default_device())) ==
        std::vector<float>{11, 12, 13, 21, 22, 23});
}

TEST_CASE("a composite runs through its decomposition when the backend has no kernel") {
  TestPluginGuard guard;
  auto& state = bp::testing::test_plugin_state();
  const int adds = state.add_calls, fills = state.fill_calls;
  bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, guard.device);
  bp::Tensor c = bp::add(a, bp::Scalar(0.5));  // add.Scalar -> scalar_tensor + add.Tensor
  CHECK(state.add_calls == adds + 1);
  CHECK(state.fill_calls >= fills + 1);
  CHECK(bp::to_vector<float>(bp::to(c, bp::default_device())) == std::vector<float>{1.5f, 2.5f});
}

TEST_CASE("a missing kernel names the op, the device and the backends that have one") {
  TestPluginGuard guard;
  bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, guard.device);
  std::string msg = error_of([&] { bp::mul(a, a); });
  CHECK(msg.find("mul.Tensor") != std::string::npos);
  CHECK(msg.find("test_dev:0") != std::string::npos);
  CHECK(msg.find("reference") != std::string::npos);
}

TEST_CASE("a dtype the backend did not register is an error listing what it supports") {
  TestPluginGuard guard;
  bp::Tensor a = bp::to(bp::from_vector<float>({1, 2}, {2}, guard.device), bp::ScalarType::Float64);
  std::string msg = error_of([&] { bp::add(a, a); });
  CHECK(msg.find("no kernel for dtype f64") != std::string::npos);
  CHECK(msg.find("supports: f32") != std::string::npos);
}

TEST_CASE("tensors on two devices are an error naming both; a 0-d tensor may come along") {
  TestPluginGuard guard;
  bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, guard.device);
  const bp::Device reference(bp::device_types::Reference, 0);
  bp::Tensor r = bp::from_vector<float>({1, 2}, {2}, reference);
  std::string msg = error_of([&] { bp::add(a, r); });
  CHECK(msg.find("test_dev:0") != std::string::npos);
  CHECK(msg.find("reference:0") != std::string::npos);
  bp::Tensor zero_d = bp::scalar_tensor(4.0, bp::ScalarType::Float32, reference);
  bp::Tensor c = bp::add(a, zero_d);
  CHECK(c.device() == guard.device);
  CHECK(bp::to_vector<float>(c) == std::vector<float>{5, 6});
}

TEST_CASE("the table dump says where each entry came from") {
  TestPluginGuard guard;
  std::string dump = bp::dump_op_table("add.Tensor");
  CHECK(dump.find("add.Tensor (primitive)") != std::string::npos);
  CHECK(dump.find("test_dev") != std::string::npos);
  CHECK(dump.find("from plugin 'testdev' for f32") != std::string::npos);
  CHECK(dump.find("from plugin 'reference'") != std::string::npos);
  std::string mul = bp::dump_op_table("mul.Tensor");
  CHECK(mul.find("test_dev     missing") != std::string::npos);
  std::string composite = bp::dump_op_table("add.Scalar");
  CHECK(composite.find("composite") != std::string::npos);
  CHECK_THROWS_AS(bp::dump_op_table("no_such_op"), bp::Error);
}

TEST_CASE("unregistering a plugin removes its kernels and its device") {
  bp::Device device = load_test_plugin();
  bp::unregister_plugin("testdev");
  for (const auto& e : bp::op_table("add.Tensor")) CHECK(e.backend != "test_dev");
  std::string msg = error_of([&] { bp::empty({2}, bp::ScalarType::Float32, device); });
  CHECK(msg.find("not available") != std::string::npos);
  CHECK_THROWS_AS(bp::unregister_plugin("testdev"), bp::Error);
  // It can be loaded again, and gets the same slot.
  bp::Device again = load_test_plugin();
  CHECK(again == device);
  bp::unregister_plugin("testdev");
}

TEST_CASE("an out tensor must match the result; an empty one is replaced") {
  bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3});
  bp::Tensor out;
  bp::add_out(out, a, a);
  CHECK(bp::to_vector<float>(out) == std::vector<float>{2, 4, 6});
  bp::Tensor wrong = bp::empty({2});
  CHECK(error_of([&] { bp::add_out(wrong, a, a); }).find("out has shape [2]") != std::string::npos);
  bp::Tensor as_int = bp::empty({3}, bp::ScalarType::Int64);
  CHECK(error_of([&] { bp::add_out(as_int, a, a); }).find("can't be cast") != std::string::npos);
  bp::Tensor as_double = bp::empty({3}, bp::ScalarType::Float64);
  bp::add_out(as_double, a, a);  // f32 result written into f64: allowed, as PyTorch
  CHECK(bp::to_vector<double>(as_double) == std::vector<double>{2, 4, 6});
}

TEST_CASE("in-place ops write their first argument and cannot change its shape") {
  bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3});
  bp::Tensor alias = a;
  bp::add_(a, bp::from_vector<float>({1, 1, 1}, {3}));
  CHECK(bp::to_vector<float>(alias) == std::vector<float>{2, 3, 4});
  bp::Tensor wide = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(error_of([&] { bp::add_(a, wide); }).find("out has shape [3]") != std::string::npos);
}

TEST_CASE("an out that partially overlaps an input is computed through a temporary") {
  bp::Tensor base = bp::from_vector<float>({1, 2, 3, 4}, {4});
  bp::Tensor head = base.slice(0, 0, 3), tail = base.slice(0, 1, 4);
  bp::add_out(tail, head, head);  // reads 1,2,3 before writing base[1..3]
  CHECK(bp::to_vector<float>(base) == std::vector<float>{1, 2, 4, 6});
}

TEST_CASE("boxed calls check the arguments against the schema") {
  bp::Tensor a = bp::from_vector<float>({1, 2}, {2});
  CHECK(error_of([&] { bp::call("add.Tensor", {a}); }).find("missing argument 'other'") !=
        std::string::npos);
  CHECK(error_of([&] {
          bp::call("add.Tensor", {a, 3.0});
        }).find("argument 'other' must be Tensor") != std::string::npos);
  CHECK(error_of([&] {
          bp::call("add.Tensor", {a, a, 1, a});
        }).find("takes 3 arguments") != std::string::npos);
  CHECK(error_of([&] { bp::call("nope.Tensor", {a}); }).find("unknown operator") !=
        std::string::npos);
  auto r = bp::call("add.Tensor", {a, a, 2});
  CHECK(bp::to_vector<float>(r.at(0)) == std::vector<float>{3, 6});
}
