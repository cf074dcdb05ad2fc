// Conformance records of op set v2's convolution: the primitives convolution_forward,
// convolution_backward_input and convolution_backward_weight (every dtype but bool), and
// the composites convolution (with transposed cases) and convolution_backward (floating,
// as PyTorch). One list of geometries serves all five: 2-D and 1-D, stride, padding,
// dilation (asymmetric too), groups and depthwise, 1x1, no bias, an empty batch, zero
// input channels, special and wide values, layouts, and the error inputs.
#include "records_internal.hpp"

#include <optional>
#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using V = Values;
using L = Layout;

struct ConvCase {
  const char* name;
  bool quick;
  Shape input, weight;
  Shape stride{1}, padding{0}, dilation{1};
  int64_t groups = 1;
  bool bias = true;
  V values = V::Normal;
  L layout = L::Contiguous;
};

const std::vector<ConvCase>& conv_cases() {
  static const std::vector<ConvCase> cases = {
      {"basic_2x3x7x9_k3", true, {2, 3, 7, 9}, {4, 3, 3, 3}},
      {"stride2_pad1_1x3x8x8", true, {1, 3, 8, 8}, {5, 3, 3, 3}, {2}, {1}},
      {"dilation_asymmetric_1x2x9x7", true, {1, 2, 9, 7}, {3, 2, 3, 2}, {2, 1}, {2, 0}, {2, 3}},
      {"groups3_2x6x5x5", true, {2, 6, 5, 5}, {9, 2, 3, 3}, {1}, {0}, {1}, 3},
      {"depthwise_1x4x6x6", true, {1, 4, 6, 6}, {4, 1, 3, 3}, {1}, {1}, {1}, 4},
      {"conv1d_2x3x11_k3", true, {2, 3, 11}, {4, 3, 3}, {2}, {1}},
      {"no_bias_1x2x5x5", true, {1, 2, 5, 5}, {3, 2, 2, 2}, {1}, {0}, {1}, 1, false},
      {"pointwise_1x1_2x8x4x4", true, {2, 8, 4, 4}, {6, 8, 1, 1}},
      {"empty_batch_0x3x5x5", true, {0, 3, 5, 5}, {2, 3, 3, 3}},
      {"zero_channels_2x0x4x4", true, {2, 0, 4, 4}, {3, 0, 3, 3}},
      {"special_values_1x2x4x4",
       false,
       {1, 2, 4, 4},
       {2, 2, 2, 2},
       {1},
       {1},
       {1},
       1,
       true,
       V::Special},
      {"transposed_layout_2x3x6x7",
       false,
       {2, 3, 6, 7},
       {4, 3, 3, 3},
       {1},
       {1},
       {1},
       1,
       true,
       V::Normal,
       L::Transposed},
      {"permuted_layout_2x4x5x5",
       false,
       {2, 4, 5, 5},
       {4, 2, 3, 3},
       {2},
       {1},
       {1},
       2,
       true,
       V::Normal,
       L::Permuted},
      {"conv1d_dilated_groups_1x4x17", false, {1, 4, 17}, {6, 2, 4}, {3}, {2}, {2}, 2},
      {"odd_3x5x13x11_k5", false, {3, 5, 13, 11}, {7, 5, 5, 5}, {2, 3}, {2, 1}},
      {"resnet_block_2x32x14x14", false, {2, 32, 14, 14}, {32, 32, 3, 3}, {1}, {1}},
      {"resnet_stem_1x3x32x32_k7", false, {1, 3, 32, 32}, {16, 3, 7, 7}, {2}, {3}},
  };
  return cases;
}

Shape expand(const Shape& v, size_t n) {
  return v.size() == n ? v : Shape(n, v[0]);
}

// The forward convolution's output shape.
Shape output_of(const ConvCase& c) {
  const size_t spatial = c.input.size() - 2;
  const Shape s = expand(c.stride, spatial), p = expand(c.padding, spatial);
  const Shape d = expand(c.dilation, spatial);
  Shape out{c.input[0], c.weight[0]};
  for (size_t i = 0; i < spatial; ++i)
    out.push_back((c.input[i + 2] + 2 * p[i] - d[i] * (c.weight[i + 2] - 1) - 1) / s[i] + 1);
  return out;
}

int64_t product_of(const Shape& s, size_t from) {
  int64_t n = 1;
  for (size_t i = from; i < s.size(); ++i) n *= s[i];
  return n;
}

// The products in one result element of each op (the tolerance's K).
int64_t forward_terms(const ConvCase& c) {
  return std::max<int64_t>(1, product_of(c.weight, 1));
}
int64_t input_grad_terms(const ConvCase& c) {
  return std::max<int64_t>(1, c.weight[0] / c.groups * product_of(c.weight, 2));
}
int64_t weight_grad_terms(const ConvCase& c) {
  const Shape out = output_of(c);
  return std::max<int64_t>(1, out[0] * product_of(out, 2));
}

