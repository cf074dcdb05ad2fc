// Gradient checks: the conformance family that checks each backward op against central
// finite differences of its forward op, gradcheck-style. Each check is one case of the
// suite, id `gradcheck/f64/<backward op>.<sample>`, run in a child process like every
// other case: the backward op runs on the device under test in f64, the forward op on the
// reference device (the ground truth), so on the reference device it checks the reference
// against its own forward, and on any other device it checks that device's backward kernels
// whatever forward kernels it has. docs/conformance.md, "Gradient checks", gives the method
// and the tolerance.
#pragma once

#include <backplane/backplane.hpp>

#include "backplane/conformance/inputs.hpp"

#include <functional>
#include <string>
#include <vector>

namespace bp::conformance {

inline constexpr const char* kGradientCheckOp = "gradcheck";
inline constexpr const char* kGradientCheckDtype = "f64";

// What one check differentiates: f(x) for the input x, and the gradient of <grad, f(x)>
// with respect to x as the backward op computes it on a device.
struct GradientProblem {
  Tensor input;  // x: f64, on the reference device
  std::function<Tensor(const Tensor& x)> forward;
  // The backward op's result for the upstream gradient `grad` (f's output shape) at `x`,
  // both on the reference device; the call runs on `device` and returns a tensor there.
  std::function<Tensor(const Tensor& grad, const Tensor& x, Device device)> backward;
};

struct GradientCheck {
  std::string name;         // "<backward op>.<sample>", a-z 0-9 '_' '.'
  std::string backward_op;  // the catalog op checked ("sigmoid_backward")
  std::function<GradientProblem(InputMaker&)> make;
};

// Every gradient check, in a fixed order.
const std::vector<GradientCheck>& gradient_checks();
// The check named `name`, or nullptr.
const GradientCheck* find_gradient_check(std::string_view name);

// Runs `check` with its backward op on `device`, drawing from `seed`. Returns "" when the
// directional derivatives agree, else a message naming the direction and both values.
// Throws bp::Error when the device cannot run the backward op (NotImplemented, ...).
std::string run_gradient_check(const GradientCheck& check, Device device, uint64_t seed);

}  // namespace bp::conformance
