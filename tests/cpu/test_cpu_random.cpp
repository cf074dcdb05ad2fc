// Tests for plugins/cpu/random.cpp: the random ops on cpu:0 give the reference's bits for
// every dtype and layout, on one thread and split among several (element i depends on
// (seed, offset + i) alone), and the composites over them (bernoulli_, native_dropout) too.
#include "cpu_checks.hpp"

#include <backplane/random.hpp>

#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;

// `fill` applied to a [rows, cols] tensor in each CPU layout on cpu:0 and on the reference.
template <typename Fill>
void check_fill_matches(ST dt, int64_t rows, int64_t cols, Fill fill) {
  const Tensor seed_values = random_tensor({rows, cols}, dt, 1, kRefDevice);
  Tensor want = clone(seed_values);
  fill(want);
  for (CpuLayout layout : kCpuLayouts) {
    CAPTURE(std::string(layout_name(layout)));
    Tensor got = cpu_copy(seed_values, layout);
    fill(got);
    check_cpu(got, want, 0, 0);
  }
}

TEST_CASE("cpu uniform_ and normal_ give the reference's bits, threaded and in every layout") {
  for (ST dt : {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64}) {
    CAPTURE(dtype_name(dt));
    for (int64_t rows : {int64_t{3}, int64_t{1031}}) {  // one thread; past the grain
      check_fill_matches(dt, rows, 257, [](Tensor& t) {
        uniform_(t, -3.0, 5.0, RandomPosition{0x123456789abcdefull, 40});
      });
      check_fill_matches(dt, rows, 257, [](Tensor& t) {
        normal_(t, 0.5, 2.0, RandomPosition{~uint64_t{0}, ~uint64_t{0} - 100});
      });
    }
  }
}

TEST_CASE("cpu random_ and bernoulli_ give the reference's bits for every dtype") {
  for (ST dt : kEveryDtype) {
    CAPTURE(dtype_name(dt));
    check_fill_matches(dt, 1031, 67, [](Tensor& t) {
      random_(t, 0, std::nullopt, RandomPosition{77, 5});
    });
    check_fill_matches(dt, 1031, 67, [](Tensor& t) {
      bernoulli_(t, 0.375, RandomPosition{78, 0});
    });
  }
  check_fill_matches(ST::Int64, 64, 64, [](Tensor& t) {
    random_(t, -(int64_t{1} << 45), int64_t{1} << 45, RandomPosition{79, 0});
  });
}

TEST_CASE("cpu native_dropout equals the reference's") {
  const Tensor x = random_tensor({513, 129}, ST::Float32, 3, kRefDevice);
  const auto [want, want_mask] = native_dropout(x, 0.3, true, RandomPosition{9, 9});
  const auto [got, got_mask] = native_dropout(on(x, cpu_device()), 0.3, true, RandomPosition{9, 9});
  check_cpu(got, want, 0, 0);
  check_cpu(got_mask, want_mask, 0, 0);
}

}  // namespace
}  // namespace bp::test
