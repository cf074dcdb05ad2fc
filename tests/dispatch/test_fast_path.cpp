// The elementwise fast path of the typed API (dispatch/src/fast_path.hpp): a kernel receives
// exactly what the boxed path would give it, and every call the fast path must not take
// (promotion, broadcasting, overlapping or mismatched outputs, several devices, tracing,
// forced fallback, a kernel that fails, a plugin that left) behaves as on the boxed path.
#include "fixture_plugin.hpp"

#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatcher.hpp>
#include <backplane/dispatch/fallback.hpp>
#include <backplane/dispatch/trace.hpp>

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

using bp::test::error_of;

namespace {

struct TestDevice {
  bp::Device device;
  TestDevice() {
    bp::PluginLoadReport r =
        bp::register_plugin(bp::testing::test_plugin_descriptor(), "fast path test");
    REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
    device = bp::Device::parse("test_dev:0");
  }
  ~TestDevice() { bp::unregister_plugin("testdev"); }
};

const bp::Device kRef(bp::device_types::Reference, 0);

std::string& last_call() {
  return bp::testing::test_plugin_state().last_add_call;
}

}  // namespace

TEST_CASE("fast path: the kernel receives what the boxed path passes") {
  TestDevice dev;
  const bp::Tensor base = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, dev.device);
  const bp::Tensor other = bp::from_vector<float>({10, 20, 30, 40, 50, 60}, {3, 2}, dev.device);
  struct Case {
    const char* name;
    bp::Tensor a, b;
  };
  // Contiguous, a transposed view with an offset-free stride pattern, a narrowed view with
  // an offset, and 0-d tensors.
  const Case cases[] = {
      {"contiguous", base, bp::from_vector<float>({1, 1, 1, 1, 1, 1}, {2, 3}, dev.device)},
      {"transposed", base, other.t()},
      {"offset", base.narrow(1, 1, 2), other.t().narrow(1, 0, 2)},
      {"0-d", bp::scalar_tensor(2.0, bp::ScalarType::Float32, dev.device),
       bp::scalar_tensor(3.0, bp::ScalarType::Float32, dev.device)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    for (const bp::Scalar alpha : {bp::Scalar(int64_t{1}), bp::Scalar(2.5), bp::Scalar(true)}) {
      CAPTURE(alpha.to_double());
      last_call().clear();
      bp::Tensor typed;
      const std::string typed_error = error_of([&] { typed = bp::add(c.a, c.b, alpha); });
      const std::string typed_call = last_call();
      last_call().clear();
      std::vector<bp::Tensor> boxed;
      const std::string boxed_error = error_of([&] {
        boxed = bp::call("add.Tensor", {c.a, c.b, alpha});
      });
      CHECK(typed_error == boxed_error);
      CHECK(typed_call == last_call());
      if (typed.defined() && !boxed.empty())
        CHECK(bp::to_vector<float>(bp::to(typed, kRef)) ==
              bp::to_vector<float>(bp::to(boxed[0], kRef)));

      // The out= form writes the same out tensor on both paths.
      bp::Tensor out = bp::empty(c.a.sizes(), bp::ScalarType::Float32, dev.device);
      last_call().clear();
      const std::string typed_out_error = error_of([&] { bp::add_out(out, c.a, c.b, alpha); });
      const std::string typed_out = last_call();
      last_call().clear();
      bp::Tensor* outs[] = {&out};
      const std::string boxed_out_error = error_of([&] {
        bp::call_out(bp::op_id("add.Tensor"), {c.a, c.b, alpha}, outs);
      });
      CHECK(typed_out_error == boxed_out_error);
      CHECK(typed_out == last_call());
    }
  }
}

TEST_CASE("fast path: in-place and out= calls write the caller's tensor") {
  TestDevice dev;
  bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, dev.device);
  const bp::Tensor b = bp::from_vector<float>({10, 20, 30}, {3}, dev.device);
  const void* data = a.data_ptr();
  bp::add_(a, b, 2);
  CHECK(a.data_ptr() == data);
  CHECK(bp::to_vector<float>(bp::to(a, kRef)) == std::vector<float>{21, 42, 63});
  bp::add_(a, a);  // self aliasing self: the same view, not an overlap
  CHECK(bp::to_vector<float>(bp::to(a, kRef)) == std::vector<float>{42, 84, 126});
}

