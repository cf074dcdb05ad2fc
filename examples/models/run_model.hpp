// Runs one example model on one device the way the examples and `backplane run` report it:
// the time per forward pass, and (when asked) the largest difference from the same model,
// with the same seeded weights and input, on the reference backend (reference:0, which
// computes every op in double precision and rounds once).
#pragma once

#include <backplane/backplane.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace bp::examples {

// A device result is within tolerance when max |device - reference| <= kTolerance *
// max(1, max |reference|). float32 kernels that accumulate in a different order than the
// reference differ by a few ulp per op; 1e-4 leaves room for the ~30 ops of a transformer
// block while a wrong kernel (a dropped mask, a transposed operand, a missing bias) is off
// by 1e-2 or more.
inline constexpr double kTolerance = 1e-4;

struct ModelRun {
  std::string model;        // "mlp", "transformer_block"
  std::string description;  // the sizes, in words
  Device device;
  Shape output_shape;
  int iterations = 0;
  double ms_per_forward = 0.0;
  bool checked = false;      // compared with reference:0
  double max_abs_err = 0.0;  // max |device - reference| (inf when only one is NaN)
  double max_abs_reference = 0.0;
  double tolerance = 0.0;  // the bound max_abs_err is held to
  bool ok() const { return !checked || max_abs_err <= tolerance; }
};

// Largest elementwise |a - b|; a NaN on one side only counts as infinitely wrong, NaN on
// both sides as equal (PyTorch's equal_nan).
inline double max_abs_difference(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double worst = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    const bool nan_a = std::isnan(a[i]), nan_b = std::isnan(b[i]);
    if (nan_a || nan_b) {
      if (nan_a != nan_b) return std::numeric_limits<double>::infinity();
      continue;
    }
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return worst;
}

// The middle value of `values` (the mean of the middle two when their number is even).
inline double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid)) +
          upper) /
         2.0;
}

// Builds `Model` with `seed` on `device`, runs one warm-up forward pass (first-call costs:
// kernel compilation, the allocator's first blocks), then `iterations` timed ones. Each
// timed pass ends with its output read back, which waits for devices that queue work, so
// a pass's time is the whole of it. The time reported is the median pass: on a shared
// machine a few passes are slowed by whatever else runs, and the median ignores them where
// a mean would not. With `check`, the same model and input on reference:0 give the
// expected output.
template <class Model, class Config>
ModelRun run_model(const Config& config, uint64_t seed, Device device, int iterations, bool check) {
  ModelRun run;
  run.model = Model::kName;
  run.description = Model::describe(config);
  run.device = device;
  run.iterations = std::max(iterations, 1);

  const Model model(config, seed, device);
  const Tensor x = Model::input(config, seed, device);
  std::vector<float> got = to_vector<float>(model.forward(x));
  std::vector<double> pass_ms;
  pass_ms.reserve(static_cast<size_t>(run.iterations));
  for (int i = 0; i < run.iterations; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const Tensor y = model.forward(x);
    got = to_vector<float>(y);
    const std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    pass_ms.push_back(elapsed.count());
    run.output_shape = y.sizes();
  }
  run.ms_per_forward = median(pass_ms);

  if (check) {
    const Device reference(device_types::Reference, 0);
    const Model expected_model(config, seed, reference);
    const std::vector<float> expected =
        to_vector<float>(expected_model.forward(Model::input(config, seed, reference)));
    run.checked = true;
    run.max_abs_err = max_abs_difference(got, expected);
    for (float v : expected)
      if (std::isfinite(v))
        run.max_abs_reference = std::max(run.max_abs_reference, std::abs(double{v}));
    run.tolerance = kTolerance * std::max(1.0, run.max_abs_reference);
  }
  return run;
}

}  // namespace bp::examples
