// The caching allocator on the CPU plugin (cpu:0): an allocating f32 bp::add (a new output
// every op) with the cache and with allocator mode direct (every output a fresh
// aligned_alloc, so large ones are fresh pages that fault in), against bp::add_out into a
// preallocated output as the anchor (no allocation at all), for 1 element to 16M elements.
// scripts/bench-allocator runs it; docs/allocator.md records the figures.
#include "recording_reporter.hpp"

#include <backplane/backplane.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using bp::bench::Figure;
using bp::bench::min_of;

const bp::Device kDevice(bp::device_types::CPU, 0);
constexpr int64_t kSizes[] = {1, 4096, 262144, 4194304, 16777216};

class ModeScope {
 public:
  explicit ModeScope(bp::AllocatorMode mode) { bp::set_allocator_mode(mode); }
  ~ModeScope() { bp::set_allocator_mode(saved_); }
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

 private:
  bp::AllocatorMode saved_ = bp::allocator_mode();
};

void add(benchmark::State& state, bp::AllocatorMode mode) {
  const ModeScope scope(mode);
  const int64_t n = state.range(0);
  const bp::Tensor a = bp::full({n}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({n}, 2.0, bp::ScalarType::Float32, kDevice);
  // Steady state: with the cache, the output's block is already there (a benchmark run
  // in direct mode before this one emptied it). Without, every op is a fresh allocation.
  { const bp::Tensor warm = bp::add(a, b); }
  for (auto _ : state) {
    bp::Tensor c = bp::add(a, b);
    benchmark::DoNotOptimize(c.data_ptr());
  }
}
void BM_add_caching(benchmark::State& state) {
  add(state, bp::AllocatorMode::Caching);
}
void BM_add_direct(benchmark::State& state) {
  add(state, bp::AllocatorMode::Direct);
}
void BM_add_out(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bp::Tensor a = bp::full({n}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({n}, 2.0, bp::ScalarType::Float32, kDevice);
  bp::Tensor out = bp::empty({n}, bp::ScalarType::Float32, kDevice);
  bp::add_out(out, a, b);  // faults the output's pages in (a fresh block's are not yet)
  for (auto _ : state) bp::add_out(out, a, b);
}

void sizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : kSizes) b->Arg(n);
  b->UseRealTime()->ComputeStatistics("min", min_of)->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_add_caching)->Apply(sizes);
BENCHMARK(BM_add_direct)->Apply(sizes);
BENCHMARK(BM_add_out)->Apply(sizes);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const bp::PluginLoadReport report =
      bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
  if (report.status != bp::LoadStatus::Loaded) {
    std::fprintf(stderr, "bench_allocating_add: the cpu plugin did not load: %s\n",
                 report.message.c_str());
    return 1;
  }
  bp::bench::RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  std::printf(
      "\nus per op, median of the repetitions [best]; ratios against the caching allocator\n"
      "%-10s %21s %21s %21s %8s %8s\n",
      "elements", "add (caching)", "add (direct)", "add_out (no alloc)", "direct", "add_out");
  for (int64_t n : kSizes) {
    const std::string arg = "/" + std::to_string(n);
    const Figure c = reporter.figure("BM_add_caching" + arg);
    const Figure d = reporter.figure("BM_add_direct" + arg);
    const Figure o = reporter.figure("BM_add_out" + arg);
    if (std::isnan(c.median)) continue;
    std::printf("%-10lld %10.2f [%8.2f] %10.2f [%8.2f] %10.2f [%8.2f] %7.2fx %7.2fx\n",
                static_cast<long long>(n), 1e6 * c.median, 1e6 * c.best, 1e6 * d.median,
                1e6 * d.best, 1e6 * o.median, 1e6 * o.best, d.median / c.median,
                o.median / c.median);
  }
  const bp::MemoryStats s = bp::memory_stats(kDevice);
  std::printf("cpu:0 allocator: %llu allocations, %llu cache hits, %llu plugin allocs\n",
              static_cast<unsigned long long>(s.allocations),
              static_cast<unsigned long long>(s.cache_hits),
              static_cast<unsigned long long>(s.plugin_allocs));
  return 0;
}