TEST_CASE("fast path: calls it must not take give the boxed path's results and errors") {
  const bp::Tensor f = bp::from_vector<float>({1, 2, 3, 4}, {4}, kRef);
  const bp::Tensor i = bp::from_vector<int32_t>({1, 2, 3, 4}, {4}, kRef);

  SUBCASE("type promotion: i32 + f32 is f32, i32 / i32 is f32") {
    const bp::Tensor sum = bp::add(i, f);
    CHECK(sum.dtype() == bp::ScalarType::Float32);
    CHECK(bp::to_vector<float>(sum) == std::vector<float>{2, 4, 6, 8});
    const bp::Tensor q = bp::div(i, bp::from_vector<int32_t>({2, 2, 2, 2}, {4}, kRef));
    CHECK(q.dtype() == bp::ScalarType::Float32);
    CHECK(bp::to_vector<float>(q) == std::vector<float>{0.5f, 1, 1.5f, 2});
  }
  SUBCASE("a float alpha for integer tensors is refused, every time (the answer is cached)") {
    const std::string boxed = error_of([&] { bp::call("add.Tensor", {i, i, 2.5}); });
    CHECK(boxed.find("alpha") != std::string::npos);
    for (int k = 0; k < 2; ++k) CHECK(error_of([&] { bp::add(i, i, 2.5); }) == boxed);
  }
  SUBCASE("broadcasting") {
    const bp::Tensor col = bp::from_vector<float>({10, 20}, {2, 1}, kRef);
    const bp::Tensor c = bp::add(f.view({1, 4}), col);
    CHECK(c.sizes() == bp::Shape{2, 4});
    CHECK(bp::to_vector<float>(c) == std::vector<float>{11, 12, 13, 14, 21, 22, 23, 24});
  }
  SUBCASE("an out of another dtype receives the result cast") {
    bp::Tensor out = bp::empty({4}, bp::ScalarType::Float64, kRef);
    bp::add_out(out, f, f);
    CHECK(out.dtype() == bp::ScalarType::Float64);
    CHECK(bp::to_vector<double>(out) == std::vector<double>{2, 4, 6, 8});
  }
  SUBCASE("an out that partly overlaps an input is written as if computed first") {
    bp::Tensor buf = bp::from_vector<float>({0, 1, 2, 3, 4}, {5}, kRef);
    bp::Tensor out = buf.narrow(0, 1, 4);
    const bp::Tensor in = buf.narrow(0, 0, 4);
    bp::add_out(out, in, in);
    CHECK(bp::to_vector<float>(buf) == std::vector<float>{0, 0, 2, 4, 6});
  }
  SUBCASE("an out of the wrong shape is an error naming both shapes") {
    bp::Tensor out = bp::empty({5}, bp::ScalarType::Float32, kRef);
    const std::string msg = error_of([&] { bp::add_out(out, f, f); }, bp::ErrorCode::Shape);
    CHECK(msg.find("[5]") != std::string::npos);
    CHECK(msg.find("[4]") != std::string::npos);
  }
  SUBCASE("an empty out is replaced, as on the boxed path") {
    bp::Tensor out = bp::empty({0}, bp::ScalarType::Float32, kRef);
    bp::add_out(out, f, f);
    CHECK(out.sizes() == bp::Shape{4});
    CHECK(bp::to_vector<float>(out) == std::vector<float>{2, 4, 6, 8});
  }
}

TEST_CASE("fast path: tensors on two devices are an error naming both") {
  TestDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, dev.device);
  const bp::Tensor b = bp::from_vector<float>({1, 2}, {2}, kRef);
  const std::string msg = error_of([&] { bp::add(a, b); }, bp::ErrorCode::Device);
  CHECK(msg.find("test_dev:0") != std::string::npos);
  CHECK(msg.find("reference:0") != std::string::npos);
}

TEST_CASE("fast path: a failing kernel's message reaches the caller") {
  TestDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, dev.device);
  auto& state = bp::testing::test_plugin_state();
  state.fail_add = true;
  const std::string msg = error_of([&] { bp::add(a, a); }, bp::ErrorCode::Device);
  state.fail_add = false;
  CHECK(msg == "add.Tensor on test_dev:0: test_dev add: failing on request");
  // The next call does not see the old message.
  CHECK(bp::to_vector<float>(bp::to(bp::add(a, a), kRef)) == std::vector<float>{2, 4});
}

