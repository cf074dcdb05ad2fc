// Tests for the composites the core defines (core/src/ops/{reductions,nn,linalg}.cpp and the
// data-movement/unary groups), run end to end on the reference backend: mean, softmax,
// log_softmax, layer_norm, rms_norm, addmm, linear, scaled_dot_product_attention, embedding
// and silu. Expected values are PyTorch 1.13 output pasted as data (rms_norm and attention,
// which 1.13 lacks, were computed with torch from their definitions in float64). A composite
// rounds to f32 after each primitive, so f32 results are compared within a few ulps.
#include "reference_checks.hpp"

#include <cmath>

namespace bp::test {
namespace {

using ST = ScalarType;
constexpr double kRtol = 1e-5, kAtol = 1e-6;

// ---- data: inputs rounded to 2 decimals (torch.manual_seed(7)), outputs from torch ---------
// kMeanX: shape [2, 3]
const std::vector<double> kMeanX = {-0.15f, 0.79f, 0.95f, -1.11f, 1.69f, -0.89f};
// kMeanDim1: shape [2]
const std::vector<double> kMeanDim1 = {0.53f, -0.10333332f};
// kMeanAll: shape [1]
const std::vector<double> kMeanAll = {0.21333335f};
// kMeanDim0: shape [3]
const std::vector<double> kMeanDim0 = {-0.63f, 1.24f, 0.030000001f};
// kSoftX: shape [2, 4]
const std::vector<double> kSoftX = {-0.36f, 1.23f, 0.14f, -1.68f, 0.32f, 0.13f, -kInf, 0.24f};
// kSoftmax1: shape [2, 4]
const std::vector<double> kSoftmax1 = {0.12788369f, 0.6271095f,  0.21084456f, 0.034162257f,
                                       0.3636264f,  0.30070415f, 0.0f,        0.33566946f};
// kSoftmax0: shape [2, 4]
const std::vector<double> kSoftmax0 = {0.3362613f,  0.7502601f,  1.0f, 0.12786157f,
                                       0.66373867f, 0.24973989f, 0.0f, 0.87213844f};
// kLogSoftmax1: shape [2, 4]
const std::vector<double> kLogSoftmax1 = {-2.0566342f, -0.46663412f, -1.5566342f, -3.376634f,
                                          -1.0116283f, -1.2016282f,  -kInf,       -1.0916283f};
// kLogSoftmax0: shape [2, 4]
const std::vector<double> kLogSoftmax0 = {-1.0898668f,  -0.28733534f, 0.0f,  -2.056807f,
                                          -0.40986678f, -1.3873353f,  -kInf, -0.13680708f};
// kSoftmaxBig: shape [3]
const std::vector<double> kSoftmaxBig = {0.09003057f, 0.24472848f, 0.66524094f};
// kLogSoftmaxBig: shape [3]
const std::vector<double> kLogSoftmaxBig = {-2.407606f, -1.4076059f, -0.40760595f};
// kLnX: shape [2, 3, 4]
const std::vector<double> kLnX = {-1.3f,  0.09f,  -1.38f, 0.5f,  -0.08f, -0.02f, 0.17f, 2.3f,
                                  -2.97f, -1.06f, -0.31f, 0.93f, -0.38f, -1.17f, 0.36f, -0.32f,
                                  1.15f,  -0.38f, -0.36f, 0.75f, 0.69f,  -0.14f, 1.61f, 1.57f};
// kLnW: shape [4]
const std::vector<double> kLnW = {-0.19f, 0.28f, 0.13f, 0.33f};
// kLnB: shape [4]
const std::vector<double> kLnB = {-0.08f, -0.92f, -1.89f, 1.01f};
// kLn4: shape [2, 3, 4]
const std::vector<double> kLn4 = {
    0.097823404f,  -0.7135575f, -2.0241876f,   1.4161742f,   0.04904731f,  -1.0932077f,
    -1.9454719f,   1.5790858f,  0.2045132f,    -0.96108675f, -1.8401266f,  1.4259765f,
    -0.079123706f, -1.3293645f, -1.7131283f,   1.0450053f,   -0.32206476f, -1.1979153f,
    -2.0151803f,   1.2348802f,  -0.016021049f, -1.3369913f,  -1.7677006f,  1.3021231f};
// kLn34: shape [2, 3, 4]
const std::vector<double> kLn34 = {
    -0.82009506f, 0.2768724f,  -0.8832299f, 0.60043836f,  0.1427109f,    0.19006202f,
    0.34000722f,  2.0209718f,  -2.1380343f, -0.6306906f,  -0.038801707f, 0.939788f,
    -0.78594196f, -1.724321f,  0.09304608f, -0.7146726f,  1.0314251f,    -0.78594196f,
    -0.7621855f,  0.55629647f, 0.4850272f,  -0.50086474f, 1.5778232f,    1.5303103f};
// kLn4Eps: shape [2, 3, 4]
const std::vector<double> kLn4Eps = {
    -0.71269745f,   0.5614498f,  -0.7860297f,  0.93727744f,  -0.5527227f, -0.50340915f,
    -0.34724957f,   1.4033816f,  -1.3393269f,  -0.13124457f, 0.34313324f, 1.127438f,
    -0.0028059536f, -0.8894849f, 0.82775414f,  0.06453676f,  0.8797292f,  -0.68537045f,
    -0.6649116f,    0.47055286f, -0.24027354f, -1.062653f,   0.67127955f, 0.6316469f};
// kRmsX: shape [2, 4]
const std::vector<double> kRmsX = {-0.69f, 0.91f, 0.11f, 0.61f, 0.33f, -0.88f, -1.68f, -0.72f};
// kRmsW: shape [4]
const std::vector<double> kRmsW = {0.96f, 0.13f, 0.55f, 2.13f};
// kRmsEps: shape [2, 4]
const std::vector<double> kRmsEps = {-1.0195584f, 0.182086f,    0.0931209f,  1.9998678f,
                                     0.3082818f,  -0.11132397f, -0.8991552f, -1.4923642f};
// kRmsDefault: shape [2, 4]
const std::vector<double> kRmsDefault = {-1.0620412f, 1.400663f,   0.1693109f,  0.93890595f,
                                         0.321127f,   -0.8563386f, -1.6348283f, -0.70064074f};
// kAddmmSelf: shape [3]
const std::vector<double> kAddmmSelf = {-0.88f, -2.08f, 1.83f};
// kAddmmM1: shape [2, 4]
const std::vector<double> kAddmmM1 = {-0.55f, 1.04f, -1.26f, 0.42f, -1.3f, 0.43f, -1.15f, -0.81f};
// kAddmmM2: shape [4, 3]
const std::vector<double> kAddmmM2 = {-0.91f, -0.07f, 1.11f, -0.87f, -0.14f, -0.67f,
                                      1.0f,   -0.16f, 0.68f, -0.87f, 2.5f,   -0.56f};
// kAddmm: shape [2, 3]
const std::vector<double> kAddmm = {-4.4994f,    1.249f,      -3.8835998f,
                                    0.28719997f, -4.6604004f, -3.204f};
// kAddmmDefault: shape [2, 3]
const std::vector<double> kAddmmDefault = {-2.9097002f, -0.9355f,    -0.56929994f,
                                           -0.5164f,    -3.8902001f, -0.22949994f};
// kLinIn: shape [2, 2, 3]
const std::vector<double> kLinIn = {1.16f,  -0.69f, 0.35f, 1.51f, -0.52f, 0.02f,
                                    -3.32f, 1.96f,  0.1f,  -1.2f, 1.27f,  0.36f};
// kLinW: shape [4, 3]
const std::vector<double> kLinW = {0.63f, -0.62f, 0.57f,  -0.08f, 0.97f, -0.78f,
                                   0.56f, 0.23f,  -2.19f, -0.31f, 0.39f, 0.38f};
// kLinB: shape [4]
const std::vector<double> kLinB = {-0.72f, -1.08f, -2.11f, -0.8f};
// kLinear: shape [2, 2, 4]
const std::vector<double> kLinear = {0.6380999f,  -2.1151f,      -2.3855999f, -1.2957f,
                                     0.56509995f, -1.7208002f,   -1.4277999f, -1.4633f,
                                     -3.9698f,    1.0087999f,    -3.7373998f, 1.0316f,
                                     -2.0582001f, -0.032900095f, -3.2783f,    0.20409995f};
// kLinearNoBias: shape [2, 2, 4]
const std::vector<double> kLinearNoBias = {1.3580999f,  -1.0351f,     -0.27560002f, -0.49569994f,
                                           1.2851f,     -0.64080006f, 0.6822f,      -0.6633f,
                                           -3.2498f,    2.0888f,      -1.6273999f,  1.8316f,
                                           -1.3382001f, 1.0471f,      -1.1683002f,  1.0041f};
// kQ: shape [1, 2, 3, 4]
const std::vector<double> kQ = {-0.67f, -3.02f, 0.4f,   -1.06f, -1.45f, 0.43f,  -1.12f, -0.47f,
                                -1.32f, 0.85f,  -0.01f, 0.82f,  -0.72f, 0.86f,  -0.44f, -0.48f,
                                0.99f,  -0.59f, 2.21f,  0.25f,  0.63f,  -0.26f, -0.41f, 0.1f};
// kK: shape [1, 2, 5, 4]
const std::vector<double> kK = {-0.23f, 2.35f,  -0.18f, 1.73f,  0.01f,  -1.51f, -0.62f, 0.45f,
                                0.91f,  -0.22f, 0.08f,  0.25f,  -1.42f, -1.04f, -0.29f, 0.78f,
                                0.03f,  0.03f,  0.18f,  0.35f,  -0.15f, 1.47f,  0.2f,   -0.69f,
                                0.43f,  -1.04f, -0.62f, 1.47f,  -0.5f,  -0.61f, -0.36f, 1.55f,
                                -0.18f, -0.35f, 1.15f,  -1.56f, 0.65f,  2.67f,  0.7f,   1.01f};
// kV: shape [1, 2, 5, 3]
const std::vector<double> kV = {0.91f, 0.37f,  1.11f,  0.09f,  -0.14f, -0.86f, -1.13f, 2.59f,
                                0.61f, -0.24f, -1.51f, 0.17f,  -0.51f, 1.05f,  0.32f,  -0.02f,
                                1.18f, 1.55f,  -0.17f, -0.71f, -0.35f, -0.1f,  -1.18f, -0.5f,
                                2.34f, -1.24f, 2.06f,  0.44f,  0.43f,  -1.28f};
// kSdpa: shape [1, 2, 3, 3]
const std::vector<double> kSdpa = {
    -0.14880341f, -0.37540656f, -0.31300366f, -0.008960001f, -0.15348446f, 0.2961817f,
    0.37699813f,  0.13694942f,  0.6970591f,   0.4888366f,    0.15756068f,  0.48722574f,
    1.0556266f,   -0.548801f,   0.6413703f,   0.33405516f,   -0.42690095f, 0.10378538f};
// kSdpaScale: shape [1, 2, 3, 3]
const std::vector<double> kSdpaScale = {
    -0.23486778f, -0.12008482f, -0.17506999f, -0.05909923f, 0.08204289f,   0.2831044f,
    0.15356313f,  0.20938952f,  0.5241597f,   0.5119222f,   -0.026036782f, 0.41724074f,
    0.8159266f,   -0.44280145f, 0.46958643f,  0.400918f,    -0.377096f,    0.18008572f};
const std::vector<bool> kSdpaBoolMask = {true,  false, true, true, false, false, true, true,
                                         false, true,  true, true, true,  true,  true};
// kSdpaBool: shape [1, 2, 3, 3]
const std::vector<double> kSdpaBool = {
    -0.37903988f, -0.8545376f,  0.24187909f, -0.38491222f, 0.86525136f,  -0.11569222f,
    0.37699813f,  0.13694942f,  0.6970591f,  0.58277607f,  0.13878132f,  1.3280641f,
    0.12926319f,  -0.28849068f, -0.8161776f, 0.33405516f,  -0.42690095f, 0.10378538f};
// kSdpaFloatMask: shape [3, 5]
const std::vector<double> kSdpaFloatMask = {-0.01f, -0.13f, 1.2f,  1.44f, 0.34f,
                                            -0.44f, 1.2f,   0.64f, 0.43f, 2.15f,
                                            0.53f,  -1.19f, 0.2f,  1.91f, -0.82f};
// kSdpaFloat: shape [1, 2, 3, 3]
const std::vector<double> kSdpaFloat = {
    -0.27383766f, -0.73825175f, 0.018856421f, -0.27826086f, 0.2895718f,   0.11585971f,
    0.19107561f,  -0.60846764f, 0.54870313f,  0.9408923f,   -0.40936372f, 0.701989f,
    0.6842241f,   -0.15398203f, -0.3793183f,  1.3702284f,   -0.76573116f, 1.2941167f};
// kSdpaCausal: shape [1, 2, 3, 3]
const std::vector<double> kSdpaCausal = {
    0.91f,        0.37f,        1.11f,       0.59202945f,   0.17223783f,  0.34609514f,
    0.69380116f,  0.4890705f,   0.91042185f, -0.02f,        1.18f,        1.55f,
    -0.10949475f, 0.052366085f, 0.41639975f, -0.115751795f, -0.45321435f, 0.009933181f};
// kEmbW: shape [4, 3]
const std::vector<double> kEmbW = {-0.32f, -1.15f, 0.77f, -1.99f, -0.36f, -1.11f,
                                   -0.83f, 0.75f,  0.02f, -0.04f, -0.25f, 0.98f};
// kEmb: shape [2, 2, 3]
const std::vector<double> kEmb = {-0.32f, -1.15f, 0.77f, -0.83f, 0.75f,  0.02f,
                                  -0.04f, -0.25f, 0.98f, -0.04f, -0.25f, 0.98f};
// kSiluX: shape [11]
const std::vector<double> kSiluX = {-2.0f, -1.0f, -0.5f,  0.0f, 0.5f, 1.0f,
                                    2.0f,  20.0f, -20.0f, kInf, kNaN};
// kSilu: shape [11]
const std::vector<double> kSilu = {-0.23840584f,    -0.26894143f, -0.18877034f, 0.0f,
                                   0.31122968f,     0.7310586f,   1.761594f,    20.0f,
                                   -4.1223075e-08f, kInf,         kNaN};
// kSiluNegInf: shape [1]
const std::vector<double> kSiluNegInf = {kNaN};
// softmax(kSoftX.double(), 1), f64
const std::vector<double> kSoftmax1F64 = {0.12788368588653484,
                                          0.6271095085485914,
                                          0.21084455623849244,
                                          0.03416224932638155,
                                          0.36362638256126906,
                                          0.30070415911875936,
                                          0.0,
                                          0.3356694583199716};

Tensor f32(const std::vector<double>& values, const Dims& shape) {
  return make<float>(values, shape);
}
void check_f32(const Tensor& t, const Dims& shape, const std::vector<double>& want) {
  check_values(t, ST::Float32, shape, want, kRtol, kAtol);
}

// ---- mean ---------------------------------------------------------------------------------
TEST_CASE("mean averages the given dims, every dim when none") {
  const Tensor x = f32(kMeanX, {2, 3});
  check_f32(mean(x, Dims{1}), {2}, kMeanDim1);
  check_f32(mean(x, Dims{-2}, true), {1, 3}, kMeanDim0);
  check_f32(mean(x), {}, kMeanAll);
  check_f32(mean(x.t(), Dims{0}), {2}, kMeanDim1);
}

TEST_CASE("mean of f16 sums in f32 and rounds once; of no elements is NaN") {
  // torch.mean(torch.tensor([2048., 1, 1], dtype=torch.float16)) == 683.5
  check_values(mean(make<Half>({2048, 1, 1}, {3})), ST::Float16, {}, {683.5});
  check_values(mean(zeros({0}, ST::Float32, kRef)), ST::Float32, {}, {kNaN});
}

TEST_CASE("mean of integers needs a floating dtype") {
  check_values(mean(make<int32_t>({1, 2}, {2}), std::nullopt, false, ST::Float64), ST::Float64, {},
               {1.5});
  check_error([] { mean(make<int32_t>({1, 2}, {2})); }, ErrorCode::Type, "i32");
}

// ---- softmax / log_softmax ----------------------------------------------------------------
TEST_CASE("softmax and log_softmax along each dim, with -inf and large inputs") {
  const Tensor x = f32(kSoftX, {2, 4});
  check_f32(softmax(x, 1), {2, 4}, kSoftmax1);
  check_f32(softmax(x, -1), {2, 4}, kSoftmax1);
  check_f32(softmax(x, 0), {2, 4}, kSoftmax0);
  check_f32(log_softmax(x, -1), {2, 4}, kLogSoftmax1);
  check_f32(log_softmax(x, -2), {2, 4}, kLogSoftmax0);
  check_f32(softmax(x.t(), 0).t(), {2, 4}, kSoftmax1);
  check_f32(softmax(f32({1000, 1001, 1002}, {3}), 0), {3}, kSoftmaxBig);
  check_f32(log_softmax(f32({1000, 1001, 1002}, {3}), 0), {3}, kLogSoftmaxBig);
}

TEST_CASE("softmax with dtype converts first and computes in that dtype") {
  check_values(softmax(f32(kSoftX, {2, 4}), 1, ST::Float64), ST::Float64, {2, 4}, kSoftmax1F64,
               1e-14, 1e-15);
  check_error([] { softmax(make<int64_t>({1, 2}, {2}), 0); }, ErrorCode::Type, "i64");
}

// ---- layer_norm / rms_norm ----------------------------------------------------------------
TEST_CASE("layer_norm over the last dim with weight and bias, and over two dims without") {
  const Tensor x = f32(kLnX, {2, 3, 4});
  check_f32(layer_norm(x, {4}, f32(kLnW, {4}), f32(kLnB, {4})), {2, 3, 4}, kLn4);
  check_f32(layer_norm(x, {3, 4}), {2, 3, 4}, kLn34);
  check_f32(layer_norm(x, {4}, std::nullopt, std::nullopt, 0.5), {2, 3, 4}, kLn4Eps);
  check_error([&] { layer_norm(x, {3}); }, ErrorCode::Shape, "normalized_shape");
}

TEST_CASE("rms_norm with weight and eps, and with the dtype's epsilon by default") {
  const Tensor x = f32(kRmsX, {2, 4});
  check_f32(rms_norm(x, {4}, f32(kRmsW, {4}), 1e-6), {2, 4}, kRmsEps);
  check_f32(rms_norm(x, {4}), {2, 4}, kRmsDefault);
}

// ---- addmm / linear -----------------------------------------------------------------------
TEST_CASE("addmm scales the product and the broadcast self") {
  const Tensor self = f32(kAddmmSelf, {3});
  const Tensor m1 = f32(kAddmmM1, {2, 4});
  const Tensor m2 = f32(kAddmmM2, {4, 3});
  check_f32(addmm(self, m1, m2, 0.5, 2.0), {2, 3}, kAddmm);
  check_f32(addmm(self, m1, m2), {2, 3}, kAddmmDefault);
}

TEST_CASE("addmm with beta 0 ignores NaN in self") {
  const Tensor self = f32({kNaN, kInf, 1}, {3});
  const Tensor m1 = f32({1, 2}, {1, 2});
  const Tensor m2 = f32({1, 2, 3, 4, 5, 6}, {2, 3});
  check_f32(addmm(self, m1, m2, 0, 1), {1, 3}, {9, 12, 15});
}

TEST_CASE("linear with and without bias over batched input") {
  const Tensor input = f32(kLinIn, {2, 2, 3});
  const Tensor weight = f32(kLinW, {4, 3});
  check_f32(linear(input, weight, f32(kLinB, {4})), {2, 2, 4}, kLinear);
  check_f32(linear(input, weight), {2, 2, 4}, kLinearNoBias);
  check_error([&] { linear(input, f32(kLinB, {2, 2})); }, ErrorCode::Shape, "in_features");
}

// ---- scaled_dot_product_attention ---------------------------------------------------------
TEST_CASE("attention without mask, with explicit scale, and with bool and float masks") {
  const Tensor q = f32(kQ, {1, 2, 3, 4});
  const Tensor k = f32(kK, {1, 2, 5, 4});
  const Tensor v = f32(kV, {1, 2, 5, 3});
  check_f32(scaled_dot_product_attention(q, k, v), {1, 2, 3, 3}, kSdpa);
  check_f32(scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, false, 0.3), {1, 2, 3, 3},
            kSdpaScale);
  std::vector<double> bool_mask(kSdpaBoolMask.begin(), kSdpaBoolMask.end());
  check_f32(scaled_dot_product_attention(q, k, v, make<bool>(bool_mask, {3, 5})), {1, 2, 3, 3},
            kSdpaBool);
  check_f32(scaled_dot_product_attention(q, k, v, f32(kSdpaFloatMask, {3, 5})), {1, 2, 3, 3},
            kSdpaFloat);
}

TEST_CASE("causal attention lets query i attend keys 0..i") {
  const Tensor q = f32(kQ, {1, 2, 3, 4});
  // The first 3 keys and values of each head.
  const Tensor k = f32(kK, {1, 2, 5, 4}).narrow(2, 0, 3);
  const Tensor v = f32(kV, {1, 2, 5, 3}).narrow(2, 0, 3);
  check_f32(scaled_dot_product_attention(q, k, v, std::nullopt, 0.0, true), {1, 2, 3, 3},
            kSdpaCausal);
}

TEST_CASE("attention rejects dropout and a mask together with is_causal") {
  const Tensor q = f32(kQ, {1, 2, 3, 4});
  const Tensor k = f32(kK, {1, 2, 5, 4});
  const Tensor v = f32(kV, {1, 2, 5, 3});
  check_error([&] { scaled_dot_product_attention(q, k, v, std::nullopt, 0.1); },
              ErrorCode::InvalidArgument, "dropout_p");
  check_error(
      [&] {
        scaled_dot_product_attention(q, k, v, f32(kSdpaFloatMask, {3, 5}), 0.0, true);
      },
      ErrorCode::InvalidArgument, "is_causal");
}

// ---- embedding / silu ---------------------------------------------------------------------
TEST_CASE("embedding looks up rows for any index shape") {
  const Tensor weight = f32(kEmbW, {4, 3});
  check_f32(embedding(weight, make<int64_t>({0, 2, 3, 3}, {2, 2})), {2, 2, 3}, kEmb);
  // padding_idx only affects gradients.
  check_f32(embedding(weight, make<int64_t>({0, 2, 3, 3}, {2, 2}), 3), {2, 2, 3}, kEmb);
  // torch.nn.functional.embedding(torch.tensor(2), w) is row 2, shape [3].
  check_f32(embedding(weight, make<int64_t>({2}, {})), {3}, {kEmbW[6], kEmbW[7], kEmbW[8]});
  check_error([&] { embedding(weight, make<int64_t>({4}, {1})); }, ErrorCode::Index,
              "index 4 is out of range");
}

TEST_CASE("silu is x * sigmoid(x), with inf and NaN propagating") {
  check_f32(silu(f32(kSiluX, {11})), {11}, kSilu);
  check_f32(silu(f32({-kInf}, {1})), {1}, kSiluNegInf);
}

}  // namespace
}  // namespace bp::test
