// The typed operator API (backplane/ops.hpp): the losses and their gradients. Their schemas
// and decompositions are in core/src/ops/loss.cpp and loss_nll.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const OpId kOp = op_id("mse_loss");
  return call1(kOp, {self, target, reduction});
}
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction) {
  static const OpId kOp = op_id("mse_loss_backward");
  return call1(kOp, {grad_output, self, target, reduction});
}
std::vector<Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction,
                                     int64_t ignore_index) {
  static const OpId kOp = op_id("nll_loss_forward");
  return call(kOp, {self, target, opt(weight), reduction, ignore_index});
}
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index, const Tensor& total_weight) {
  static const OpId kOp = op_id("nll_loss_backward");
  return call1(kOp,
               {grad_output, self, target, opt(weight), reduction, ignore_index, total_weight});
}
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                int64_t reduction, int64_t ignore_index) {
  static const OpId kOp = op_id("nll_loss");
  return call1(kOp, {self, target, opt(weight), reduction, ignore_index});
}
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight, int64_t reduction,
                          int64_t ignore_index, double label_smoothing) {
  static const OpId kOp = op_id("cross_entropy_loss");
  return call1(kOp, {self, target, opt(weight), reduction, ignore_index, label_smoothing});
}

}  // namespace bp
