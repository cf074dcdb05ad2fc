// Instructions per call of a 1-element bp::add (allocating) and bp::add_out through the
// dispatcher and the reference backend, next to a direct hand-written add as the anchor;
// and bp::add_out again while tracing (docs/tracing.md: what recording an event costs).
// Run under callgrind (scripts/bench-dispatch does): only the measured_* functions are
// collected, each runs kIterations calls, so instructions / kIterations is the per-call cost.
#include <backplane/backplane.hpp>
#include <backplane/dispatch/trace.hpp>

#include <cstdio>
#include <filesystem>
#include <string>

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

}  // namespace

int main() {
  bp::Tensor a = bp::from_vector<float>({1.5f}, {1});
  bp::Tensor b = bp::from_vector<float>({2.0f}, {1});
  bp::Tensor out = bp::empty({1});
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
  std::printf("iterations per measured function: %d (result %g, %g; %zu traced events)\n",
              kIterations, bp::to_vector<float>(out)[0], fo, events);
  return 0;
}
