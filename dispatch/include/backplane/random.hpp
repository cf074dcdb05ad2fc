// Random numbers that agree on every device (docs/random.md). Each random op takes a
// RandomPosition, a Philox 4x32-10 key (`seed`) and the first counter (`offset`): element i
// (row-major) of its result comes from counter offset + i alone, so the same position gives
// the same bits on every backend, split and layout. A Generator hands out positions: one
// seed, and an offset that each call advances past the counters it used (numel of the
// result), as PyTorch's CUDA generator does. The typed functions follow ops.hpp's forms.
// Thread-safe.
#pragma once

#include "backplane/core/tensor.hpp"
#include "backplane/tensor_api.hpp"

#include <cstdint>
#include <mutex>
#include <optional>
#include <tuple>

namespace bp {

struct RandomPosition {
  uint64_t seed = 0;    // the Philox key
  uint64_t offset = 0;  // the counter of element 0
};

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  Generator(const Generator&) = delete;
  Generator& operator=(const Generator&) = delete;

  // Restarts the stream: the given seed, offset 0.
  void manual_seed(uint64_t seed);
  uint64_t seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // The position of a call that uses `counters` counters; the offset moves past them.
  RandomPosition next(uint64_t counters);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_ = 0;
  uint64_t offset_ = 0;
};

// The generator the typed functions use when none is given: seed 0 until manual_seed.
Generator& default_generator();
// default_generator().manual_seed(seed).
void manual_seed(uint64_t seed);

// uniform_: floating self; values x * (to - from) + from with x uniform in [0, 1).
Tensor& uniform_(Tensor& self, double from, double to, RandomPosition at);
Tensor& uniform_(Tensor& self, double from = 0, double to = 1,
                 Generator& gen = default_generator());
// normal_: floating self; mean + std * z with z standard normal (Box-Muller).
Tensor& normal_(Tensor& self, double mean, double std, RandomPosition at);
Tensor& normal_(Tensor& self, double mean = 0, double std = 1,
                Generator& gen = default_generator());
// random_.from: integers in [from, to), or up to the dtype's largest draw when `to` is None.
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to, RandomPosition at);
Tensor& random_(Tensor& self, int64_t from, std::optional<int64_t> to,
                Generator& gen = default_generator());
// random_.to: integers in [0, to). random_: in [0, the dtype's largest draw].
Tensor& random_(Tensor& self, int64_t to, RandomPosition at);
Tensor& random_(Tensor& self, int64_t to, Generator& gen = default_generator());
Tensor& random_(Tensor& self, RandomPosition at);
Tensor& random_(Tensor& self, Generator& gen = default_generator());
// bernoulli_.float and bernoulli_.Tensor: 1 with probability p, else 0, in self's dtype.
Tensor& bernoulli_(Tensor& self, double p, RandomPosition at);
Tensor& bernoulli_(Tensor& self, double p = 0.5, Generator& gen = default_generator());
Tensor& bernoulli_(Tensor& self, const Tensor& p, RandomPosition at);
Tensor& bernoulli_(Tensor& self, const Tensor& p, Generator& gen = default_generator());
// native_dropout: (input * mask / (1 - p), mask) with mask bool, true with probability
// 1 - p; with train = false, (a copy of input, all true).
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train,
                                          RandomPosition at);
std::tuple<Tensor, Tensor> native_dropout(const Tensor& input, double p,
                                          std::optional<bool> train = std::nullopt,
                                          Generator& gen = default_generator());
Tensor native_dropout_backward(const Tensor& grad_output, const Tensor& mask, double scale);

// Factories: empty(sizes, dtype, device) filled by uniform_ (rand), normal_ (randn) or
// random_.from(low, high) (randint).
Tensor rand(IntArrayRef sizes, ScalarType dtype = kDefaultFloat,
            std::optional<Device> device = std::nullopt, Generator& gen = default_generator());
Tensor randn(IntArrayRef sizes, ScalarType dtype = kDefaultFloat,
             std::optional<Device> device = std::nullopt, Generator& gen = default_generator());
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, ScalarType dtype = ScalarType::Int64,
               std::optional<Device> device = std::nullopt, Generator& gen = default_generator());

}  // namespace bp
