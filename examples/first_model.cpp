// The first thing `scripts/run` shows: a small model-like sequence of operators (a two-layer
// MLP with layer norm and a softmax head) run through the public API on the default device
// (from the config and environment, through bp::init()), printing each step's result.
// Weights come from a fixed formula so the output is the same on every machine.
#include <backplane/backplane.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <vector>

namespace {

// Deterministic pseudo-random weights in [-0.5, 0.5).
bp::Tensor weights(int64_t rows, int64_t cols, unsigned seed) {
  std::vector<float> v(static_cast<size_t>(rows * cols));
  unsigned state = seed;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f;
  }
  return bp::from_vector(v, {rows, cols});
}

}  // namespace

int main() {
  try {
    // The plugins and the default device come from the user's config and environment
    // (BACKPLANE_DEVICE=cpu, BACKPLANE_PLUGIN_PATH, backplane.toml; docs/config.md).
    bp::init();
    std::printf("Backplane: backends loaded\n");
    for (const bp::BackendInfo& b : bp::backends())
      std::printf("  %-10s plugin '%s', %d device(s)\n", b.name.c_str(), b.plugin.c_str(),
                  b.device_count);
    const bp::Device device = bp::default_device();
    std::printf("default device: %s (%s)\n\n", device.str().c_str(),
                bp::device_info(device).name.c_str());

    const int64_t batch = 2, in = 4, hidden = 8, classes = 3;
    bp::Tensor x = bp::reshape(bp::arange(bp::Scalar(int64_t{batch * in}), bp::ScalarType::Float32),
                               bp::Shape{batch, in});
    x = bp::div(x, bp::Scalar(8.0));
    std::printf("x =\n%s\n", bp::to_string(x).c_str());

    bp::Tensor w1 = weights(hidden, in, 1), b1 = bp::zeros(bp::Shape{hidden});
    bp::Tensor w2 = weights(classes, hidden, 2), b2 = bp::full(bp::Shape{classes}, 0.1);

    bp::Tensor h = bp::linear(x, w1, b1);
    h = bp::layer_norm(h, {hidden});
    h = bp::gelu(h);
    std::printf("hidden = gelu(layer_norm(linear(x)))\n%s\n", bp::to_string(h).c_str());

    bp::Tensor logits = bp::linear(h, w2, b2);
    bp::Tensor probs = bp::softmax(logits, -1);
    std::printf("probs = softmax(linear(hidden))\n%s\n", bp::to_string(probs).c_str());
    std::printf("argmax = %s\n", bp::to_string(bp::argmax(probs, -1)).c_str());
    std::printf("row sums = %s\n", bp::to_string(bp::sum(probs, std::vector<int64_t>{-1})).c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
