// Seeded weights for the examples: every tensor a model creates comes from one
// std::mt19937_64 stream, so a model built with the same seed holds the same values on
// every device and every machine. (std::mt19937_64's output sequence is fixed by the C++
// standard; the standard distributions are not, hence the explicit mapping below.)
#pragma once

#include <backplane/backplane.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace bp::examples {

class SeededWeights {
 public:
  explicit SeededWeights(uint64_t seed) : engine_(seed) {}

  // Uniform in [-bound, bound): PyTorch's nn.Linear initialisation uses bound = 1/sqrt(fan_in).
  Tensor uniform(IntArrayRef shape, double bound, Device device) {
    int64_t count = 1;
    for (int64_t s : shape) count *= s;
    std::vector<float> values(static_cast<size_t>(count));
    for (float& v : values) v = static_cast<float>((2.0 * unit() - 1.0) * bound);
    return from_vector(values, shape, device);
  }

  // A linear layer's weight [out, in] and bias [out], initialised as nn.Linear does.
  struct Linear {
    Tensor weight, bias;
  };
  Linear linear(int64_t in, int64_t out, Device device) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(in));
    Tensor weight = uniform({out, in}, bound, device);
    Tensor bias = uniform({out}, bound, device);
    return {weight, bias};
  }

 private:
  // [0, 1) from the top 53 bits of one draw.
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  std::mt19937_64 engine_;
};

}  // namespace bp::examples
