// The typed operator API (backplane/ops.hpp): the pointwise ops optimizers use. Their
// schemas and decompositions are in core/src/ops/pointwise.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  static const OpId kOp = op_id("addcmul");
  return call1(kOp, {self, tensor1, tensor2, value});
}
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  static const OpId kOp = op_id("addcmul");
  return inplace1(self, kOp, {self, tensor1, tensor2, value});
}
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  static const OpId kOp = op_id("addcdiv");
  return call1(kOp, {self, tensor1, tensor2, value});
}
Tensor& addcdiv_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value) {
  static const OpId kOp = op_id("addcdiv");
  return inplace1(self, kOp, {self, tensor1, tensor2, value});
}
Tensor lerp(const Tensor& self, const Tensor& end, Scalar weight) {
  static const OpId kOp = op_id("lerp.Scalar");
  return call1(kOp, {self, end, weight});
}
Tensor& lerp_(Tensor& self, const Tensor& end, Scalar weight) {
  static const OpId kOp = op_id("lerp.Scalar");
  return inplace1(self, kOp, {self, end, weight});
}
Tensor& zero_(Tensor& self) {
  static const OpId kOp = op_id("zero_");
  call(kOp, {self});
  return self;
}

}  // namespace bp
