// The OpenCL plugin against plain OpenCL on the same device (opencl:0: PoCL's CPU device on
// the CI machines), measured in one run with Google Benchmark; scripts/bench-opencl runs it
// and docs/opencl.md ("Performance") records the figures.
//   - 16M-element f32 add: bp::add_out against a hand-written `out[i] = a[i] + b[i]` kernel
//     in its own context and queue (GB/s counting 12 bytes per element; goal >= 90%);
//   - tiny-op latency: a 1-element add synchronised after every op, and pipelined (kPipeline
//     ops, then one synchronise; and the enqueues alone, the host's share), against the plain
//     kernel with clEnqueueNDRangeKernel and clFinish; and the allocating bp::add with the
//     caching allocator against the same with allocator mode direct (docs/allocator.md);
//   - f32 matmul GFLOP/s: bp::matmul_out (the plugin's default, and its tiled kernel forced
//     with BACKPLANE_OPENCL_MATMUL=tiled) against CLBlastSgemm called directly.
// Every timed iteration ends with the device idle (the public device API's synchronize, or
// clFinish). The table at the end gives medians over --benchmark_repetitions.
#include "recording_reporter.hpp"

#include <backplane/backplane.hpp>

#include <CL/cl.h>
#include <benchmark/benchmark.h>
#if BP_BENCH_HAVE_CLBLAST
#include <clblast_c.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using bp::bench::Figure;
using bp::bench::min_of;

constexpr int64_t kLarge = 16 << 20;
constexpr int kPipeline = 1000;
const bp::Device kDevice = bp::Device(bp::device_types::OpenCL, 0);

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed with OpenCL error " +
                             std::to_string(err));
}

// Waits for the device's queue through the public device API (what the runtime calls
// before reading results back).
bp::RawDeviceApi g_raw;
void synchronize() {
  if (g_raw.api->synchronize(g_raw.ctx, g_raw.index, nullptr) != BP_OK)
    throw std::runtime_error("synchronize " + kDevice.str() + " failed");
}

// The anchor: the same device driven directly, in a context and queue of its own.
constexpr const char* kAddSource = R"CL(
__kernel void add(__global const float* a, __global const float* b, __global float* out) {
  const size_t i = get_global_id(0);
  out[i] = a[i] + b[i];
}
)CL";

struct PlainCl {
  cl_device_id device = nullptr;
  std::string name;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
  cl_program program = nullptr;
  cl_kernel add = nullptr;

  // The first device of the first platform that has one, in the plugin's order (opencl:0).
  void open() {
    cl_uint count = 0;
    check(clGetPlatformIDs(0, nullptr, &count), "clGetPlatformIDs");
    std::vector<cl_platform_id> platforms(count);
    check(clGetPlatformIDs(count, platforms.data(), nullptr), "clGetPlatformIDs");
    for (cl_platform_id p : platforms) {
      cl_uint n = 0;
      if (clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &device, &n) == CL_SUCCESS && n > 0) break;
      device = nullptr;
    }
    if (!device) throw std::runtime_error("no OpenCL device");
    char text[256] = {};
    clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof text - 1, text, nullptr);
    name = text;
    cl_int err = CL_SUCCESS;
    context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
    check(err, "clCreateContext");
    queue = clCreateCommandQueueWithProperties(context, device, nullptr, &err);
    check(err, "clCreateCommandQueueWithProperties");
    const char* source = kAddSource;
    program = clCreateProgramWithSource(context, 1, &source, nullptr, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", nullptr, nullptr), "clBuildProgram");
    add = clCreateKernel(program, "add", &err);
    check(err, "clCreateKernel");
  }
  ~PlainCl() {
    if (add) clReleaseKernel(add);
    if (program) clReleaseProgram(program);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  cl_mem buffer(size_t floats, float value) const {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context, CL_MEM_READ_WRITE, floats * sizeof(float), nullptr, &err);
    check(err, "clCreateBuffer");
    check(clEnqueueFillBuffer(queue, m, &value, sizeof value, 0, floats * sizeof(float), 0, nullptr,
                              nullptr),
          "clEnqueueFillBuffer");
    check(clFinish(queue), "clFinish");
    return m;
  }
  cl_mem buffer(const std::vector<float>& values) const {
    cl_int err = CL_SUCCESS;
    cl_mem m =
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                       values.size() * sizeof(float), const_cast<float*>(values.data()), &err);
    check(err, "clCreateBuffer");
    return m;
  }
};
PlainCl g_cl;

