// Tracing (trace.hpp): every op call while a trace is on becomes one complete event in a
// Chrome trace file (name, device, shapes, dtypes, path kernel/composite/fallback/error),
// nested calls lie inside their parent's time span, errors are recorded with their message,
// threads get distinct tids, nothing is recorded while off, and an unwritable file is an
// error naming it.
#include "fixture_plugin.hpp"
#include "plugin_test_support.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/fallback.hpp>
#include <backplane/dispatch/trace.hpp>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using bp::test::error_of;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

fs::path trace_path(const std::string& tag) {
  return fs::temp_directory_path() /
         ("bp_trace_" + tag + "_" + std::to_string(::getpid()) + ".json");
}

// Stops the trace (if a check failed first) and removes the file.
struct TraceFile {
  fs::path path;
  explicit TraceFile(const std::string& tag) : path(trace_path(tag)) { fs::remove(path); }
  ~TraceFile() {
    if (bp::tracing()) {
      try {
        bp::stop_trace();
      } catch (const bp::Error&) {
      }
    }
    std::error_code ec;
    fs::remove(path, ec);
  }
  json read() const {
    std::ifstream in(path);
    REQUIRE(in.good());
    return json::parse(in);
  }
};

std::vector<json> events_named(const json& trace, const std::string& name) {
  std::vector<json> found;
  for (const json& e : trace["traceEvents"])
    if (e["name"] == name) found.push_back(e);
  return found;
}

bool inside(const json& child, const json& parent) {
  const double c0 = child["ts"], c1 = c0 + child["dur"].get<double>();
  const double p0 = parent["ts"], p1 = p0 + parent["dur"].get<double>();
  return p0 <= c0 && c1 <= p1;
}

// The file's header and what every event carries: complete events ("X") of category "op"
// of this process, sorted by start time.
void check_trace_format(const json& trace, size_t n, const fs::path& path) {
  const json& events = trace["traceEvents"];
  CHECK(n == events.size());
  CHECK(trace["displayTimeUnit"] == "ns");
  CHECK(trace["metadata"]["events"] == n);
  CHECK(trace["metadata"]["backplane_version"] == bp::runtime_info().version);
  CHECK(trace["metadata"]["trace_file"] == path.string());
  double last_ts = -1;
  for (const json& e : events) {
    CHECK(e["ph"] == "X");
    CHECK(e["cat"] == "op");
    CHECK(e["pid"] == ::getpid());
    CHECK(e["ts"].get<double>() >= last_ts);
    CHECK(e["dur"].get<double>() >= 0);
    last_ts = e["ts"];
  }
}

}  // namespace

