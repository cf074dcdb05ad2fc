// Instructions per call of a 1-element bp::add (allocating) and bp::add_out through the
// dispatcher, next to a direct hand-written add as the anchor; and bp::add_out again while
// tracing (docs/tracing.md: what recording an event costs). The device is the argument:
//   reference  the built-in reference backend (the default)
//   cpu        the CPU plugin (loaded from the build tree)
//   noop       an in-process plugin whose kernel does nothing (bench/noop_plugin.hpp): the
//              cost of the call path alone
// Run under callgrind (scripts/bench-dispatch, the perf_guard test and scripts/bench do):
// only the measured_* functions are collected, each runs kIterations calls, so
// instructions / kIterations is the per-call cost.
#include "noop_plugin.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/trace.hpp>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <unistd.h>

namespace {

constexpr int kIterations = 10000;

__attribute__((noinline)) void measured_add(const bp::Tensor& a, const bp::Tensor& b) {
  for (int i = 0; i < kIterations; ++i) {
    bp::Tensor c = bp::add(a, b);
    asm volatile("" : : "r"(c.storage().get()) : "memory");
  }
}

__attribute__((noinline)) void measured_add_out(bp::Tensor& out, const bp::Tensor& a,
                                                const bp::Tensor& b) {
  for (int i = 0; i < kIterations; ++i) bp::add_out(out, a, b);
}

__attribute__((noinline)) void measured_add_out_traced(bp::Tensor& out, const bp::Tensor& a,
                                                       const bp::Tensor& b) {
  // The barrier keeps the compiler from folding this copy of measured_add_out into it.
  for (int i = 0; i < kIterations; ++i) {
    bp::add_out(out, a, b);
    asm volatile("" : : : "memory");
  }
}

__attribute__((noinline)) void measured_hand_loop(float* out, const float* a, const float* b) {
  for (int i = 0; i < kIterations; ++i) {
    out[0] = a[0] + b[0];
    asm volatile("" : : "r"(out) : "memory");
  }
}

// The device named on the command line, its plugin registered; nullopt (after a message)
// when the name is unknown or the plugin does not load.
std::optional<bp::Device> open_device(std::string_view name) {
  bp::PluginLoadReport report;
  if (name == "reference") return bp::Device::parse("reference:0");
  if (name == "cpu")
    report = bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
  else if (name == "noop")
    report = bp::register_plugin(bp::bench::noop_plugin_descriptor(), "bench");
  else {
    std::fprintf(stderr, "bench_add_one_element: unknown device '%.*s' (reference, cpu, noop)\n",
                 static_cast<int>(name.size()), name.data());
    return std::nullopt;
  }
  if (report.status != bp::LoadStatus::Loaded) {
    std::fprintf(stderr, "bench_add_one_element: the %.*s plugin did not load: %s\n",
                 static_cast<int>(name.size()), name.data(), report.message.c_str());
    return std::nullopt;
  }
  return bp::Device::parse(std::string(name) + ":0");
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<bp::Device> device = open_device(argc > 1 ? argv[1] : "reference");
  if (!device) return 2;
  bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, *device);
  bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, *device);
  bp::Tensor out = bp::empty({1}, bp::ScalarType::Float32, *device);
  // Warm up: first calls build the catalog, look up op ids and fault pages in.
  for (int i = 0; i < 100; ++i) bp::add_out(out, a, bp::add(a, b));
  measured_add(a, b);
  measured_add_out(out, a, b);
  const std::filesystem::path trace = std::filesystem::temp_directory_path() /
                                      ("bp_bench_trace_" + std::to_string(::getpid()) + ".json");
  bp::start_trace(trace);
  measured_add_out_traced(out, a, b);
  const size_t events = bp::stop_trace();
  std::filesystem::remove(trace);
  float fa = 1.5f, fb = 2.0f, fo = 0;
  measured_hand_loop(&fo, &fa, &fb);
  std::printf("%s: iterations per measured function: %d (result %g, %g; %zu traced events)\n",
              device->str().c_str(), kIterations, bp::to_vector<float>(out)[0], fo, events);
  return 0;
}