// Three buffers a, b, out of `floats` elements, the add kernel's arguments set on them.
struct PlainAdd {
  cl_mem a, b, out;
  size_t size;
  explicit PlainAdd(size_t floats)
      : a(g_cl.buffer(floats, 1.5f)),
        b(g_cl.buffer(floats, 2.0f)),
        out(g_cl.buffer(floats, 0.0f)),
        size(floats) {}
  ~PlainAdd() {
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(out);
  }
  PlainAdd(const PlainAdd&) = delete;
  PlainAdd& operator=(const PlainAdd&) = delete;
  void bind() const {
    check(clSetKernelArg(g_cl.add, 0, sizeof(cl_mem), &a), "clSetKernelArg");
    check(clSetKernelArg(g_cl.add, 1, sizeof(cl_mem), &b), "clSetKernelArg");
    check(clSetKernelArg(g_cl.add, 2, sizeof(cl_mem), &out), "clSetKernelArg");
  }
  void enqueue() const {
    check(clEnqueueNDRangeKernel(g_cl.queue, g_cl.add, 1, nullptr, &size, nullptr, 0, nullptr,
                                 nullptr),
          "clEnqueueNDRangeKernel");
  }
};

// --- 16M-element add -------------------------------------------------------------------

void BM_bp_add_16M(benchmark::State& state) {
  const bp::Tensor a = bp::full({kLarge}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({kLarge}, 2.0, bp::ScalarType::Float32, kDevice);
  bp::Tensor out = bp::empty({kLarge}, bp::ScalarType::Float32, kDevice);
  bp::add_out(out, a, b);
  synchronize();
  for (auto _ : state) {
    bp::add_out(out, a, b);
    synchronize();
  }
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}
void BM_cl_add_16M(benchmark::State& state) {
  const PlainAdd add(kLarge);
  add.bind();
  for (auto _ : state) {
    add.enqueue();
    check(clFinish(g_cl.queue), "clFinish");
  }
  state.SetBytesProcessed(state.iterations() * kLarge * 12);
}

// --- tiny-op latency: 1 element ------------------------------------------------------

void BM_bp_add_1_sync(benchmark::State& state) {
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, kDevice);
  bp::Tensor out = bp::empty({1}, bp::ScalarType::Float32, kDevice);
  for (auto _ : state) {
    bp::add_out(out, a, b);
    synchronize();
  }
}
void BM_cl_add_1_sync(benchmark::State& state) {
  const PlainAdd add(1);
  add.bind();
  for (auto _ : state) {
    add.enqueue();
    check(clFinish(g_cl.queue), "clFinish");
  }
}
void BM_bp_add_1_pipelined(benchmark::State& state) {
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, kDevice);
  bp::Tensor out = bp::empty({1}, bp::ScalarType::Float32, kDevice);
  for (auto _ : state) {
    for (int i = 0; i < kPipeline; ++i) bp::add_out(out, a, b);
    synchronize();
  }
  state.counters["s/op"] = benchmark::Counter(
      kPipeline, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
void BM_cl_add_1_pipelined(benchmark::State& state) {
  const PlainAdd add(1);
  add.bind();
  for (auto _ : state) {
    for (int i = 0; i < kPipeline; ++i) add.enqueue();
    check(clFinish(g_cl.queue), "clFinish");
  }
  state.counters["s/op"] = benchmark::Counter(
      kPipeline, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
// The host's share of a pipelined op: only the enqueues are timed (the device runs them
// meanwhile; the synchronise that follows is not timed).
void BM_bp_add_1_enqueue(benchmark::State& state) {
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, kDevice);
  bp::Tensor out = bp::empty({1}, bp::ScalarType::Float32, kDevice);
  for (auto _ : state) {
    for (int i = 0; i < kPipeline; ++i) bp::add_out(out, a, b);
    state.PauseTiming();
    synchronize();
    state.ResumeTiming();
  }
}
void BM_cl_add_1_enqueue(benchmark::State& state) {
  const PlainAdd add(1);
  add.bind();
  for (auto _ : state) {
    for (int i = 0; i < kPipeline; ++i) add.enqueue();
    state.PauseTiming();
    check(clFinish(g_cl.queue), "clFinish");
    state.ResumeTiming();
  }
}

// Allocating tiny ops: bp::add (a new output each time) with the caching allocator and
// without it (allocator mode direct: each output is a clCreateBuffer, each free a
// clReleaseMemObject). The plain kernel above (no allocation) is the anchor.
class AllocatorModeScope {
 public:
  explicit AllocatorModeScope(bp::AllocatorMode mode) { bp::set_allocator_mode(mode); }
  ~AllocatorModeScope() { bp::set_allocator_mode(saved_); }
  AllocatorModeScope(const AllocatorModeScope&) = delete;
  AllocatorModeScope& operator=(const AllocatorModeScope&) = delete;

 private:
  bp::AllocatorMode saved_ = bp::allocator_mode();
};
void add_1_alloc_sync(benchmark::State& state, bp::AllocatorMode mode) {
  const AllocatorModeScope scope(mode);
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, kDevice);
  { const bp::Tensor warm = bp::add(a, b); }  // steady state: the cache holds the block
  for (auto _ : state) {
    bp::Tensor c = bp::add(a, b);
    synchronize();
  }
}
void add_1_alloc_pipelined(benchmark::State& state, bp::AllocatorMode mode) {
  const AllocatorModeScope scope(mode);
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, kDevice);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, kDevice);
  { const bp::Tensor warm = bp::add(a, b); }  // steady state: the cache holds the block
  for (auto _ : state) {
    for (int i = 0; i < kPipeline; ++i) bp::Tensor c = bp::add(a, b);
    synchronize();
  }
}
void BM_bp_add_1_alloc_sync(benchmark::State& state) {
  add_1_alloc_sync(state, bp::AllocatorMode::Caching);
}
void BM_bp_add_1_alloc_direct_sync(benchmark::State& state) {
  add_1_alloc_sync(state, bp::AllocatorMode::Direct);
}
void BM_bp_add_1_alloc_pipelined(benchmark::State& state) {
  add_1_alloc_pipelined(state, bp::AllocatorMode::Caching);
}
void BM_bp_add_1_alloc_direct_pipelined(benchmark::State& state) {
  add_1_alloc_pipelined(state, bp::AllocatorMode::Direct);
}

