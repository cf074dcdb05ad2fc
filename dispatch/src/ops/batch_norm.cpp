// The typed operator API (backplane/ops.hpp): native_batch_norm, native_group_norm and their
// backward ops. Schemas and decompositions: core/src/ops/batch_norm.cpp, group_norm.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

std::vector<Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias,
                                      const std::optional<Tensor>& running_mean,
                                      const std::optional<Tensor>& running_var, bool training,
                                      double momentum, double eps) {
  static const OpId kOp = op_id("native_batch_norm");
  return call(kOp, {input, opt(weight), opt(bias), opt(running_mean), opt(running_var), training,
                    momentum, eps});
}

std::vector<Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                               const std::optional<Tensor>& weight,
                                               const std::optional<Tensor>& running_mean,
                                               const std::optional<Tensor>& running_var,
                                               const std::optional<Tensor>& save_mean,
                                               const std::optional<Tensor>& save_invstd, bool train,
                                               double eps, std::array<bool, 3> output_mask) {
  static const OpId kOp = op_id("native_batch_norm_backward");
  // A bool[] argument is an int list of 0 and 1 (docs/schema.md).
  const Shape mask(output_mask.begin(), output_mask.end());
  return call(kOp, {grad_out, input, opt(weight), opt(running_mean), opt(running_var),
                    opt(save_mean), opt(save_invstd), train, eps, mask});
}

std::vector<Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                      int64_t HxW, int64_t group, double eps) {
  static const OpId kOp = op_id("native_group_norm");
  return call(kOp, {input, opt(weight), opt(bias), N, C, HxW, group, eps});
}

std::vector<Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                               const Tensor& mean, const Tensor& rstd,
                                               const std::optional<Tensor>& weight, int64_t N,
                                               int64_t C, int64_t HxW, int64_t group,
                                               std::array<bool, 3> output_mask) {
  static const OpId kOp = op_id("native_group_norm_backward");
  const Shape mask(output_mask.begin(), output_mask.end());
  return call(kOp, {grad_out, input, mean, rstd, opt(weight), N, C, HxW, group, mask});
}

}  // namespace bp
