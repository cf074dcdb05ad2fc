// Dispatch layers (layers.hpp): a layer kernel of the test's own (a call counter) runs above
// every backend, typed fast path included, and re-dispatches below itself; layers nest in
// key order; a kernel for one op overrides the layer's kernel for every op; thread-local
// include and exclude masks select a layer for one thread, enable_layer for all; a layer may
// change the call's arguments; and a bad key is an error naming it.
#include "fixture_plugin.hpp"
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/layers.hpp>
#include <backplane/dispatch/trace.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using bp::test::error_of;

namespace {

// Counts the calls it sees per "op on device" and goes on below.
struct CallCounter {
  std::mutex mu;
  std::map<std::string, int> calls;

  bp::LayerKernel kernel() {
    return [this](bp::LayerCall& call) {
      std::string device = "?";
      for (const bp::IValue& v : call.args())
        if (v.is_tensor() && v.tensor().defined()) {
          device = v.tensor().device().str();
          break;
        }
      {
        std::lock_guard lock(mu);
        ++calls[call.op().name + " on " + device];
      }
      return call.call_below();
    };
  }
  int count(const std::string& key) {
    std::lock_guard lock(mu);
    auto it = calls.find(key);
    return it == calls.end() ? 0 : it->second;
  }
};

// Removes the test's layer kernels whatever the test did.
struct LayerCleanup {
  ~LayerCleanup() {
    for (bp::LayerKey k : {bp::LayerKey::User0, bp::LayerKey::User1}) {
      bp::enable_layer(k, false);
      bp::set_layer_kernel(k, bp::LayerKernel());
      bp::set_layer_kernel(k, bp::op_id("add.Tensor"), bp::LayerKernel());
    }
  }
};

// The CPU plugin and the in-test plugin next to the built-in reference backend.
void load_backends() {
  static const bool cpu_loaded = [] {
    for (const bp::BackendInfo& b : bp::backends())
      if (b.name == "cpu") return true;  // by an earlier test
    return bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so").status ==
           bp::LoadStatus::Loaded;
  }();
  REQUIRE(cpu_loaded);
  const bp::PluginLoadReport r = bp::register_plugin(bp::testing::test_plugin_descriptor(), "test");
  REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
}

}  // namespace

TEST_CASE("a layer kernel runs above every backend, typed fast path included") {
  load_backends();
  LayerCleanup cleanup;
  CallCounter counter;
  bp::set_layer_kernel(bp::LayerKey::User0, counter.kernel());

  // Set but not on: nothing passes through it.
  for (const char* dev : {"reference:0", "cpu:0"}) {
    const bp::Device device = bp::Device::parse(dev);
    bp::Tensor a = bp::full({3}, 1.5, bp::ScalarType::Float32, device);
    (void)bp::add(a, a);
  }
  CHECK(counter.calls.empty());

  {
    bp::IncludeLayer on(bp::LayerKey::User0);
    for (const char* dev : {"reference:0", "cpu:0", "test_dev:0"}) {
      CAPTURE(dev);
      const bp::Device device = bp::Device::parse(dev);
      bp::Tensor a = bp::full({3}, 1.5, bp::ScalarType::Float32, device);
      bp::Tensor b = bp::full({3}, 2.0, bp::ScalarType::Float32, device);
      bp::Tensor sum = bp::add(a, b);  // the typed API's elementwise fast path when no layer is on
      CHECK(bp::to_vector<float>(sum) == std::vector<float>{3.5f, 3.5f, 3.5f});
      bp::Tensor out = bp::empty({3}, bp::ScalarType::Float32, device);
      bp::add_out(out, a, b, 2);
      CHECK(bp::to_vector<float>(out) == std::vector<float>{5.5f, 5.5f, 5.5f});
      CHECK(counter.count(std::string("add.Tensor on ") + dev) == 2);
    }
  }
  // Off again once the guard is gone.
  const int before = counter.count("add.Tensor on reference:0");
  bp::Tensor r = bp::full({2}, 1.0, bp::ScalarType::Float32, bp::Device::parse("reference:0"));
  (void)bp::add(r, r);
  CHECK(counter.count("add.Tensor on reference:0") == before);
  bp::unregister_plugin("testdev");
}

TEST_CASE("layers nest in key order, and a kernel for one op overrides the one for every op") {
  LayerCleanup cleanup;
  std::vector<std::string> order;
  auto tag = [&order](std::string name) {
    return [&order, name](bp::LayerCall& call) {
      order.push_back(name + ":" + call.op().name);
      return call.call_below();
    };
  };
  bp::set_layer_kernel(bp::LayerKey::User0, tag("user0"));
  bp::set_layer_kernel(bp::LayerKey::User1, tag("user1"));
  bp::set_layer_kernel(bp::LayerKey::User1, bp::op_id("add.Tensor"), tag("user1-add"));
  bp::Tensor a = bp::full({2}, 1.0, bp::ScalarType::Float32, bp::Device::parse("reference:0"));
  bp::IncludeLayer on0(bp::LayerKey::User0);
  bp::IncludeLayer on1(bp::LayerKey::User1);

  (void)bp::mul(a, a);
  (void)bp::add(a, a);
  CHECK(order == std::vector<std::string>{"user1:mul.Tensor", "user0:mul.Tensor",
                                          "user1-add:add.Tensor", "user0:add.Tensor"});

  // Removing the per-op kernel brings back the layer's kernel for every op.
  bp::set_layer_kernel(bp::LayerKey::User1, bp::op_id("add.Tensor"), bp::LayerKernel());
  order.clear();
  (void)bp::add(a, a);
  CHECK(order == std::vector<std::string>{"user1:add.Tensor", "user0:add.Tensor"});
}

