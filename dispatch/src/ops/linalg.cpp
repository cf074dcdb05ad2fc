// The typed operator API (backplane/ops.hpp): matmul, addmm, baddbmm and linear. The schemas and
// meta rules of these ops are in core/src/ops/linalg.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor matmul(const Tensor& self, const Tensor& other) {
  static const OpId kOp = op_id("matmul");
  return call1(kOp, {self, other});
}
Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static const OpId kOp = op_id("matmul");
  return out1(out, kOp, {self, other});
}
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta,
             Scalar alpha) {
  static const OpId kOp = op_id("addmm");
  return call1(kOp, {self, mat1, mat2, beta, alpha});
}
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta,
               Scalar alpha) {
  static const OpId kOp = op_id("baddbmm");
  return call1(kOp, {self, batch1, batch2, beta, alpha});
}
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  static const OpId kOp = op_id("linear");
  return call1(kOp, {input, weight, opt(bias)});
}

}  // namespace bp
