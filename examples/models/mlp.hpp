// The MLP example's model: a classifier head of `layers` hidden layers,
//   x [batch, in] -> (linear -> relu) x layers -> linear -> log_softmax -> [batch, classes],
// written once against the public API. The same code runs on any device: the weights live
// on the device given at construction and every op runs where its inputs are.
#pragma once

#include "seeded_weights.hpp"

#include <backplane/backplane.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bp::examples {

struct MlpConfig {
  int64_t batch = 64;
  int64_t in = 256;
  int64_t hidden = 512;
  int64_t classes = 16;
  int64_t layers = 2;  // hidden layers
};

class Mlp {
 public:
  static constexpr const char* kName = "mlp";

  Mlp(const MlpConfig& config, uint64_t seed, Device device) : config_(config) {
    SeededWeights weights(seed);
    int64_t width = config.in;
    for (int64_t i = 0; i < config.layers; ++i) {
      hidden_.push_back(weights.linear(width, config.hidden, device));
      width = config.hidden;
    }
    head_ = weights.linear(width, config.classes, device);
  }

  // An input batch drawn from its own stream (seed + 1), so it does not depend on the
  // model's size.
  static Tensor input(const MlpConfig& config, uint64_t seed, Device device) {
    return SeededWeights(seed + 1).uniform({config.batch, config.in}, 1.0, device);
  }

  Tensor forward(const Tensor& x) const {
    Tensor h = x;
    for (const SeededWeights::Linear& layer : hidden_)
      h = relu(linear(h, layer.weight, layer.bias));
    return log_softmax(linear(h, head_.weight, head_.bias), -1);
  }

  static std::string describe(const MlpConfig& c) {
    return "batch " + std::to_string(c.batch) + ", " + std::to_string(c.in) + " -> " +
           std::to_string(c.hidden) + " x" + std::to_string(c.layers) + " -> " +
           std::to_string(c.classes);
  }

 private:
  MlpConfig config_;
  std::vector<SeededWeights::Linear> hidden_;
  SeededWeights::Linear head_;
};

}  // namespace bp::examples
