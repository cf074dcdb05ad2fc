// The typed operator API (backplane/ops.hpp): the elementwise unary ops. The schemas and meta rules
// of these ops are in core/src/ops/unary.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor neg(const Tensor& self) {
  static detail::ElementwiseCall kOp("neg", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& neg_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("neg", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& neg_(Tensor& self) {
  static detail::ElementwiseCall kOp("neg", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor abs(const Tensor& self) {
  static detail::ElementwiseCall kOp("abs", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& abs_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("abs", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& abs_(Tensor& self) {
  static detail::ElementwiseCall kOp("abs", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor sign(const Tensor& self) {
  static detail::ElementwiseCall kOp("sign", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& sign_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("sign", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& sign_(Tensor& self) {
  static detail::ElementwiseCall kOp("sign", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor exp(const Tensor& self) {
  static detail::ElementwiseCall kOp("exp", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& exp_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("exp", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& exp_(Tensor& self) {
  static detail::ElementwiseCall kOp("exp", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor log(const Tensor& self) {
  static detail::ElementwiseCall kOp("log", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& log_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("log", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& log_(Tensor& self) {
  static detail::ElementwiseCall kOp("log", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor sqrt(const Tensor& self) {
  static detail::ElementwiseCall kOp("sqrt", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& sqrt_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("sqrt", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& sqrt_(Tensor& self) {
  static detail::ElementwiseCall kOp("sqrt", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor rsqrt(const Tensor& self) {
  static detail::ElementwiseCall kOp("rsqrt", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& rsqrt_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("rsqrt", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& rsqrt_(Tensor& self) {
  static detail::ElementwiseCall kOp("rsqrt", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor reciprocal(const Tensor& self) {
  static detail::ElementwiseCall kOp("reciprocal", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& reciprocal_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("reciprocal", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& reciprocal_(Tensor& self) {
  static detail::ElementwiseCall kOp("reciprocal", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor sin(const Tensor& self) {
  static detail::ElementwiseCall kOp("sin", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& sin_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("sin", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& sin_(Tensor& self) {
  static detail::ElementwiseCall kOp("sin", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor cos(const Tensor& self) {
  static detail::ElementwiseCall kOp("cos", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& cos_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("cos", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& cos_(Tensor& self) {
  static detail::ElementwiseCall kOp("cos", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor tanh(const Tensor& self) {
  static detail::ElementwiseCall kOp("tanh", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& tanh_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("tanh", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& tanh_(Tensor& self) {
  static detail::ElementwiseCall kOp("tanh", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor sigmoid(const Tensor& self) {
  static detail::ElementwiseCall kOp("sigmoid", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& sigmoid_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("sigmoid", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& sigmoid_(Tensor& self) {
  static detail::ElementwiseCall kOp("sigmoid", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor erf(const Tensor& self) {
  static detail::ElementwiseCall kOp("erf", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& erf_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("erf", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& erf_(Tensor& self) {
  static detail::ElementwiseCall kOp("erf", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor relu(const Tensor& self) {
  static detail::ElementwiseCall kOp("relu", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& relu_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("relu", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& relu_(Tensor& self) {
  static detail::ElementwiseCall kOp("relu", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor floor(const Tensor& self) {
  static detail::ElementwiseCall kOp("floor", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& floor_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("floor", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& floor_(Tensor& self) {
  static detail::ElementwiseCall kOp("floor", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor ceil(const Tensor& self) {
  static detail::ElementwiseCall kOp("ceil", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& ceil_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("ceil", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& ceil_(Tensor& self) {
  static detail::ElementwiseCall kOp("ceil", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor logical_not(const Tensor& self) {
  static detail::ElementwiseCall kOp("logical_not", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& logical_not_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("logical_not", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& logical_not_(Tensor& self) {
  static detail::ElementwiseCall kOp("logical_not", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor silu(const Tensor& self) {
  static detail::ElementwiseCall kOp("silu", 1, 0);
  return elementwise(kOp, {&self});
}
Tensor& silu_out(Tensor& out, const Tensor& self) {
  static detail::ElementwiseCall kOp("silu", 1, 0);
  return elementwise_out(out, kOp, {&self});
}
Tensor& silu_(Tensor& self) {
  static detail::ElementwiseCall kOp("silu", 1, 0);
  return elementwise_(self, kOp, {&self});
}

Tensor hardtanh(const Tensor& self, Scalar min_val, Scalar max_val) {
  static const OpId kOp = op_id("hardtanh");
  return call1(kOp, {self, min_val, max_val});
}
Tensor& hardtanh_out(Tensor& out, const Tensor& self, Scalar min_val, Scalar max_val) {
  static const OpId kOp = op_id("hardtanh");
  return out1(out, kOp, {self, min_val, max_val});
}
Tensor& hardtanh_(Tensor& self, Scalar min_val, Scalar max_val) {
  static const OpId kOp = op_id("hardtanh");
  return inplace1(self, kOp, {self, min_val, max_val});
}
Tensor gelu(const Tensor& self, const std::string& approximate) {
  static const OpId kOp = op_id("gelu");
  return call1(kOp, {self, approximate});
}
Tensor& gelu_out(Tensor& out, const Tensor& self, const std::string& approximate) {
  static const OpId kOp = op_id("gelu");
  return out1(out, kOp, {self, approximate});
}
Tensor& gelu_(Tensor& self, const std::string& approximate) {
  static const OpId kOp = op_id("gelu");
  return inplace1(self, kOp, {self, approximate});
}

}  // namespace bp