// --- f32 matmul ----------------------------------------------------------------------

std::vector<float> random_matrix(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n * n));
  for (float& x : v) x = dist(gen);
  return v;
}

void set_flops(benchmark::State& state, int64_t n) {
  state.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(n * n * n),
                                                benchmark::Counter::kIsIterationInvariantRate);
}

// BACKPLANE_OPENCL_MATMUL for the lifetime of the object (the plugin reads it per call).
class MatmulChoice {
 public:
  explicit MatmulChoice(const char* value) {
    if (const char* old = std::getenv(kName)) {
      old_ = old;
      had_ = true;
    }
    if (value)
      setenv(kName, value, 1);
    else
      unsetenv(kName);
  }
  ~MatmulChoice() {
    if (had_)
      setenv(kName, old_.c_str(), 1);
    else
      unsetenv(kName);
  }
  MatmulChoice(const MatmulChoice&) = delete;
  MatmulChoice& operator=(const MatmulChoice&) = delete;

 private:
  static constexpr const char* kName = "BACKPLANE_OPENCL_MATMUL";
  std::string old_;
  bool had_ = false;
};

std::vector<float> bp_matmul(int64_t n, benchmark::State* state) {
  const bp::Tensor a = bp::from_vector(random_matrix(n, 1), {n, n}, kDevice);
  const bp::Tensor b = bp::from_vector(random_matrix(n, 2), {n, n}, kDevice);
  bp::Tensor out = bp::empty({n, n}, bp::ScalarType::Float32, kDevice);
  bp::matmul_out(out, a, b);
  synchronize();
  if (!state) return bp::to_vector<float>(out);
  for (auto _ : *state) {
    bp::matmul_out(out, a, b);
    synchronize();
  }
  set_flops(*state, n);
  return {};
}
void BM_bp_matmul(benchmark::State& state) {
  bp_matmul(state.range(0), &state);
}
void BM_bp_matmul_tiled(benchmark::State& state) {
  const MatmulChoice tiled("tiled");
  bp_matmul(state.range(0), &state);
}

