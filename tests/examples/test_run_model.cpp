// The figures `backplane run` and the examples report (examples/models/run_model.hpp): the
// median pass time, and the max abs difference with PyTorch's equal_nan rule (a NaN on one
// side only is infinitely wrong, on both sides equal).
#include "models/run_model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace bp::test {
namespace {

using examples::max_abs_difference;
using examples::median;

TEST_CASE("median: the middle pass, so a few slow passes do not move it") {
  CHECK(median({}) == 0.0);
  CHECK(median({3.0}) == 3.0);
  CHECK(median({1.0, 100.0, 2.0}) == 2.0);            // one pass slowed by a build
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);         // even: the mean of the middle two
  CHECK(median({1.0, 1.0, 1.0, 90.0, 95.0}) == 1.0);  // a mean would say 37.6
}

TEST_CASE("max_abs_difference: largest |a - b|, NaN on one side only is infinite") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(max_abs_difference({1.0f, 2.0f, 3.0f}, {1.0f, 2.5f, 2.0f}) == 1.0);
  CHECK(max_abs_difference({nan, 1.0f}, {nan, 1.0f}) == 0.0);
  CHECK(max_abs_difference({nan, 1.0f}, {0.0f, 1.0f}) == inf);
  CHECK(max_abs_difference({0.0f}, {nan}) == inf);
  CHECK(max_abs_difference({1.0f, 2.0f}, {1.0f}) == inf);  // shapes differ
  // Equal infinities match (as in torch.allclose); an infinity against a number does not.
  CHECK(max_abs_difference({-INFINITY}, {-INFINITY}) == 0.0);
  CHECK(max_abs_difference({-INFINITY}, {0.0f}) == inf);
}

}  // namespace
}  // namespace bp::test