TEST_CASE("fast path: a dtype the kernel lacks takes the boxed path and its message") {
  TestDevice dev;  // its add.Tensor is f32 only
  const bp::Tensor a = bp::from_vector<double>({1, 2}, {2}, dev.device);
  const std::string msg = error_of([&] { bp::add(a, a); }, bp::ErrorCode::NotImplemented);
  CHECK(msg.find("f64") != std::string::npos);
  CHECK(msg == error_of([&] { bp::call("add.Tensor", {a, a}); }));
}

TEST_CASE("fast path: kernels registered and unregistered are seen at once") {
  auto& state = bp::testing::test_plugin_state();
  bp::Tensor a;
  {
    TestDevice dev;
    a = bp::from_vector<float>({1, 2}, {2}, dev.device);
    const int before = state.add_calls;
    bp::add(a, a);
    CHECK(state.add_calls == before + 1);
  }
  // The plugin is gone; its tensors remain, and a call on them fails cleanly.
  const int before = state.add_calls;
  const std::string msg = error_of([&] { bp::add(a, a); });
  CHECK(msg != "(no error)");
  CHECK(msg == error_of([&] { bp::call("add.Tensor", {a, a}); }));
  CHECK(state.add_calls == before);
}

TEST_CASE("fast path: a forced fallback runs the op on the CPU backend") {
  const bp::test::CpuPluginForTest cpu;
  REQUIRE_MESSAGE(cpu.report.status == bp::LoadStatus::Loaded, cpu.report.message);
  TestDevice dev;
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, dev.device);
  auto& state = bp::testing::test_plugin_state();
  bp::force_fallback("test_dev", "add.Tensor");
  bp::reset_fallback_stats();
  const int before = state.add_calls;
  bp::Tensor c;
  const std::string msg = error_of([&] { c = bp::add(a, a); });
  bp::clear_forced_fallbacks();
  CHECK(msg == "(no error)");
  CHECK(state.add_calls == before);  // the test device's kernel did not run
  CHECK(bp::fallback_stats().calls == 1);
  REQUIRE(c.defined());
  CHECK(c.device() == dev.device);
  CHECK(bp::to_vector<float>(bp::to(c, kRef)) == std::vector<float>{2, 4});
}

TEST_CASE("fast path: a traced call is recorded") {
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2}, kRef);
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / "bp_fast_path_trace.json";
  bp::start_trace(file);
  bp::add(a, a);
  bp::neg(a);
  const size_t events = bp::stop_trace();
  std::filesystem::remove(file);
  CHECK(events == 2);
}

TEST_CASE("fast path of boxed calls: only elementwise ops, whatever their schema") {
  // matmul's schema is (Tensor, Tensor) -> Tensor, like mul's, but two [n, n] operands give
  // [n, n] and two [n] ones a 0-d result: a cached "fast" answer for the first must not
  // run the second with an output of its operands' shape.
  const bp::OpId matmul = bp::op_id("matmul");
  const bp::Tensor square = bp::ones({3, 3}, bp::ScalarType::Float64, kRef);
  const bp::Tensor vector = bp::ones({3}, bp::ScalarType::Float64, kRef);
  for (int i = 0; i < 2; ++i) {
    CHECK(bp::call(matmul, {square, square}).at(0).sizes() == bp::Shape{3, 3});
    const bp::Tensor dot = bp::call(matmul, {vector, vector}).at(0);
    CHECK(dot.dim() == 0);
    CHECK(bp::item(dot).to_double() == 3.0);
  }
  // An elementwise op through the boxed API: the result of the typed API, omitted trailing
  // Scalars taking their defaults.
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, kRef);
  CHECK(bp::to_vector<float>(bp::call("add.Tensor", {a, a}).at(0)) == std::vector<float>{2, 4, 6});
  CHECK(bp::to_vector<float>(bp::call("add.Tensor", {a, a, bp::Scalar(2)}).at(0)) ==
        std::vector<float>{3, 6, 9});
  bp::Tensor out = bp::zeros({3}, bp::ScalarType::Float32, kRef);
  bp::Tensor* outs[] = {&out};
  bp::call_out(bp::op_id("mul.Tensor"), {a, a}, outs);
  CHECK(bp::to_vector<float>(out) == std::vector<float>{1, 4, 9});
}
