// The sign of a zero result, as PyTorch 1.13.1 gives it on the CPU (asked with Debian's
// python3-torch; the values are in each check): the conformance suite compares the zeros of
// these ops by sign (docs/conformance.md, "Signed zeros"), so the reference backend, its
// oracle, must have PyTorch's. On a +-0 tie PyTorch's maximum/minimum
// return the first operand's zero on short tensors (the scalar path; its vector path
// returns the second's; the suite does not compare their zero signs, and the reference
// orders -0 below +0 there).
#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

const bp::Device kRef{bp::device_types::Reference, 0};

// "-0", "0", or the value, per element.
std::vector<std::string> signs(const bp::Tensor& t) {
  std::vector<std::string> out;
  for (double v : bp::to_vector<double>(t))
    out.push_back(v == 0.0 ? (std::signbit(v) ? "-0" : "0") : std::to_string(v));
  return out;
}

using S = std::vector<std::string>;

}  // namespace

TEST_CASE("reference: zero signs of neg, abs, sign, floor, ceil and relu are PyTorch's") {
  for (bp::ScalarType dt : {bp::ScalarType::Float32, bp::ScalarType::Float64,
                            bp::ScalarType::Float16, bp::ScalarType::BFloat16}) {
    CAPTURE(bp::dtype_name(dt));
    const bp::Tensor a = bp::to(bp::from_vector<double>({-0.0, 0.0, -0.5, 0.5}, {4}, kRef), dt);
    // torch.neg(a) -> [0., -0., 0.5, -0.5]; abs -> [0., 0., 0.5, 0.5]; sign -> [0., 0., -1., 1.]
    CHECK(signs(bp::neg(a)) == S{"0", "-0", std::to_string(0.5), std::to_string(-0.5)});
    CHECK(signs(bp::abs(a))[0] == "0");
    CHECK(signs(bp::sign(a))[0] == "0");  // sign(-0.) is +0 in PyTorch
    // floor -> [-0., 0., -1., 0.]; ceil -> [-0., 0., -0., 1.]
    CHECK(signs(bp::floor(a))[0] == "-0");
    CHECK(signs(bp::ceil(a))[2] == "-0");
    // relu -> [-0., 0., 0., 0.5]: relu keeps a -0 input
    CHECK(signs(bp::relu(a))[0] == "-0");
    CHECK(signs(bp::relu(a))[2] == "0");
  }
}

TEST_CASE("reference: clamp, where, maximum and minimum on +-0 ties are PyTorch's") {
  const bp::Tensor a = bp::from_vector<float>({-0.0f, 0.0f, -0.5f, 0.5f}, {4}, kRef);
  // clamp(a, min=0) -> [-0., 0., 0., 0.5]: a tie keeps the input
  CHECK(signs(bp::clamp(a, bp::Scalar(0.0)))[0] == "-0");
  // clamp(a, max=-0.) -> [-0., 0., -0.5, -0.]: a tie keeps the input, a clamped 0.5 is -0
  const S max_neg_zero = signs(bp::clamp(a, std::nullopt, bp::Scalar(-0.0)));
  CHECK(max_neg_zero[0] == "-0");
  CHECK(max_neg_zero[1] == "0");
  CHECK(max_neg_zero[3] == "-0");
  // clamp(a, min=-0., max=0.) -> [-0., 0., -0., 0.]
  CHECK(signs(bp::clamp(a, bp::Scalar(-0.0), bp::Scalar(0.0))) == S{"-0", "0", "-0", "0"});
  // where(cond, a, b) picks; a and b are [-0, 0, -0, 0] and [0, -0, -0, 0]
  const bp::Tensor x = bp::from_vector<float>({-0.0f, 0.0f, -0.0f, 0.0f}, {4}, kRef);
  const bp::Tensor y = bp::from_vector<float>({0.0f, -0.0f, -0.0f, 0.0f}, {4}, kRef);
  const bp::Tensor cond = bp::from_vector<bool>({true, false, true, false}, {4}, kRef);
  CHECK(signs(bp::where(cond, x, y)) == S{"-0", "-0", "-0", "0"});
  // maximum(x, y) and minimum(x, y) on 4 elements -> [-0., 0., -0., 0.] in PyTorch (its
  // scalar path returns the first operand); on 64 elements [0., -0., -0., 0.] (its vector
  // path returns the second). The reference orders -0 below +0, as IEEE 754-2019's
  // maximum/minimum do: maximum gives +0 and minimum -0 on a mixed tie, whatever the order.
  CHECK(signs(bp::maximum(x, y)) == S{"0", "0", "-0", "0"});
  CHECK(signs(bp::minimum(x, y)) == S{"-0", "-0", "-0", "0"});
}
