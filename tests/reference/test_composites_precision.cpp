// Tests for the composites of core/src/ops/{nn,linalg}.cpp on the reference backend in the
// cases tests/reference/test_composites.cpp leaves out: f16/bf16 inputs (computed in f32 and
// rounded once), attention with broadcast batch dims and a fully masked row, and linear with
// a 1-D weight and a 0-d bias. Expected values were computed with PyTorch 1.13 from each
// op's definition (in f32 or f64, then rounded to the input's dtype) and pasted as data.
#include "reference_checks.hpp"

namespace bp::test {
namespace {

using ST = ScalarType;
// One f16 ulp is ~1e-3 relative (bf16: ~8e-3): the composite and the expected value may
// round a different f32 intermediate to the nearest half.
constexpr double kHalfRtol = 2e-3, kBFloatRtol = 8e-3, kAtol = 1e-4;

// ---- data: inputs rounded to 2 decimals (torch.manual_seed(11)) --------------------------
// kX: shape [2, 4]
const std::vector<double> kX = {2.21, 5.84, -2.1, -3.91, -1.54, -0.81, 0.74, 1.45};
// kSoftmaxF16: shape [2, 4]
const std::vector<double> kSoftmaxF16 = {0.0258483887, 0.973632812,  0.000347137451, 5.67436218e-05,
                                         0.0305328369, 0.0633544922, 0.298583984,    0.607421875};
// kLogSoftmax0BF16: shape [2, 4]
const std::vector<double> kLogSoftmax0BF16 = {-0.0234375,    -0.00128936768, -2.890625,
                                              -5.375,        -3.765625,      -6.65625,
                                              -0.0571289062, -0.00469970703};
// kW: shape [4]
const std::vector<double> kW = {0.45, -0.96, 1.5, -0.31};
// kB: shape [4]
const std::vector<double> kB = {-0.23, -1.07, 0.16, 0.12};
// kLayerNormF16: shape [2, 4]
const std::vector<double> kLayerNormF16 = {-0.0284118652, -2.41796875,  -0.87109375, 0.480957031,
                                           -0.796875,     -0.449462891, 1.14257812,  -0.268066406};
// kRmsX: shape [2, 4] (kX / 20: small enough that the default eps changes the result)
const std::vector<double> kRmsX = {0.11, 0.292, -0.105, -0.196, -0.077, -0.04, 0.037, 0.073};
// kRmsNormBF16: shape [2, 4], eps = torch.finfo(torch.bfloat16).eps
const std::vector<double> kRmsNormBF16 = {0.233398438, -1.328125,   -0.74609375, 0.2890625,
                                          -0.32421875, 0.361328125, 0.5234375,   -0.212890625};
// kQ: shape [2, 3, 4]
const std::vector<double> kQ = {-0.23, 0.52,  -2.06, 0.14,  0.5,   -0.61, -0.8,  0.16,
                                0.09,  0.39,  1.3,   -0.45, -1.59, -0.19, 0.41,  0.79,
                                -0.76, -1.16, 1.36,  -1.08, 1,     -0.25, -0.08, 0.08};
// kK: shape [2, 5, 4]
const std::vector<double> kK = {-0.44, 1.79, -0.68, 0.11,  0.91,  0.92,  0.11, -2.33, 1.26,  0.1,
                                1.05,  0.66, -0.46, -0.16, -2.09, 0.64,  0.16, 0.17,  0.39,  0.54,
                                -0.24, 1.08, -1.69, -2.96, 0.76,  -0.84, 0.35, -2.86, -1.75, -2.95,
                                0.07,  0.28, 0.39,  -2.27, -0.7,  0.85,  0.18, 0.66,  -1.17, 1.11};
// kV: shape [5, 2]
const std::vector<double> kV = {0.88, -1.22, -1.86, -0.67, -0.07, 1.93, 0.37, -2.35, -0.09, 1.73};
// kSdpaCausalF16: shape [2, 3, 2]
const std::vector<double> kSdpaCausalF16 = {0.879882812,  -1.21972656,  -0.552734375, -0.932128906,
                                            -0.717773438, 0.195678711,  0.879882812,  -1.21972656,
                                            -1.55273438,  -0.731933594, -0.739746094, -0.24609375};
// kSdpaMasked: shape [2, 3, 2]
const std::vector<double> kSdpaMasked = {0.323026551,  -1.10819879, kNaN,         kNaN,
                                         -0.564429585, 0.39742743,  -0.384105201, -0.96625628,
                                         kNaN,         kNaN,        -0.270882476, -0.5021035};
// kLinearVec: shape [2]
const std::vector<double> kLinearVec = {-6.04979985, 1.24510002};

TEST_CASE("softmax and log_softmax of f16/bf16 compute in f32 and keep the input dtype") {
  check_values(softmax(make<Half>(kX, {2, 4}), 1), ST::Float16, {2, 4}, kSoftmaxF16, kHalfRtol,
               kAtol);
  check_values(log_softmax(make<BFloat16>(kX, {2, 4}), 0), ST::BFloat16, {2, 4}, kLogSoftmax0BF16,
               kBFloatRtol, kAtol);
}

TEST_CASE("layer_norm of f16 with f16 weight and bias") {
  check_values(layer_norm(make<Half>(kX, {2, 4}), {4}, make<Half>(kW, {4}), make<Half>(kB, {4})),
               ST::Float16, {2, 4}, kLayerNormF16, kHalfRtol, kAtol);
}

TEST_CASE("rms_norm of bf16 uses bf16's epsilon by default") {
  check_values(rms_norm(make<BFloat16>(kRmsX, {2, 4}), {4}, make<BFloat16>(kW, {4})), ST::BFloat16,
               {2, 4}, kRmsNormBF16, kBFloatRtol, kAtol);
}

TEST_CASE("causal attention in f16 with value broadcast over the batch") {
  const Tensor out =
      scaled_dot_product_attention(make<Half>(kQ, {2, 3, 4}), make<Half>(kK, {2, 5, 4}),
                                   make<Half>(kV, {5, 2}), std::nullopt, 0.0, true);
  check_values(out, ST::Float16, {2, 3, 2}, kSdpaCausalF16, kHalfRtol, kAtol);
}

TEST_CASE("attention gives NaN for a query whose keys are all masked") {
  // Row 1 of the mask is all False.
  const Tensor mask = make<bool>({1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {3, 5});
  const Tensor out = scaled_dot_product_attention(
      make<float>(kQ, {2, 3, 4}), make<float>(kK, {2, 5, 4}), make<float>(kV, {5, 2}), mask);
  check_values(out, ST::Float32, {2, 3, 2}, kSdpaMasked, 1e-5, 1e-6);
}

TEST_CASE("linear with a 1-D weight and a 0-d bias drops the output dim") {
  check_values(linear(make<float>(kX, {2, 4}), make<float>(kW, {4}), make<float>({0.5}, {})),
               ST::Float32, {2}, kLinearVec, 1e-5, 1e-6);
}

}  // namespace
}  // namespace bp::test