TEST_CASE("trace: events for kernel, composite and failing calls on the reference device") {
  TraceFile file("reference");
  const bp::Device ref(bp::device_types::Reference, 0);
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}, ref);
  const bp::Tensor b = bp::from_vector<float>({1, 2, 3}, {3}, ref);
  const bp::Tensor w = bp::from_vector<float>({1, 0, 0, 0, 1, 0}, {2, 3}, ref);
  const bp::Tensor bias = bp::from_vector<float>({10, 20}, {2}, ref);

  CHECK_FALSE(bp::tracing());
  bp::start_trace(file.path);
  CHECK(bp::tracing());
  const bp::Tensor c = bp::add(a, b);                             // broadcasting, a kernel
  const bp::Tensor y = bp::linear(a, w, bias);                    // a composite: matmul, add
  bp::neg(bp::scalar_tensor(2.0, bp::ScalarType::Float32, ref));  // a 0-d input
  const std::string msg = error_of([&] { bp::add(a, bp::from_vector<float>({1, 2}, {2}, ref)); });
  const size_t n = bp::stop_trace();
  CHECK_FALSE(bp::tracing());
  CHECK(c.sizes() == bp::Shape{2, 3});
  CHECK(y.sizes() == bp::Shape{2, 2});

  const json trace = file.read();
  check_trace_format(trace, n, file.path);

  // The first add.Tensor event is bp::add(a, b).
  const std::vector<json> adds = events_named(trace, "add.Tensor");
  REQUIRE(adds.size() >= 3);  // ours, the one inside linear, the failing one
  const json& add = adds.front();
  CHECK(add["args"]["device"] == "reference:0");
  CHECK(add["args"]["backend"] == "reference");
  CHECK(add["args"]["shapes"] == json::parse("[[2,3],[3]]"));
  CHECK(add["args"]["dtypes"] == json::parse(R"(["f32","f32"])"));
  CHECK(add["args"]["path"] == "kernel");
  CHECK(add["args"]["fallback"] == false);
  CHECK_FALSE(add["args"].contains("error"));

  // The composite and the calls it made, nested in its time span.
  const std::vector<json> linears = events_named(trace, "linear");
  REQUIRE(linears.size() == 1);
  const json& linear = linears[0];
  CHECK(linear["args"]["path"] == "composite");
  CHECK(linear["args"]["shapes"] == json::parse("[[2,3],[2,3],[2]]"));
  const std::vector<json> matmuls = events_named(trace, "matmul");
  REQUIRE(matmuls.size() == 1);
  CHECK(inside(matmuls[0], linear));
  CHECK(matmuls[0]["tid"] == linear["tid"]);
  CHECK(inside(adds[1], linear));
  CHECK_FALSE(inside(add, linear));

  // A 0-d tensor's shape is [].
  const std::vector<json> negs = events_named(trace, "neg");
  REQUIRE(negs.size() == 1);
  CHECK(negs[0]["args"]["shapes"] == json::parse("[[]]"));

  // The failing call: path error and its message.
  const json& failed = adds.back();
  CHECK(failed["args"]["path"] == "error");
  CHECK(failed["args"]["fallback"] == false);
  CHECK(failed["args"]["error"] == msg);
  CHECK(failed["args"]["shapes"] == json::parse("[[2,3],[2]]"));
}

TEST_CASE("trace: a tensor list gives a list of shapes") {
  TraceFile file("list");
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2});
  const bp::Tensor b = bp::from_vector<float>({3}, {1});
  bp::start_trace(file.path);
  bp::cat({a, b});
  bp::stop_trace();
  const std::vector<json> cats = events_named(file.read(), "cat");
  REQUIRE(cats.size() == 1);
  CHECK(cats[0]["args"]["shapes"] == json::parse("[[[2],[1]]]"));
  CHECK(cats[0]["args"]["dtypes"] == json::parse(R"([["f32","f32"]])"));
}

TEST_CASE("trace: an absent optional tensor is null") {
  TraceFile file("optional");
  const bp::Tensor x = bp::from_vector<float>({1, 2}, {1, 2});
  const bp::Tensor w = bp::from_vector<float>({1, 1}, {1, 2});
  bp::start_trace(file.path);
  bp::linear(x, w);
  bp::stop_trace();
  const std::vector<json> linears = events_named(file.read(), "linear");
  REQUIRE(linears.size() == 1);
  CHECK(linears[0]["args"]["shapes"] == json::parse("[[1,2],[1,2],null]"));
  CHECK(linears[0]["args"]["dtypes"] == json::parse(R"(["f32","f32",null])"));
}

