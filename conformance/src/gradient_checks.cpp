// The gradient checks (gradient_checks.hpp): the method, and the list of backward ops with
// the forward op each is the derivative of.
//
// Method (PyTorch's "fast" gradcheck): for an upstream gradient g and a direction v, both
// drawn from N(0, 1) with the case's seed, the backward op's result b = d<g, f(x)>/dx must
// satisfy <b, v> = <g, (f(x + h v) - f(x - h v)) / 2h> for every direction; a wrong sign, a
// dropped term or a reduction over the wrong dim changes <b, v> for almost every v, so
// kDirections directions catch them. The tolerance is torch.autograd.gradcheck's: h = 1e-6,
// |<b, v> - fd| <= 1e-5 + 1e-3 |fd|. In f64 the central difference's truncation error
// (h^2 f''' ~ 1e-12) and rounding error (|f| u / h ~ 1e-10 per element) stay far below it.
// Inputs keep away from the kinks of relu (|x| >= 0.25).
#include "backplane/conformance/gradient_checks.hpp"

#include <fmt/format.h>

#include <cmath>

namespace bp::conformance {
namespace {

constexpr int kDirections = 4;
constexpr double kStep = 1e-6;
constexpr double kAtol = 1e-5;
constexpr double kRtol = 1e-3;
constexpr ScalarType kF64 = ScalarType::Float64;

double dot(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = to_vector<double>(a), y = to_vector<double>(b);
  double sum = 0.0;
  for (size_t i = 0; i < x.size(); ++i) sum += x[i] * y[i];
  return sum;
}

// <g, (f(x + h v) - f(x - h v)) / 2h>
double finite_difference(const GradientProblem& p, const Tensor& grad, const Tensor& v) {
  const Tensor up = p.forward(bp::add(p.input, v, kStep));
  const Tensor down = p.forward(bp::add(p.input, v, -kStep));
  return (dot(grad, up) - dot(grad, down)) / (2.0 * kStep);
}

}  // namespace

std::string run_gradient_check(const GradientCheck& check, Device device, uint64_t seed) {
  InputMaker maker(seed);
  const GradientProblem p = check.make(maker);
  const Tensor grad = maker.tensor(as_ref(p.forward(p.input).sizes()), kF64);
  const Tensor got = bp::to(p.backward(grad, p.input, device), kReferenceDevice);
  if (got.sizes() != p.input.sizes() || got.dtype() != kF64)
    return fmt::format(
        "{} returned {} for an input {}: the gradient must have the input's shape "
        "and dtype",
        check.backward_op, got.meta_str(), p.input.meta_str());
  for (int k = 0; k < kDirections; ++k) {
    const Tensor v = maker.tensor(as_ref(p.input.sizes()), kF64);
    const double analytic = dot(got, v);
    const double numeric = finite_difference(p, grad, v);
    if (!(std::abs(analytic - numeric) <= kAtol + kRtol * std::abs(numeric)))
      return fmt::format(
          "{}: along random direction {} of {}, <gradient, v> is {:.10g} but central "
          "differences of the forward op (h = {}) give {:.10g} (allowed: {} + {} * |fd|)",
          check.backward_op, k, kDirections, analytic, kStep, numeric, kAtol, kRtol);
  }
  return {};
}

const GradientCheck* find_gradient_check(std::string_view name) {
  for (const GradientCheck& c : gradient_checks())
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace bp::conformance
