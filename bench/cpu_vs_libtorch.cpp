// The CPU plugin against libtorch (Debian's libtorch-dev 1.13), measured in one run with
// Google Benchmark: the plugin's load time, a 1-element add with and without output
// allocation, and a 16M-element f32 add (allocating and into an existing output) next to a
// hand-written OpenMP loop. Prints a table of ratios at the end: wall times on these
// shared machines drift, ratios measured in the same run hold. Built only with g++ when
// Torch is found (its 1.13 headers do not parse under clang in C++20).
#include <backplane/backplane.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

namespace {

constexpr int64_t kLarge = 16 << 20;
bp::Device g_cpu;

void BM_bp_add_1(benchmark::State& state) {
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) benchmark::DoNotOptimize(bp::add(a, b));
}
void BM_torch_add_1(benchmark::State& state) {
  const at::Tensor a = at::full({1}, 1.5), b = at::full({1}, 2.0);
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
}
void BM_bp_add_out_1(benchmark::State& state) {
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, g_cpu);
  bp::Tensor out = bp::empty({1}, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) bp::add_out(out, a, b);
}
void BM_torch_add_out_1(benchmark::State& state) {
  const at::Tensor a = at::full({1}, 1.5), b = at::full({1}, 2.0);
  at::Tensor out = at::empty({1});
  for (auto _ : state) at::add_out(out, a, b);
}
void BM_bp_add_16M(benchmark::State& state) {
  const bp::Tensor a = bp::full({kLarge}, 1.5, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor b = bp::full({kLarge}, 2.0, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) benchmark::DoNotOptimize(bp::add(a, b));
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}
void BM_torch_add_16M(benchmark::State& state) {
  const at::Tensor a = at::full({kLarge}, 1.5), b = at::full({kLarge}, 2.0);
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}
void BM_bp_add_out_16M(benchmark::State& state) {
  const bp::Tensor a = bp::full({kLarge}, 1.5, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor b = bp::full({kLarge}, 2.0, bp::ScalarType::Float32, g_cpu);
  bp::Tensor out = bp::empty({kLarge}, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) bp::add_out(out, a, b);
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}
void BM_torch_add_out_16M(benchmark::State& state) {
  const at::Tensor a = at::full({kLarge}, 1.5), b = at::full({kLarge}, 2.0);
  at::Tensor out = at::empty({kLarge});
  for (auto _ : state) at::add_out(out, a, b);
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}
// The anchor: a plain OpenMP loop the compiler vectorises, into a pre-faulted output.
void BM_loop_add_out_16M(benchmark::State& state) {
  std::vector<float> a(kLarge, 1.5f), b(kLarge, 2.0f), out(kLarge);
  for (auto _ : state) {
    float* o = out.data();
    const float* x = a.data();
    const float* y = b.data();
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < kLarge; ++i) o[i] = x[i] + y[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}

// Keeps each run's time per iteration (ns) by benchmark name for the ratio table.
class RecordingReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, double> ns;
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) ns[r.benchmark_name()] = r.GetAdjustedRealTime();
    ConsoleReporter::ReportRuns(runs);
  }
};

}  // namespace

BENCHMARK(BM_bp_add_1);
BENCHMARK(BM_torch_add_1);
BENCHMARK(BM_bp_add_out_1);
BENCHMARK(BM_torch_add_out_1);
BENCHMARK(BM_bp_add_16M)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_add_16M)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_add_out_16M)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_add_out_16M)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_loop_add_out_16M)->Unit(benchmark::kMillisecond)->UseRealTime();

int main(int argc, char** argv) {
  const auto t0 = std::chrono::steady_clock::now();
  const bp::PluginLoadReport report =
      bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (report.status != bp::LoadStatus::Loaded) {
    std::fprintf(stderr, "cannot load the cpu plugin: %s\n", report.message.c_str());
    return 1;
  }
  g_cpu = bp::Device{bp::device_types::CPU, 0};
  at::set_num_threads(omp_get_max_threads());

  benchmark::Initialize(&argc, argv);
  RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  auto& t = reporter.ns;
  auto ratio = [&](const char* ours, const char* anchor) {
    if (!t.count(ours) || !t.count(anchor)) return;
    std::printf("%-22s %-22s  anchor/ours = %6.2fx\n", ours, anchor, t[anchor] / t[ours]);
  };
  std::printf("\ncpu plugin load (first load_plugin, includes dlopen): %.2f ms\n", load_ms);
  std::printf("threads: backplane (OpenMP) %d, libtorch %d\n", omp_get_max_threads(),
              at::get_num_threads());
  ratio("BM_bp_add_1", "BM_torch_add_1");
  ratio("BM_bp_add_out_1", "BM_torch_add_out_1");
  ratio("BM_bp_add_16M/real_time", "BM_torch_add_16M/real_time");
  ratio("BM_bp_add_out_16M/real_time", "BM_torch_add_out_16M/real_time");
  ratio("BM_bp_add_out_16M/real_time", "BM_loop_add_out_16M/real_time");
  return 0;
}
