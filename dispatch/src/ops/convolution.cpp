// The typed operator API (backplane/ops.hpp): convolution, convolution_backward and the
// three primitives they are made of. Schemas and meta rules: core/src/ops/convolution.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   std::vector<int64_t> stride, std::vector<int64_t> padding,
                   std::vector<int64_t> dilation, bool transposed,
                   std::vector<int64_t> output_padding, int64_t groups) {
  static const OpId kOp = op_id("convolution");
  return call1(kOp, {input, weight, opt(bias), dims(stride), dims(padding), dims(dilation),
                     transposed, dims(output_padding), groups});
}

std::vector<Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                         const Tensor& weight,
                                         std::optional<std::vector<int64_t>> bias_sizes,
                                         std::vector<int64_t> stride, std::vector<int64_t> padding,
                                         std::vector<int64_t> dilation, bool transposed,
                                         std::vector<int64_t> output_padding, int64_t groups,
                                         std::array<bool, 3> output_mask) {
  static const OpId kOp = op_id("convolution_backward");
  // A bool[] argument is an int list of 0 and 1 (docs/schema.md).
  const Shape mask(output_mask.begin(), output_mask.end());
  const IValue biases = bias_sizes ? dims(*bias_sizes) : IValue();
  return call(kOp, {grad_output, input, weight, biases, dims(stride), dims(padding), dims(dilation),
                    transposed, dims(output_padding), groups, mask});
}

Tensor convolution_forward(const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias, std::vector<int64_t> stride,
                           std::vector<int64_t> padding, std::vector<int64_t> dilation,
                           int64_t groups) {
  static const OpId kOp = op_id("convolution_forward");
  return call1(kOp,
               {input, weight, opt(bias), dims(stride), dims(padding), dims(dilation), groups});
}

Tensor convolution_backward_input(const Tensor& grad_output, const Tensor& weight,
                                  std::vector<int64_t> input_size, std::vector<int64_t> stride,
                                  std::vector<int64_t> padding, std::vector<int64_t> dilation,
                                  int64_t groups) {
  static const OpId kOp = op_id("convolution_backward_input");
  return call1(kOp, {grad_output, weight, dims(input_size), dims(stride), dims(padding),
                     dims(dilation), groups});
}

Tensor convolution_backward_weight(const Tensor& grad_output, const Tensor& input,
                                   std::vector<int64_t> weight_size, std::vector<int64_t> stride,
                                   std::vector<int64_t> padding, std::vector<int64_t> dilation,
                                   int64_t groups) {
  static const OpId kOp = op_id("convolution_backward_weight");
  return call1(kOp, {grad_output, input, dims(weight_size), dims(stride), dims(padding),
                     dims(dilation), groups});
}

}  // namespace bp