#if BP_BENCH_HAVE_CLBLAST
std::vector<float> clblast_matmul(int64_t n, benchmark::State* state) {
  const auto size = static_cast<size_t>(n);
  cl_mem a = g_cl.buffer(random_matrix(n, 1));
  cl_mem b = g_cl.buffer(random_matrix(n, 2));
  cl_mem c = g_cl.buffer(size * size, 0.0f);
  auto sgemm = [&] {
    const CLBlastStatusCode s =
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, size, size,
                     size, 1.0f, a, 0, size, b, 0, size, 0.0f, c, 0, size, &g_cl.queue, nullptr);
    if (s != CLBlastSuccess)
      throw std::runtime_error("CLBlastSgemm failed with status " + std::to_string(s));
    check(clFinish(g_cl.queue), "clFinish");
  };
  sgemm();
  std::vector<float> result;
  if (state) {
    for (auto _ : *state) sgemm();
    set_flops(*state, n);
  } else {
    result.resize(size * size);
    check(clEnqueueReadBuffer(g_cl.queue, c, CL_TRUE, 0, size * size * sizeof(float), result.data(),
                              0, nullptr, nullptr),
          "clEnqueueReadBuffer");
  }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseMemObject(c);
  return result;
}
void BM_clblast_sgemm(benchmark::State& state) {
  clblast_matmul(state.range(0), &state);
}
#endif

double max_relative_difference(const std::vector<float>& x, const std::vector<float>& y) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(x[i]) - y[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(y[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

// Runs `f` once and returns its wall time in ms: the first calls compile kernels.
template <typename F>
double first_call_ms(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The first matmuls, timed (they build programs or load them from the driver's cache), and
// a check that the three matmuls agree.
void first_calls() {
  std::vector<float> ours, tiled;
  const double bp_first = first_call_ms([&] { ours = bp_matmul(256, nullptr); });
  double tiled_first = 0;
  {
    const MatmulChoice choice("tiled");
    tiled_first = first_call_ms([&] { tiled = bp_matmul(256, nullptr); });
  }
  std::printf("first matmul 256 (builds programs): default %.0f ms, tiled %.0f ms\n", bp_first,
              tiled_first);
  std::printf("matmul 256: default vs tiled, max |difference| / max |value| = %.2g\n",
              max_relative_difference(ours, tiled));
#if BP_BENCH_HAVE_CLBLAST
  std::vector<float> blas;
  const double blas_first = first_call_ms([&] { blas = clblast_matmul(256, nullptr); });
  std::printf("first CLBlastSgemm 256 (own context): %.0f ms; default vs CLBlast: %.2g\n",
              blas_first, max_relative_difference(ours, blas));
#endif
}

// One line of the closing table: a figure next to its anchor, median [best], and their
// ratio. Rows whose benchmark did not run (filtered out) are left out.
void print_row(const char* what, const char* ours_name, const Figure& ours, const char* anchor_name,
               const Figure& anchor, const char* note = "") {
  if (std::isnan(ours.median)) return;
  std::printf("%-34s %-12s %7.1f [%7.1f]  %-13s %7.1f [%7.1f]  ratio %5.2f [%5.2f]%s\n", what,
              ours_name, ours.median, ours.best, anchor_name, anchor.median, anchor.best,
              ours.median / anchor.median, ours.best / anchor.best, note);
}

}  // namespace

// Real time (the host thread waits for the device), and the best repetition next to the
// median.
void timed(benchmark::internal::Benchmark* b) {
  b->UseRealTime()->ComputeStatistics("min", min_of);
}
void sizes(benchmark::internal::Benchmark* b) {
  timed(b);
  b->Arg(256)->Arg(512)->Arg(1024)->Unit(benchmark::kMillisecond);
}

BENCHMARK(BM_bp_add_16M)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cl_add_16M)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bp_add_1_sync)->Apply(timed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_cl_add_1_sync)->Apply(timed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_bp_add_1_pipelined)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cl_add_1_pipelined)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bp_add_1_enqueue)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_cl_add_1_enqueue)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bp_add_1_alloc_sync)->Apply(timed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_bp_add_1_alloc_direct_sync)->Apply(timed)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_bp_add_1_alloc_pipelined)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bp_add_1_alloc_direct_pipelined)->Apply(timed)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bp_matmul)->Apply(sizes);
BENCHMARK(BM_bp_matmul_tiled)->Apply(sizes);
#if BP_BENCH_HAVE_CLBLAST
BENCHMARK(BM_clblast_sgemm)->Apply(sizes);
#endif

