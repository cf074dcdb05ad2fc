// Checks the template device against the runtime's reference backend: loads the plugin
// file given on the command line, runs fill_.Scalar, add.Tensor, mul.Tensor, relu and
// sum.dim_IntList on template_device:0 and on reference:0 with the same inputs (special
// values, broadcasting, transposed and strided views, an i32 input that copy_ converts to
// f32), and exits 1 on the first element that differs. f32 results must match exactly:
// the reference computes in double and rounds once, and a single f32 add or multiply is
// correctly rounded either way (alpha is a power of two, so alpha * y is exact); the
// plugin's sum accumulates in double in the same order and rounds once, as the
// reference does.
//
//   check_template_device path/to/libbackplane_plugin_template_device.so
#include <backplane/backplane.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Equal bit patterns, or both NaN (payloads may differ between backends).
bool same(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Runs `op` on copies of `inputs` on each device and compares the results element-wise.
bool check(const char* what, const std::vector<bp::Tensor>& inputs,
           const std::function<bp::Tensor(const std::vector<bp::Tensor>&)>& op, bp::Device device,
           bp::Device reference) {
  std::vector<bp::Tensor> on_device, on_reference;
  for (const bp::Tensor& t : inputs) {
    on_device.push_back(bp::to(t, device));
    on_reference.push_back(bp::to(t, reference));
  }
  const bp::Tensor got = op(on_device);
  const bp::Tensor want = op(on_reference);
  if (got.device() != device) {
    std::fprintf(stderr, "%s: result is on %s, expected %s\n", what, got.device().str().c_str(),
                 device.str().c_str());
    return false;
  }
  const std::vector<float> g = bp::to_vector<float>(got);
  const std::vector<float> w = bp::to_vector<float>(want);
  if (g.size() != w.size()) {
    std::fprintf(stderr, "%s: %zu elements, the reference has %zu\n", what, g.size(), w.size());
    return false;
  }
  for (size_t i = 0; i < g.size(); ++i)
    if (!same(g[i], w[i])) {
      std::fprintf(stderr, "%s: element %zu is %.9g, the reference computes %.9g\n", what, i,
                   static_cast<double>(g[i]), static_cast<double>(w[i]));
      return false;
    }
  std::printf("ok   %s (%zu elements)\n", what, g.size());
  return true;
}

// Every op the plugin registers, on strided and broadcast operands and special values,
// against the reference backend.
bool check_ops(bp::Device device, bp::Device reference) {
  const bp::Tensor x = bp::from_vector<float>(
      {1.5f, -2.0f, 0.0f, -0.0f, kNaN, kInf, -kInf, 3.25f, -1e-38f, 1e30f, -7.0f, 0.1f}, {4, 3});
  const bp::Tensor y = bp::from_vector<float>({0.5f, -kInf, 2.0f}, {3});  // broadcast rows
  const bp::Tensor counts = bp::from_vector<int32_t>({3, -16777217, 0}, {3});
  const bp::Tensor z = bp::from_vector<float>(
      {2.0f, 0.25f, -3.0f, 1e-3f, 8.0f, -0.5f, kNaN, 4.0f, 1.0f, -1.0f, 0.0f, 6.0f}, {3, 4});

  bool ok = true;
  ok &= check(
      "add.Tensor", {x, y}, [](auto& t) { return bp::add(t[0], t[1]); }, device, reference);
  ok &= check(
      "add.Tensor alpha=2", {x, y}, [](auto& t) { return bp::add(t[0], t[1], 2); }, device,
      reference);
  // f32 + i32 adds in f32: the runtime converts `counts` with the device's copy_ first
  // (-16777217 rounds to the nearest f32, -16777216, as in PyTorch).
  ok &= check(
      "add.Tensor f32 + i32 (copy_ converts)", {x, counts},
      [](auto& t) { return bp::add(t[0], t[1]); }, device, reference);
  ok &= check(
      "mul.Tensor", {x, y}, [](auto& t) { return bp::mul(t[0], t[1]); }, device, reference);
  ok &= check(
      "mul.Tensor transposed", {x, z}, [](auto& t) { return bp::mul(t[0], t[1].transpose(0, 1)); },
      device, reference);
  ok &= check(
      "relu", {x}, [](auto& t) { return bp::relu(t[0]); }, device, reference);
  ok &= check(
      "relu transposed", {z}, [](auto& t) { return bp::relu(t[0].transpose(0, 1)); }, device,
      reference);
  // fill_ writes through a view: a strided column, then a transposed whole. 2^60 + 2^36 + 1
  // rounds once to 2^60 + 2^37 (through double it would round twice, to 2^60).
  ok &= check(
      "fill_.Scalar strided column", {x},
      [](auto& t) {
        bp::Tensor column = t[0].select(1, 1);
        bp::fill_(column, (int64_t{1} << 60) + (int64_t{1} << 36) + 1);
        return t[0];
      },
      device, reference);
  ok &= check(
      "fill_.Scalar transposed", {z},
      [](auto& t) {
        bp::Tensor all = t[0].transpose(0, 1);
        bp::fill_(all, -0.1);
        return t[0];
      },
      device, reference);
  ok &= check(
      "sum.dim_IntList rows", {z}, [](auto& t) { return bp::sum(t[0], std::vector<int64_t>{1}); },
      device, reference);
  ok &= check(
      "sum.dim_IntList transposed, keepdim", {z},
      [](auto& t) { return bp::sum(t[0].transpose(0, 1), std::vector<int64_t>{0}, true); }, device,
      reference);
  ok &= check(
      "sum.dim_IntList every dim (NaN, inf)", {x}, [](auto& t) { return bp::sum(t[0]); }, device,
      reference);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s path/to/libbackplane_plugin_template_device.so\n", argv[0]);
    return 2;
  }
  try {
    const bp::PluginLoadReport report = bp::load_plugin(argv[1]);
    if (report.status != bp::LoadStatus::Loaded) {
      std::fprintf(stderr, "%s: %s: %s\n", argv[1],
                   std::string(bp::to_string(report.status)).c_str(), report.message.c_str());
      return 1;
    }
    const bp::Device device = bp::Device::parse("template_device:0");
    const bp::Device reference = bp::Device::parse("reference:0");

    return check_ops(device, reference) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