Sample sample_of(const ConvCase& c, std::string prefix, MakeArgs make, int64_t k) {
  return Sample{prefix + c.name, c.quick, std::move(make), std::nullopt, k};
}

// Integers over their whole range wrap; for floats the case would only measure
// cancellation (as matmul's records say).
bool applies(const ConvCase& c, ScalarType t) {
  return !(c.values == V::Special && !is_floating(t));
}

IValue bias_of(InputMaker& m, const ConvCase& c, ScalarType t) {
  return c.bias ? IValue(m.tensor({c.weight[0]}, t, c.values)) : IValue();
}

std::vector<Sample> forward_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const ConvCase& c : conv_cases()) {
    if (!applies(c, t)) continue;
    out.push_back(sample_of(
        c, "",
        [c, t](InputMaker& m) -> Args {
          return {m.tensor(c.input, t, c.values, c.layout),
                  m.tensor(c.weight, t, c.values),
                  bias_of(m, c, t),
                  c.stride,
                  c.padding,
                  c.dilation,
                  c.groups};
        },
        forward_terms(c)));
  }
  if (!is_floating(t))
    out.push_back(full_sample(
        "wide_values_1x3x6x6",
        [t](InputMaker& m) -> Args {
          return {m.tensor({1, 3, 6, 6}, t, V::Wide),
                  m.tensor({2, 3, 3, 3}, t, V::Wide),
                  m.tensor({2}, t, V::Wide),
                  Shape{1},
                  Shape{1},
                  Shape{1},
                  int64_t{1}};
        },
        27));
  const auto error = [t](std::string name, std::string expect, Shape input, Shape weight,
                         Shape stride, int64_t groups) {
    return error_sample(std::move(name), std::move(expect), [=](InputMaker& m) -> Args {
      return {
          m.tensor(input, t), m.tensor(weight, t), IValue(), stride, Shape{0}, Shape{1}, groups};
    });
  };
  out.push_back(error("error_channels_1x3x5x5_w2", "channels", {1, 3, 5, 5}, {4, 2, 3, 3}, {1}, 1));
  out.push_back(error("error_kernel_too_large", "smaller than the dilated kernel", {1, 2, 2, 2},
                      {1, 2, 3, 3}, {1}, 1));
  out.push_back(error("error_stride_zero", "positive", {1, 2, 5, 5}, {1, 2, 3, 3}, {0}, 1));
  out.push_back(
      error("error_groups_do_not_divide", "does not divide", {1, 4, 5, 5}, {3, 2, 3, 3}, {1}, 2));
  out.push_back(error("error_0d_input", "1-D convolution takes 3 dims", {}, {1, 1, 1}, {1}, 1));
  out.push_back(error("error_3d_convolution", "1-D convolution takes 3 dims", {1, 2, 4, 4, 4},
                      {1, 2, 3, 3, 3}, {1}, 1));
  out.push_back(error_sample("error_bias_size", "bias has shape", [t](InputMaker& m) -> Args {
    return {m.tensor({1, 2, 5, 5}, t),
            m.tensor({3, 2, 3, 3}, t),
            m.tensor({2}, t),
            Shape{1},
            Shape{0},
            Shape{1},
            int64_t{1}};
  }));
  return out;
}

// The gradient primitives: grad_output of the forward's output shape, the other operand
// (the weight for the input's gradient, the input for the weight's) and the result's size;
// then an error input.
std::vector<Sample> gradient_samples(ScalarType t, bool of_input) {
  std::vector<Sample> out;
  for (const ConvCase& c : conv_cases()) {
    if (!applies(c, t)) continue;
    out.push_back(sample_of(
        c, "",
        [c, t, of_input](InputMaker& m) -> Args {
          const L grad_layout = of_input ? c.layout : L::Contiguous;
          const Tensor grad = m.tensor(output_of(c), t, c.values, grad_layout);
          const Tensor other =
              of_input ? m.tensor(c.weight, t, c.values) : m.tensor(c.input, t, c.values, c.layout);
          return {grad,       other,   of_input ? c.input : c.weight, c.stride, c.padding,
                  c.dilation, c.groups};
        },
        of_input ? input_grad_terms(c) : weight_grad_terms(c)));
  }
  // The input's: grad_output [1, 4, 4, 4] where the convolution gives [1, 4, 3, 3]. The
  // weight's: an input of 3 channels for a weight of 2 (groups 1).
  out.push_back(error_sample(of_input ? "error_grad_output_shape" : "error_weight_size_channels",
                             of_input ? "grad_output has shape" : "channels",
                             [t, of_input](InputMaker& m) -> Args {
                               if (of_input)
                                 return {m.tensor({1, 4, 4, 4}, t),
                                         m.tensor({4, 3, 3, 3}, t),
                                         Shape{1, 3, 5, 5},
                                         Shape{1},
                                         Shape{0},
                                         Shape{1},
                                         int64_t{1}};
                               return {m.tensor({1, 4, 3, 3}, t),
                                       m.tensor({1, 3, 5, 5}, t),
                                       Shape{4, 2, 3, 3},
                                       Shape{1},
                                       Shape{0},
                                       Shape{1},
                                       int64_t{1}};
                             }));
  return out;
}

