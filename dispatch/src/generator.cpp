// bp::Generator and the default generator (backplane/random.hpp): a seed and the next
// counter, handed out under a mutex so concurrent calls never share counters.
#include "backplane/random.hpp"

namespace bp {

void Generator::manual_seed(uint64_t seed) {
  const std::lock_guard lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}

uint64_t Generator::seed() const {
  const std::lock_guard lock(mutex_);
  return seed_;
}

uint64_t Generator::offset() const {
  const std::lock_guard lock(mutex_);
  return offset_;
}

void Generator::set_offset(uint64_t offset) {
  const std::lock_guard lock(mutex_);
  offset_ = offset;
}

RandomPosition Generator::next(uint64_t counters) {
  const std::lock_guard lock(mutex_);
  const RandomPosition at{seed_, offset_};
  offset_ += counters;
  return at;
}

Generator& default_generator() {
  static Generator generator;
  return generator;
}

void manual_seed(uint64_t seed) {
  default_generator().manual_seed(seed);
}

}  // namespace bp
