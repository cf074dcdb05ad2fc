// The fallback policy: with `error` a missing kernel names the op, the device, the backends
// that have one and the setting that enables fallback; with `cpu` the call runs on cpu:0
// (results correct on the device, calls and bytes counted, one warning per op); a backend
// can force ops to the CPU even when it has a kernel; factories never fall back.
#include "fixture_plugin.hpp"
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatcher.hpp>
#include <backplane/dispatch/fallback.hpp>

#include <doctest/doctest.h>

#include <string>
#include <vector>

using bp::test::error_of;

namespace {

// test_dev (add.Tensor f32, fill_, copy_ f32/f64: no mul) next to the CPU plugin.
struct FallbackFixture {
  bp::Device device;
  FallbackFixture() {
    static const bool cpu_loaded = [] {
      const bp::PluginLoadReport r =
          bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
      return r.status == bp::LoadStatus::Loaded;
    }();
    REQUIRE(cpu_loaded);
    const bp::PluginLoadReport r =
        bp::register_plugin(bp::testing::test_plugin_descriptor(), "test");
    REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
    device = bp::Device::parse("test_dev:0");
    bp::reset_fallback_stats();
  }
  ~FallbackFixture() {
    bp::set_fallback_policy(bp::FallbackPolicy::Error);
    bp::clear_forced_fallbacks();
    bp::unregister_plugin("testdev");
  }
};

}  // namespace

TEST_CASE("fallback error policy: the message names op, device, backends and the setting") {
  FallbackFixture f;
  CHECK(bp::fallback_policy() == bp::FallbackPolicy::Error);
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, f.device);
  const std::string msg = error_of([&] { bp::mul(a, a); });
  CHECK(msg.find("mul.Tensor: no kernel for device test_dev:0") != std::string::npos);
  CHECK(msg.find("backends that have one: reference, cpu") != std::string::npos);
  CHECK(msg.find("fallback.policy = \"cpu\"") != std::string::npos);
  CHECK(msg.find("BACKPLANE_FALLBACK=cpu") != std::string::npos);
  CHECK(bp::fallback_stats().calls == 0);
}

TEST_CASE("fallback cpu policy: the op runs on the CPU, counted, warned once") {
  FallbackFixture f;
  bp::set_fallback_policy(bp::FallbackPolicy::Cpu);
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, f.device);
  const bp::Tensor b = bp::from_vector<float>({4, 5, 6}, {3}, f.device);
  bp::Tensor c;
  const std::string err = bp::test::capture_stderr([&] {
    c = bp::mul(a, b);
    c = bp::mul(c, b);
  });
  CHECK(c.device() == f.device);
  CHECK(bp::to_vector<float>(c) == std::vector<float>{16, 50, 108});
  const bp::FallbackStats s = bp::fallback_stats();
  CHECK(s.calls == 2);
  CHECK(s.bytes_to_cpu == 2 * 2 * 3 * sizeof(float));  // two inputs per call
  CHECK(s.bytes_from_cpu == 2 * 3 * sizeof(float));
  CHECK(s.calls_per_op.at("mul.Tensor on test_dev:0") == 2);
  // One warning for the op, however often it falls back.
  const auto lines = bp::test::lines_of(err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].find("mul.Tensor has no kernel on test_dev:0; running it on cpu:0") !=
        std::string::npos);
  // Kernels the backend has still run there.
  const int adds = bp::testing::test_plugin_state().add_calls;
  (void)bp::add(a, b);
  CHECK(bp::testing::test_plugin_state().add_calls == adds + 1);
  CHECK(bp::fallback_stats().calls == 2);
}

TEST_CASE("fallback cpu policy: out-variants and in-place ops write the device tensor") {
  FallbackFixture f;
  bp::set_fallback_policy(bp::FallbackPolicy::Cpu);
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, f.device);
  bp::Tensor out = bp::from_vector<float>({0, 0, 0}, {3}, f.device);
  bp::mul_out(out, a, a);
  CHECK(bp::to_vector<float>(out) == std::vector<float>{1, 4, 9});
  bp::Tensor x = bp::from_vector<float>({1, 2, 3}, {3}, f.device);
  bp::mul_(x, bp::Scalar(2.0));
  CHECK(x.device() == f.device);
  CHECK(bp::to_vector<float>(x) == std::vector<float>{2, 4, 6});
}

TEST_CASE("fallback cpu policy: copy_ falls back on a device without a copy_ kernel") {
  // test_dev's copy_ takes f32/f64 only: an i32 copy_ falls back, and its result must reach
  // the device without a copy_ kernel (it once recursed until the stack overflowed).
  FallbackFixture f;
  bp::set_fallback_policy(bp::FallbackPolicy::Cpu);
  bp::Tensor target = bp::from_vector<int32_t>({1, 2, 3, 4}, {4}, f.device);
  const std::string err = bp::test::capture_stderr([&] {
    bp::copy_(target, bp::from_vector<int32_t>({5, 6, 7, 8}, {4}));
  });
  CHECK(bp::to_vector<int32_t>(target) == std::vector<int32_t>{5, 6, 7, 8});
  // Strided, both ways: the view's bytes move through the device API, not its copy_.
  bp::Tensor strided = target.slice(0, 1, std::nullopt, 2);
  bp::copy_(strided, bp::from_vector<int32_t>({0, 9}, {2}));
  CHECK(bp::to_vector<int32_t>(target) == std::vector<int32_t>{5, 0, 7, 9});
  bp::Tensor gathered = bp::from_vector<int32_t>({0, 0}, {2});
  bp::copy_(gathered, strided);
  CHECK(bp::to_vector<int32_t>(gathered) == std::vector<int32_t>{0, 9});
}

TEST_CASE("a backend can force ops to the CPU although it has a kernel") {
  FallbackFixture f;
  bp::force_fallback("test_dev", "add.Tensor");
  CHECK(bp::is_fallback_forced("test_dev", "add.Tensor"));
  CHECK_FALSE(bp::is_fallback_forced("test_dev", "mul.Tensor"));
  const int adds = bp::testing::test_plugin_state().add_calls;
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, f.device);
  bp::Tensor c;
  (void)bp::test::capture_stderr([&] { c = bp::add(a, a); });
  CHECK(bp::to_vector<float>(c) == std::vector<float>{2, 4});
  CHECK(bp::testing::test_plugin_state().add_calls == adds);  // the plugin was not called
  CHECK(bp::fallback_stats().calls == 1);
  // Forced ops are validated: unknown ops and factories are errors.
  CHECK_THROWS_WITH_AS(bp::force_fallback("test_dev", "frobnicate"),
                       doctest::Contains("frobnicate"), bp::Error);
  CHECK_THROWS_WITH_AS(bp::force_fallback("test_dev", "arange.start_step"),
                       doctest::Contains("cannot fall back"), bp::Error);
}

TEST_CASE("factories never fall back, even with the cpu policy") {
  FallbackFixture f;
  bp::set_fallback_policy(bp::FallbackPolicy::Cpu);
  const std::string msg = error_of([&] {
    bp::call("arange.start_step",
             {bp::Scalar(0), bp::Scalar(4), bp::Scalar(1), bp::ScalarType::Float32, f.device});
  });
  CHECK(msg.find("cannot fall back") != std::string::npos);
  CHECK(bp::fallback_stats().calls == 0);
}
