// The typed operator API (backplane/ops.hpp): the pooling ops. Schemas and meta rules:
// core/src/ops/pooling.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

std::vector<Tensor> max_pool2d_with_indices(const Tensor& self, std::vector<int64_t> kernel_size,
                                            std::vector<int64_t> stride,
                                            std::vector<int64_t> padding,
                                            std::vector<int64_t> dilation, bool ceil_mode) {
  static const OpId kOp = op_id("max_pool2d_with_indices");
  return call(kOp,
              {self, dims(kernel_size), dims(stride), dims(padding), dims(dilation), ceil_mode});
}

Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        std::vector<int64_t> kernel_size,
                                        std::vector<int64_t> stride, std::vector<int64_t> padding,
                                        std::vector<int64_t> dilation, bool ceil_mode,
                                        const Tensor& indices) {
  static const OpId kOp = op_id("max_pool2d_with_indices_backward");
  return call1(kOp, {grad_output, self, dims(kernel_size), dims(stride), dims(padding),
                     dims(dilation), ceil_mode, indices});
}

Tensor avg_pool2d(const Tensor& self, std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                  std::vector<int64_t> padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  static const OpId kOp = op_id("avg_pool2d");
  return call1(kOp, {self, dims(kernel_size), dims(stride), dims(padding), ceil_mode,
                     count_include_pad, opt(divisor_override)});
}

Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                           std::vector<int64_t> padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  static const OpId kOp = op_id("avg_pool2d_backward");
  return call1(kOp, {grad_output, self, dims(kernel_size), dims(stride), dims(padding), ceil_mode,
                     count_include_pad, opt(divisor_override)});
}

Tensor _adaptive_avg_pool2d(const Tensor& self, std::vector<int64_t> output_size) {
  static const OpId kOp = op_id("_adaptive_avg_pool2d");
  return call1(kOp, {self, dims(output_size)});
}

Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self) {
  static const OpId kOp = op_id("_adaptive_avg_pool2d_backward");
  return call1(kOp, {grad_output, self});
}

}  // namespace bp