// The table: each Backplane figure next to its anchor, measured in the same run.
void print_figures(bp::bench::RecordingReporter& reporter) {
  // Rates from a time per unit of work (`work / seconds`), and times per op in us.
  auto rate = [&](const std::string& name, double work) {
    const Figure f = reporter.figure(name);
    return Figure{work / f.median, work / f.best};
  };
  auto per_op = [&](const std::string& name, double ops) {
    const Figure f = reporter.figure(name);
    return Figure{1e6 * f.median / ops, 1e6 * f.best / ops};
  };
  std::printf("\nmedian of the repetitions [best repetition], all measured in this run\n");
  const double bytes = 12e-9 * kLarge;
  print_row("add 16M f32, GB/s", "opencl:0", rate("BM_bp_add_16M", bytes), "plain kernel",
            rate("BM_cl_add_16M", bytes), " (goal >= 0.90)");
  print_row("add 1 element, sync per op, us", "opencl:0", per_op("BM_bp_add_1_sync", 1),
            "plain kernel", per_op("BM_cl_add_1_sync", 1));
  print_row("add 1 element, pipelined, us/op", "opencl:0",
            per_op("BM_bp_add_1_pipelined", kPipeline), "plain kernel",
            per_op("BM_cl_add_1_pipelined", kPipeline));
  print_row("add 1 element, enqueue only, us/op", "opencl:0",
            per_op("BM_bp_add_1_enqueue", kPipeline), "plain kernel",
            per_op("BM_cl_add_1_enqueue", kPipeline));
  print_row("bp::add 1 element, sync per op, us", "caching", per_op("BM_bp_add_1_alloc_sync", 1),
            "direct alloc", per_op("BM_bp_add_1_alloc_direct_sync", 1));
  print_row("bp::add 1 element, pipelined, us/op", "caching",
            per_op("BM_bp_add_1_alloc_pipelined", kPipeline), "direct alloc",
            per_op("BM_bp_add_1_alloc_direct_pipelined", kPipeline));
  print_row("bp::add 1 element, pipelined, us/op", "caching",
            per_op("BM_bp_add_1_alloc_pipelined", kPipeline), "plain kernel",
            per_op("BM_cl_add_1_pipelined", kPipeline), " (no allocation)");
  for (int n : {256, 512, 1024}) {
    const std::string arg = "/" + std::to_string(n);
    const double flop = 2e-9 * n * n * n;
    const std::string what = "matmul " + std::to_string(n) + " f32, GFLOP/s";
    print_row(what.c_str(), "opencl:0", rate("BM_bp_matmul" + arg, flop), "CLBlast alone",
              rate("BM_clblast_sgemm" + arg, flop));
    print_row(what.c_str(), "tiled kernel", rate("BM_bp_matmul_tiled" + arg, flop), "CLBlast alone",
              rate("BM_clblast_sgemm" + arg, flop));
  }
}

int main(int argc, char** argv) try {
  benchmark::Initialize(&argc, argv);
  const bp::PluginLoadReport report =
      bp::load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_opencl.so");
  if (report.status != bp::LoadStatus::Loaded) {
    std::fprintf(stderr, "bench_opencl: the opencl plugin did not load (%s): %s\n",
                 std::string(bp::to_string(report.status)).c_str(), report.message.c_str());
    return 1;
  }
  g_raw = bp::raw_device_api(kDevice);
  g_cl.open();
  const bp::DeviceInfo info = bp::device_info(kDevice);
  std::printf("%s: %s; plain OpenCL on: %s\n", kDevice.str().c_str(), info.name.c_str(),
              g_cl.name.c_str());

  first_calls();

  bp::bench::RecordingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  print_figures(reporter);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_opencl: %s\n", e.what());
  return 1;
}
