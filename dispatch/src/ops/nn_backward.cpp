// The typed operator API (backplane/ops.hpp): the gradients of softmax, log_softmax and
// layer_norm, and embedding_dense_backward. Their schemas and decompositions are in
// core/src/ops/nn_backward.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              ScalarType input_dtype) {
  static const OpId kOp = op_id("_softmax_backward_data");
  return call1(kOp, {grad_output, output, dim, input_dtype});
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  static const OpId kOp = op_id("_log_softmax_backward_data");
  return call1(kOp, {grad_output, output, dim, input_dtype});
}

std::vector<Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                               std::vector<int64_t> normalized_shape,
                                               const Tensor& mean, const Tensor& rstd,
                                               const std::optional<Tensor>& weight,
                                               const std::optional<Tensor>& bias,
                                               std::array<bool, 3> output_mask) {
  static const OpId kOp = op_id("native_layer_norm_backward");
  // A bool[] argument is an int list of 0 and 1 (docs/schema.md).
  const Shape mask(output_mask.begin(), output_mask.end());
  return call(kOp,
              {grad_out, input, dims(normalized_shape), mean, rstd, opt(weight), opt(bias), mask});
}

Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices,
                                int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq) {
  static const OpId kOp = op_id("embedding_dense_backward");
  return call1(kOp, {grad_output, indices, num_weights, padding_idx, scale_grad_by_freq});
}

}  // namespace bp
