// The GPU figures of issue 7 on one device (default cuda:0), for scripts/gpu-check, which
// runs bench/gpu_torch.py on the same GPU in the same run and prints the ratios:
//   - copy_gbps: a device-to-device copy of 256M floats (bp::copy_, 2 x 1 GiB moved), the
//     bandwidth the add is held against;
//   - add_gbps: bp::add_out of 256M floats (3 x 1 GiB moved); goal >= 85% of copy_gbps;
//   - matmul_f32_tflops, matmul_bf16_tflops: bp::matmul_out of two 8192 x 8192 matrices;
//     goal >= 90% of torch.mm (FP32 without TF32, as torch's default);
//   - add1_us (a 1-element add_out, synchronised after each) and add1_pipelined_us (10000 of
//     them, one synchronise): dispatch + launch latency; goal <= torch's.
// A plain program, not Google Benchmark: the GPU machine has no Debian packages. Each figure
// is the median of --repeats timed runs, each ending with the device idle. Prints one JSON
// object: {"device": ..., "rows": [{"name", "unit", "value"}]}.
#include <backplane/backplane.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

bp::RawDeviceApi g_raw;

void synchronize() {
  if (g_raw.api->synchronize(g_raw.ctx, g_raw.index, nullptr) != BP_OK)
    throw std::runtime_error("synchronize of " + g_raw.backend + " device " +
                             std::to_string(g_raw.index) + " failed");
}

// Median seconds of `repeats` runs of `body` (after one untimed warm-up run).
double median_seconds(int repeats, const std::function<void()>& body) {
  body();
  synchronize();
  std::vector<double> times;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    synchronize();
    times.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

struct Row {
  std::string name, unit;
  double value;
};

bp::Tensor random_matrix(int64_t n, uint32_t seed, bp::ScalarType dtype, bp::Device device) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(n * n));
  for (float& v : values) v = dist(gen);
  const bp::Tensor t = bp::from_vector(values, {n, n}, device);
  return dtype == bp::ScalarType::Float32 ? t : bp::to(t, dtype);
}

struct Options {
  std::string device = "cuda:0";
  int repeats = 10;
  int64_t large = int64_t{256} << 20;  // elements of the copy and the add
  int64_t matmul_n = 8192;
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&] {
      if (i + 1 >= argc) throw std::runtime_error(arg + " needs a value");
      return std::string(argv[++i]);
    };
    if (arg == "--device")
      o.device = value();
    else if (arg == "--repeats")
      o.repeats = std::stoi(value());
    else if (arg == "--elements")
      o.large = std::stoll(value());
    else if (arg == "--matmul")
      o.matmul_n = std::stoll(value());
    else
      throw std::runtime_error("unknown argument " + arg +
                               " (--device SEL --repeats N --elements N --matmul N)");
  }
  return o;
}

// copy_gbps and add_gbps.
void bandwidth_rows(const Options& o, bp::Device device, std::vector<Row>& rows) {
  const bp::Tensor a = bp::full({o.large}, 1.5, bp::ScalarType::Float32, device);
  const bp::Tensor b = bp::full({o.large}, 2.0, bp::ScalarType::Float32, device);
  bp::Tensor out = bp::empty({o.large}, bp::ScalarType::Float32, device);
  const double gib = static_cast<double>(o.large) * 4 / 1e9;
  const double copy = median_seconds(o.repeats, [&] { bp::copy_(out, a); });
  rows.push_back({"copy_gbps", "GB/s", 2 * gib / copy});
  const double add = median_seconds(o.repeats, [&] { bp::add_out(out, a, b); });
  rows.push_back({"add_gbps", "GB/s", 3 * gib / add});
}

// matmul_f32_tflops and matmul_bf16_tflops.
void matmul_rows(const Options& o, bp::Device device, std::vector<Row>& rows) {
  const int64_t n = o.matmul_n;
  for (const auto& [dtype, name] : {std::pair{bp::ScalarType::Float32, "matmul_f32_tflops"},
                                    std::pair{bp::ScalarType::BFloat16, "matmul_bf16_tflops"}}) {
    const bp::Tensor a = random_matrix(n, 1, dtype, device);
    const bp::Tensor b = random_matrix(n, 2, dtype, device);
    bp::Tensor out = bp::empty({n, n}, dtype, device);
    const double t = median_seconds(std::max(3, o.repeats / 2), [&] { bp::matmul_out(out, a, b); });
    rows.push_back({name, "TFLOP/s", 2.0 * static_cast<double>(n) * n * n / t / 1e12});
  }
}

// add1_us and add1_pipelined_us.
void latency_rows(const Options& o, bp::Device device, std::vector<Row>& rows) {
  const bp::Tensor a = bp::full({1}, 1.5, bp::ScalarType::Float32, device);
  const bp::Tensor b = bp::full({1}, 2.0, bp::ScalarType::Float32, device);
  bp::Tensor out = bp::empty({1}, bp::ScalarType::Float32, device);
  constexpr int kOps = 10000;
  const double one = median_seconds(o.repeats, [&] {
    for (int i = 0; i < 100; ++i) {
      bp::add_out(out, a, b);
      synchronize();
    }
  });
  rows.push_back({"add1_us", "us", one / 100 * 1e6});
  const double pipelined = median_seconds(o.repeats, [&] {
    for (int i = 0; i < kOps; ++i) bp::add_out(out, a, b);
  });
  rows.push_back({"add1_pipelined_us", "us", pipelined / kOps * 1e6});
}

}  // namespace

int main(int argc, char** argv) try {
  const Options o = parse_options(argc, argv);
  // The plugins the environment names (BACKPLANE_PLUGIN_PATH, BACKPLANE_DEVICE), as an
  // application starts.
  bp::init();
  const bp::Device device = bp::Device::parse(o.device);
  g_raw = bp::raw_device_api(device);
  std::vector<Row> rows;
  bandwidth_rows(o, device, rows);
  matmul_rows(o, device, rows);
  latency_rows(o, device, rows);

  const bp::DeviceInfo info = bp::device_info(device);
  std::printf("{\"device\": \"%s\", \"name\": \"%s\", \"rows\": [", device.str().c_str(),
              info.name.c_str());
  for (size_t i = 0; i < rows.size(); ++i)
    std::printf("%s\n  {\"name\": \"%s\", \"unit\": \"%s\", \"value\": %.6g}", i ? "," : "",
                rows[i].name.c_str(), rows[i].unit.c_str(), rows[i].value);
  std::printf("\n]}\n");
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_gpu: %s\n", e.what());
  return 1;
}
