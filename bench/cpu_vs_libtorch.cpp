// The CPU plugin against libtorch (Debian's libtorch-dev 1.13), measured in one run with
// Google Benchmark: the plugin's load time, a 1-element add with and without output
// allocation, and a 16M-element f32 add (allocating and into an existing output) next to
// hand-written loops (plain OpenMP, and streaming stores: bench/stream_add.hpp); f32 matmul 1024
// and 2048 next to the FP32 FMA peak measured here (bench/fma_peak.hpp); softmax, layer_norm and
// sum over rows of 4096, and the transpose-copy of a 4096x4096 matrix. Prints a table of ratios at
// the end: wall times on these shared machines drift, ratios measured in the same run hold
// (scripts/bench reads them from --benchmark_out instead). Built only with g++ when Torch is found
// (its 1.13 headers do not parse under clang in C++20). Also f32 conv2d forward of each
// distinct convolution of resnet18 at 224x224, batch 1 (bp::convolution against
// at::conv2d, both on oneDNN: docs/convolution.md).
#include "fma_peak.hpp"
#include "stream_add.hpp"

#include <backplane/backplane.hpp>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <omp.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
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
  bp::add_out(out, a, b);  // faults the output's pages in: not what is measured
  for (auto _ : state) bp::add_out(out, a, b);
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}
void BM_torch_add_out_16M(benchmark::State& state) {
  const at::Tensor a = at::full({kLarge}, 1.5), b = at::full({kLarge}, 2.0);
  at::Tensor out = at::empty({kLarge});
  at::add_out(out, a, b);  // faults the output's pages in, as for bp::add_out
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
// The best hand-written loop: widest vectors and streaming stores (bench/stream_add.hpp).
void BM_stream_add_out_16M(benchmark::State& state) {
  const auto aligned = [](float value) {
    float* p = static_cast<float*>(std::aligned_alloc(64, kLarge * sizeof(float)));
    for (int64_t i = 0; i < kLarge; ++i) p[i] = value;
    return std::unique_ptr<float, decltype(&std::free)>(p, &std::free);
  };
  const auto a = aligned(1.5f), b = aligned(2.0f), out = aligned(0.0f);
  for (auto _ : state) {
    bp::bench::stream_add(a.get(), b.get(), out.get(), kLarge);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}

// --- f32 matmul, allocating on both sides (at::mm has no cheaper form users reach for) ---
void set_flops(benchmark::State& state, int64_t n) {
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(n * n * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}
void BM_bp_matmul(benchmark::State& state) {
  const int64_t n = state.range(0);
  const bp::Tensor a = bp::full({n, n}, 0.5, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor b = bp::full({n, n}, 0.25, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) benchmark::DoNotOptimize(bp::matmul(a, b));
  set_flops(state, n);
}
void BM_torch_mm(benchmark::State& state) {
  const int64_t n = state.range(0);
  const at::Tensor a = at::full({n, n}, 0.5), b = at::full({n, n}, 0.25);
  for (auto _ : state) benchmark::DoNotOptimize(at::mm(a, b));
  set_flops(state, n);
}
// --- conv2d of resnet18's convolutions (batch 1, 224x224 input) ---------------------------
struct ConvShape {
  int64_t channels, size, out_channels, kernel, stride, padding;
};
constexpr ConvShape kResnet18Convs[] = {
    {3, 224, 64, 7, 2, 3},    // stem
    {64, 56, 64, 3, 1, 1},    // layer1
    {64, 56, 128, 3, 2, 1},   // layer2, first
    {64, 56, 128, 1, 2, 0},   // layer2, downsample
    {128, 28, 128, 3, 1, 1},  // layer2
    {256, 14, 256, 3, 1, 1},  // layer3
    {512, 7, 512, 3, 1, 1},   // layer4
};
void BM_bp_conv2d(benchmark::State& state) {
  const ConvShape& c = kResnet18Convs[state.range(0)];
  const bp::Tensor x =
      bp::full({1, c.channels, c.size, c.size}, 0.5, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor w = bp::full({c.out_channels, c.channels, c.kernel, c.kernel}, 0.25,
                                bp::ScalarType::Float32, g_cpu);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        bp::convolution(x, w, std::nullopt, {c.stride}, {c.padding}, {1}, false, {0}, 1));
}
void BM_torch_conv2d(benchmark::State& state) {
  const ConvShape& c = kResnet18Convs[state.range(0)];
  const at::Tensor x = at::full({1, c.channels, c.size, c.size}, 0.5);
  const at::Tensor w = at::full({c.out_channels, c.channels, c.kernel, c.kernel}, 0.25);
  for (auto _ : state) benchmark::DoNotOptimize(at::conv2d(x, w, {}, {c.stride}, {c.padding}));
}

// The anchor of the matmul rows: FP32 FMAs from registers on every thread (FLOP/s).
void BM_fma_peak(benchmark::State& state) {
  double flops = 0;
  for (auto _ : state) {
#pragma omp parallel reduction(+ : flops)
    flops += bp::bench::fma_peak_flops(1 << 22);
  }
  state.counters["FLOP/s"] = benchmark::Counter(flops, benchmark::Counter::kIsRate);
}

// --- row operations over [1024, 4096] f32, and a 4096x4096 transpose-copy ---
constexpr int64_t kRows = 1024, kRow = 4096, kSquare = 4096;
void BM_bp_softmax(benchmark::State& state) {
  const bp::Tensor a = bp::full({kRows, kRow}, 0.5, bp::ScalarType::Float32, g_cpu);
  bp::Tensor out = bp::empty({kRows, kRow}, bp::ScalarType::Float32, g_cpu);
  bp::softmax_out(out, a, -1);  // faults the output in (as in every *_out benchmark here)
  for (auto _ : state) bp::softmax_out(out, a, -1);
}
void BM_torch_softmax(benchmark::State& state) {
  const at::Tensor a = at::full({kRows, kRow}, 0.5);
  at::Tensor out = at::empty({kRows, kRow});
  at::softmax_out(out, a, -1);
  for (auto _ : state) at::softmax_out(out, a, -1);
}
void BM_bp_layer_norm(benchmark::State& state) {
  const bp::Tensor a = bp::full({kRows, kRow}, 0.5, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) benchmark::DoNotOptimize(bp::layer_norm(a, {kRow}));
}
void BM_torch_layer_norm(benchmark::State& state) {
  const at::Tensor a = at::full({kRows, kRow}, 0.5);
  for (auto _ : state) benchmark::DoNotOptimize(at::layer_norm(a, {kRow}));
}
void BM_bp_sum(benchmark::State& state) {
  const bp::Tensor a = bp::full({kRows, kRow}, 0.5, bp::ScalarType::Float32, g_cpu);
  bp::Tensor out = bp::empty({kRows}, bp::ScalarType::Float32, g_cpu);
  bp::sum_out(out, a, std::vector<int64_t>{-1});
  for (auto _ : state) bp::sum_out(out, a, std::vector<int64_t>{-1});
}
void BM_torch_sum(benchmark::State& state) {
  const at::Tensor a = at::full({kRows, kRow}, 0.5);
  at::Tensor out = at::empty({kRows});
  at::sum_out(out, a, {-1});
  for (auto _ : state) at::sum_out(out, a, {-1});
}
// Into a preallocated output on both sides: a fresh 64 MiB output would time page faults.
void BM_bp_transpose_copy(benchmark::State& state) {
  const bp::Tensor a = bp::full({kSquare, kSquare}, 0.5, bp::ScalarType::Float32, g_cpu);
  bp::Tensor out = bp::empty({kSquare, kSquare}, bp::ScalarType::Float32, g_cpu);
  bp::copy_(out, a.t());
  for (auto _ : state) bp::copy_(out, a.t());
  state.SetBytesProcessed(state.iterations() * kSquare * kSquare * 8);
}
void BM_torch_transpose_copy(benchmark::State& state) {
  const at::Tensor a = at::full({kSquare, kSquare}, 0.5);
  at::Tensor out = at::empty({kSquare, kSquare});
  out.copy_(a.t());
  for (auto _ : state) out.copy_(a.t());
  state.SetBytesProcessed(state.iterations() * kSquare * kSquare * 8);
}

// --- op set v2 over [1024, 4096] f32: random fills (Philox against PyTorch's mt19937),
// a sort of every row, and a scatter_add of every row into 1024 columns ---
void BM_bp_uniform(benchmark::State& state) {
  bp::Tensor a = bp::empty({kRows, kRow}, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) bp::uniform_(a, 0.0, 1.0);
}
void BM_torch_uniform(benchmark::State& state) {
  at::Tensor a = at::empty({kRows, kRow});
  for (auto _ : state) a.uniform_(0.0, 1.0);
}
void BM_bp_normal(benchmark::State& state) {
  bp::Tensor a = bp::empty({kRows, kRow}, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) bp::normal_(a, 0.0, 1.0);
}
void BM_torch_normal(benchmark::State& state) {
  at::Tensor a = at::empty({kRows, kRow});
  for (auto _ : state) a.normal_(0.0, 1.0);
}
void BM_bp_bernoulli(benchmark::State& state) {
  bp::Tensor a = bp::empty({kRows, kRow}, bp::ScalarType::Float32, g_cpu);
  for (auto _ : state) bp::bernoulli_(a, 0.9);
}
void BM_torch_bernoulli(benchmark::State& state) {
  at::Tensor a = at::empty({kRows, kRow});
  for (auto _ : state) a.bernoulli_(0.9);
}
void BM_bp_sort(benchmark::State& state) {
  bp::Tensor a = bp::empty({kRows, kRow}, bp::ScalarType::Float32, g_cpu);
  bp::uniform_(a, -1.0, 1.0);
  for (auto _ : state) benchmark::DoNotOptimize(bp::sort(a, -1));
}
void BM_torch_sort(benchmark::State& state) {
  const at::Tensor a = at::rand({kRows, kRow});
  for (auto _ : state) benchmark::DoNotOptimize(at::sort(a, -1));
}
void BM_bp_scatter_add(benchmark::State& state) {
  const bp::Tensor self = bp::zeros({kRows, 1024}, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor src = bp::full({kRows, kRow}, 0.5, bp::ScalarType::Float32, g_cpu);
  bp::Tensor index = bp::empty({kRows, kRow}, bp::ScalarType::Int64, g_cpu);
  bp::random_(index, 0, 1024);
  for (auto _ : state) benchmark::DoNotOptimize(bp::scatter_add(self, 1, index, src));
}
void BM_torch_scatter_add(benchmark::State& state) {
  const at::Tensor self = at::zeros({kRows, 1024});
  const at::Tensor src = at::full({kRows, kRow}, 0.5);
  const at::Tensor index = at::randint(0, 1024, {kRows, kRow});
  for (auto _ : state) benchmark::DoNotOptimize(at::scatter_add(self, 1, index, src));
}

// --- indexing with data-dependent shapes over [1024, 4096] f32 with half of it zero:
// nonzero, masked_select, and rows gathered (x[i]) and added (index_put_ with accumulate)
// through 8192 random row indices of [1024, 256] ---
bp::Tensor half_zero_bp() {
  bp::Tensor a = bp::empty({kRows, kRow}, bp::ScalarType::Float32, g_cpu);
  bp::uniform_(a, -1.0, 1.0);
  return bp::relu(a);
}
at::Tensor half_zero_torch() {
  return at::relu(at::rand({kRows, kRow}) * 2 - 1);
}
void BM_bp_nonzero(benchmark::State& state) {
  const bp::Tensor a = half_zero_bp();
  for (auto _ : state) benchmark::DoNotOptimize(bp::nonzero(a));
}
void BM_torch_nonzero(benchmark::State& state) {
  const at::Tensor a = half_zero_torch();
  for (auto _ : state) benchmark::DoNotOptimize(at::nonzero(a));
}
void BM_bp_masked_select(benchmark::State& state) {
  const bp::Tensor a = half_zero_bp();
  const bp::Tensor mask = bp::gt(a, bp::Scalar(0.0));
  for (auto _ : state) benchmark::DoNotOptimize(bp::masked_select(a, mask));
}
void BM_torch_masked_select(benchmark::State& state) {
  const at::Tensor a = half_zero_torch();
  const at::Tensor mask = a > 0;
  for (auto _ : state) benchmark::DoNotOptimize(at::masked_select(a, mask));
}
constexpr int64_t kPicked = 8192, kWidth = 256;
void BM_bp_index(benchmark::State& state) {
  const bp::Tensor a = bp::full({kRows, kWidth}, 0.5, bp::ScalarType::Float32, g_cpu);
  bp::Tensor rows = bp::empty({kPicked}, bp::ScalarType::Int64, g_cpu);
  bp::random_(rows, 0, kRows);
  for (auto _ : state) benchmark::DoNotOptimize(bp::index(a, {rows}));
}
void BM_torch_index(benchmark::State& state) {
  const at::Tensor a = at::full({kRows, kWidth}, 0.5);
  const at::Tensor rows = at::randint(0, kRows, {kPicked});
  for (auto _ : state) benchmark::DoNotOptimize(a.index({rows}));
}
void BM_bp_index_put_accumulate(benchmark::State& state) {
  bp::Tensor a = bp::zeros({kRows, kWidth}, bp::ScalarType::Float32, g_cpu);
  const bp::Tensor values = bp::full({kPicked, kWidth}, 0.5, bp::ScalarType::Float32, g_cpu);
  bp::Tensor rows = bp::empty({kPicked}, bp::ScalarType::Int64, g_cpu);
  bp::random_(rows, 0, kRows);
  for (auto _ : state) bp::index_put_(a, {rows}, values, true);
}
void BM_torch_index_put_accumulate(benchmark::State& state) {
  at::Tensor a = at::zeros({kRows, kWidth});
  const at::Tensor values = at::full({kPicked, kWidth}, 0.5);
  const at::Tensor rows = at::randint(0, kRows, {kPicked});
  for (auto _ : state) a.index_put_({rows}, values, true);
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
BENCHMARK(BM_stream_add_out_16M)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_matmul)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_mm)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_fma_peak)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_softmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_softmax)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_layer_norm)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_layer_norm)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_sum)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_transpose_copy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_conv2d)->DenseRange(0, 6)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_conv2d)->DenseRange(0, 6)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_transpose_copy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_uniform)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_uniform)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_normal)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_normal)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_bernoulli)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_bernoulli)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_sort)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_sort)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_scatter_add)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_scatter_add)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_nonzero)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_nonzero)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_masked_select)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_masked_select)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_index)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_index)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_bp_index_put_accumulate)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_torch_index_put_accumulate)->Unit(benchmark::kMillisecond)->UseRealTime();

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
  ratio("BM_bp_add_out_16M/real_time", "BM_stream_add_out_16M/real_time");
  for (const char* n : {"1024", "2048"})
    ratio(("BM_bp_matmul/" + std::string(n) + "/real_time").c_str(),
          ("BM_torch_mm/" + std::string(n) + "/real_time").c_str());
  for (int i = 0; i <= 6; ++i)
    ratio(("BM_bp_conv2d/" + std::to_string(i) + "/real_time").c_str(),
          ("BM_torch_conv2d/" + std::to_string(i) + "/real_time").c_str());
  for (const char* op :
       {"softmax", "layer_norm", "sum", "transpose_copy", "uniform", "normal", "bernoulli", "sort",
        "scatter_add", "nonzero", "masked_select", "index", "index_put_accumulate"})
    ratio(("BM_bp_" + std::string(op) + "/real_time").c_str(),
          ("BM_torch_" + std::string(op) + "/real_time").c_str());
  return 0;
}
