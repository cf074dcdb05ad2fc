// The typed operator API (backplane/ops.hpp): the gradients of softmax and log_softmax.
// Their schemas and decompositions are in core/src/ops/nn_backward.cpp.
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

}  // namespace bp