TEST_CASE("a layer may change the call's arguments before going below") {
  LayerCleanup cleanup;
  // add(self, other, alpha): force alpha to 10.
  bp::set_layer_kernel(bp::LayerKey::User0, bp::op_id("add.Tensor"), [](bp::LayerCall& call) {
    call.args().resize(3);
    call.args()[2] = bp::IValue(bp::Scalar(int64_t{10}));
    return call.call_below();
  });
  bp::Tensor a = bp::full({2}, 1.0, bp::ScalarType::Float32, bp::Device::parse("reference:0"));
  bp::Tensor b = bp::full({2}, 2.0, bp::ScalarType::Float32, bp::Device::parse("reference:0"));
  CHECK(bp::to_vector<float>(bp::add(a, b)) == std::vector<float>{3.0f, 3.0f});
  bp::IncludeLayer on(bp::LayerKey::User0);
  CHECK(bp::to_vector<float>(bp::add(a, b)) == std::vector<float>{21.0f, 21.0f});
  // Other ops have no kernel in this layer and pass it by.
  CHECK(bp::to_vector<float>(bp::mul(a, b)) == std::vector<float>{2.0f, 2.0f});
}

TEST_CASE("include and exclude are per thread; enable_layer is for every thread") {
  LayerCleanup cleanup;
  std::atomic<int> seen{0};
  bp::set_layer_kernel(bp::LayerKey::User0, [&seen](bp::LayerCall& call) {
    ++seen;
    return call.call_below();
  });
  const bp::Device ref = bp::Device::parse("reference:0");
  auto call_on_other_thread = [&] {
    std::thread t([&] {
      bp::Tensor a = bp::full({2}, 1.0, bp::ScalarType::Float32, ref);
      (void)bp::neg(a);
    });
    t.join();
  };

  {
    bp::IncludeLayer on(bp::LayerKey::User0);
    call_on_other_thread();
    CHECK(seen == 0);  // the other thread did not include it
    (void)bp::neg(bp::full({2}, 1.0, bp::ScalarType::Float32, ref));
    CHECK(seen == 2);  // full (fill_) and neg
    {
      bp::ExcludeLayer off(bp::LayerKey::User0);
      (void)bp::neg(bp::full({2}, 1.0, bp::ScalarType::Float32, ref));
      CHECK(seen == 2);
    }
  }

  bp::enable_layer(bp::LayerKey::User0, true);
  CHECK(bp::layer_enabled(bp::LayerKey::User0));
  seen = 0;
  call_on_other_thread();
  CHECK(seen == 2);
  {
    bp::ExcludeLayer off(bp::LayerKey::User0);
    (void)bp::neg(bp::full({2}, 1.0, bp::ScalarType::Float32, ref));
    CHECK(seen == 2);
  }
  bp::enable_layer(bp::LayerKey::User0, false);
  CHECK_FALSE(bp::layer_enabled(bp::LayerKey::User0));
}

TEST_CASE("a layer above tracing sees the call, and the trace records it once") {
  LayerCleanup cleanup;
  CallCounter counter;
  bp::set_layer_kernel(bp::LayerKey::User0, counter.kernel());
  const auto file = std::filesystem::temp_directory_path() / "bp_layers_trace.json";
  bp::start_trace(file);
  CHECK(bp::layer_enabled(bp::LayerKey::Tracing));
  {
    bp::IncludeLayer on(bp::LayerKey::User0);
    bp::Tensor a = bp::full({2}, 1.0, bp::ScalarType::Float32, bp::Device::parse("reference:0"));
    (void)bp::add(a, a);
  }
  const size_t events = bp::stop_trace();
  CHECK_FALSE(bp::layer_enabled(bp::LayerKey::Tracing));
  CHECK(events == 2);  // fill_ (of full) and add
  CHECK(counter.count("add.Tensor on reference:0") == 1);
  std::filesystem::remove(file);
}

TEST_CASE("an error in a layer kernel reaches the caller; a bad key is an error naming it") {
  LayerCleanup cleanup;
  bp::set_layer_kernel(bp::LayerKey::User0, [](bp::LayerCall& call) -> std::vector<bp::Tensor> {
    throw bp::Error(bp::ErrorCode::InvalidArgument, "layer refused " + call.op().name);
  });
  bp::Tensor a = bp::full({2}, 1.0, bp::ScalarType::Float32, bp::Device::parse("reference:0"));
  {
    bp::IncludeLayer on(bp::LayerKey::User0);
    CHECK(error_of([&] { (void)bp::neg(a); }).find("layer refused neg") != std::string::npos);
  }
  CHECK(bp::to_vector<float>(bp::neg(a)) == std::vector<float>{-1.0f, -1.0f});

  const auto bad = static_cast<bp::LayerKey>(3);
  CHECK(error_of([&] { bp::enable_layer(bad, true); }).find("layer key 3 is not a layer key") !=
        std::string::npos);
  CHECK(error_of([&] { bp::IncludeLayer on(bad); }).find("layer key 3") != std::string::npos);
}