TEST_CASE("trace: a call that falls back to the CPU is marked, the calls it makes nested") {
  // The CPU plugin, unless another test of this binary loaded it already.
  const auto cpu_loaded = [] {
    for (const bp::BackendInfo& b : bp::backends())
      if (b.type == bp::device_types::CPU && b.device_count > 0) return true;
    const bp::PluginLoadReport r =
        bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
    return r.status == bp::LoadStatus::Loaded;
  }();
  REQUIRE(cpu_loaded);
  const bp::PluginLoadReport r = bp::register_plugin(bp::testing::test_plugin_descriptor(), "test");
  REQUIRE_MESSAGE(r.status == bp::LoadStatus::Loaded, r.message);
  struct Restore {
    ~Restore() {
      bp::set_fallback_policy(bp::FallbackPolicy::Error);
      bp::unregister_plugin("testdev");
    }
  } restore;
  bp::set_fallback_policy(bp::FallbackPolicy::Cpu);
  const bp::Device dev = bp::Device::parse("test_dev:0");
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3}, dev);

  TraceFile file("fallback");
  bp::start_trace(file.path);
  bp::Tensor c;
  bp::test::capture_stderr([&] { c = bp::mul(a, a); });  // test_dev has no mul
  bp::stop_trace();
  CHECK(bp::to_vector<float>(c) == std::vector<float>{1, 4, 9});

  const json trace = file.read();
  const std::vector<json> muls = events_named(trace, "mul.Tensor");
  REQUIRE(muls.size() == 2);  // on test_dev (falls back), then on cpu:0 (its kernel)
  const json& outer = muls[0];
  CHECK(outer["args"]["device"] == "test_dev:0");
  CHECK(outer["args"]["backend"] == "test_dev");
  CHECK(outer["args"]["path"] == "fallback");
  CHECK(outer["args"]["fallback"] == true);
  const json& inner = muls[1];
  CHECK(inner["args"]["device"] == "cpu:0");
  CHECK(inner["args"]["path"] == "kernel");
  CHECK(inner["args"]["fallback"] == false);
  CHECK(inside(inner, outer));
}

TEST_CASE("trace: nothing is recorded while off; stopping when off writes nothing") {
  TraceFile file("off");
  bp::start_trace(file.path);
  CHECK(bp::stop_trace() == 0);  // no calls: an empty trace, still written
  CHECK(file.read()["traceEvents"].empty());
  fs::remove(file.path);
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2});
  bp::add(a, a);
  CHECK(bp::stop_trace() == 0);
  CHECK_FALSE(fs::exists(file.path));
}

TEST_CASE("trace: starting again switches the file and starts afresh") {
  TraceFile first("first"), second("second");
  const bp::Tensor a = bp::from_vector<float>({1, 2}, {2});
  bp::start_trace(first.path);
  bp::add(a, a);
  bp::start_trace(second.path);
  bp::mul(a, a);
  CHECK(bp::stop_trace() == 1);
  CHECK_FALSE(fs::exists(first.path));
  const json trace = second.read();
  REQUIRE(trace["traceEvents"].size() == 1);
  CHECK(trace["traceEvents"][0]["name"] == "mul.Tensor");
}

TEST_CASE("trace: a file that cannot be written is an error naming it") {
  const fs::path bad = trace_path("missing_dir") / "trace.json";
  bp::start_trace(bad);
  bp::add(bp::from_vector<float>({1}, {1}), bp::from_vector<float>({2}, {1}));
  const std::string msg = error_of([] { bp::stop_trace(); }, bp::ErrorCode::InvalidArgument);
  CHECK(msg.find("cannot write trace file '" + bad.string() + "'") != std::string::npos);
  CHECK_FALSE(bp::tracing());
}

TEST_CASE("trace: calls from several threads are all recorded, one tid per thread") {
  TraceFile file("threads");
  constexpr int kThreads = 4, kCalls = 50;
  const bp::Tensor a = bp::from_vector<float>({1, 2, 3}, {3});
  bp::start_trace(file.path);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kCalls; ++i) bp::add(a, a);
    });
  for (std::thread& t : threads) t.join();
  CHECK(bp::stop_trace() == kThreads * kCalls);
  const json trace = file.read();
  std::set<int> tids;
  for (const json& e : trace["traceEvents"]) {
    CHECK(e["name"] == "add.Tensor");
    tids.insert(e["tid"].get<int>());
  }
  CHECK(tids.size() == kThreads);
}