// convolution: every geometry not transposed, then transposed ones (the weight [C_in,
// C_out / groups, *], output_padding below the stride).
std::vector<Sample> convolution_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const ConvCase& c : conv_cases()) {
    if (!applies(c, t) || !c.quick) continue;
    out.push_back(sample_of(
        c, "",
        [c, t](InputMaker& m) -> Args {
          return {m.tensor(c.input, t, c.values, c.layout),
                  m.tensor(c.weight, t, c.values),
                  bias_of(m, c, t),
                  c.stride,
                  c.padding,
                  c.dilation,
                  false,
                  Shape{0},
                  c.groups};
        },
        forward_terms(c)));
  }
  const auto transposed = [t](std::string name, Shape input, Shape weight, Shape stride,
                              Shape padding, Shape output_padding, int64_t groups, bool bias) {
    const int64_t k = weight[0] / groups * weight[2] * (weight.size() > 3 ? weight[3] : 1);
    return quick_sample(
        std::move(name),
        [=](InputMaker& m) -> Args {
          const IValue b = bias ? IValue(m.tensor({weight[1] * groups}, t)) : IValue();
          return {m.tensor(input, t),
                  m.tensor(weight, t),
                  b,
                  stride,
                  padding,
                  Shape{1},
                  true,
                  output_padding,
                  groups};
        },
        k);
  };
  out.push_back(
      transposed("transposed_2x4x5x5", {2, 4, 5, 5}, {4, 3, 3, 3}, {1}, {0}, {0}, 1, true));
  out.push_back(transposed("transposed_stride2_output_padding1_1x4x4x4", {1, 4, 4, 4}, {4, 2, 3, 3},
                           {2}, {1}, {1}, 2, false));
  out.push_back(
      transposed("transposed_conv1d_2x3x7", {2, 3, 7}, {3, 5, 4}, {3}, {1}, {2}, 1, true));
  out.push_back(error_sample("error_output_padding_not_below_stride", "output_padding",
                             [t](InputMaker& m) -> Args {
                               return {m.tensor({1, 2, 4, 4}, t),
                                       m.tensor({2, 2, 3, 3}, t),
                                       IValue(),
                                       Shape{1},
                                       Shape{0},
                                       Shape{2},
                                       true,
                                       Shape{1},
                                       int64_t{1}};
                             }));
  return out;
}

// convolution_backward: each quick geometry with every gradient wanted, and a transposed
// one. A masked gradient is undefined, which an out-variant call cannot take, so masks are
// left to the reference, differential and bridge tests (as native_layer_norm_backward's).
std::vector<Sample> convolution_backward_samples(ScalarType t) {
  std::vector<Sample> out;
  const auto make = [t](ConvCase c, Shape grad_shape, bool transposed, Shape output_padding,
                        Shape mask) -> MakeArgs {
    return [=](InputMaker& m) -> Args {
      const IValue bias_sizes = mask[2] ? IValue(Shape{grad_shape[1]}) : IValue();
      return {m.tensor(grad_shape, t, c.values),
              m.tensor(c.input, t, c.values, c.layout),
              m.tensor(c.weight, t, c.values),
              bias_sizes,
              c.stride,
              c.padding,
              c.dilation,
              transposed,
              output_padding,
              c.groups,
              mask};
    };
  };
  for (const ConvCase& c : conv_cases()) {
    if (!applies(c, t) || !c.quick) continue;
    const int64_t k = std::max(input_grad_terms(c), weight_grad_terms(c));
    out.push_back(sample_of(c, "", make(c, output_of(c), false, {0}, {1, 1, 1}), k));
  }
  // Transposed: input [2, 4, 5, 5] (C_in = 4), weight [4, 3, 3, 3], stride 2, padding 1,
  // output_padding 1: the output is [2, 3, 10, 10]; K is the weight gradient's 2 * 5 * 5.
  ConvCase t2{"", true, {2, 4, 5, 5}, {4, 3, 3, 3}, {2}, {1}};
  out.push_back(quick_sample("transposed_stride2_2x4x5x5",
                             make(t2, {2, 3, 10, 10}, true, {1}, {1, 1, 1}), 50));
  return out;
}

}  // namespace

void add_convolution_records(std::vector<OpRecord>& out) {
  out.push_back({"convolution_forward", numeric_dtypes(), forward_samples});
  out.push_back({"convolution_backward_input", numeric_dtypes(),
                 [](ScalarType t) { return gradient_samples(t, true); }});
  out.push_back({"convolution_backward_weight", numeric_dtypes(),
                 [](ScalarType t) { return gradient_samples(t, false); }});
  out.push_back({"convolution", numeric_dtypes(), convolution_samples});
  out.push_back({"convolution_backward", floating_dtypes(), convolution_backward_samples});
}

}  // namespace bp::conformance::detail
