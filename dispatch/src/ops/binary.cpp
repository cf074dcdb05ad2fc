// The typed operator API (backplane/ops.hpp): the elementwise binary ops (arithmetic, comparison,
// logical, clamp, pow). The schemas and meta rules of these ops are in core/src/ops/binary.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor add(const Tensor& self, const Tensor& other, Scalar alpha) {
  static detail::ElementwiseCall kOp("add.Tensor", 2, 1);
  return elementwise(kOp, {&self, &other}, {alpha});
}
Tensor add(const Tensor& self, Scalar other, Scalar alpha) {
  static const OpId kOp = op_id("add.Scalar");
  return call1(kOp, {self, other, alpha});
}
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha) {
  static detail::ElementwiseCall kOp("add.Tensor", 2, 1);
  return elementwise_out(out, kOp, {&self, &other}, {alpha});
}
Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha) {
  static detail::ElementwiseCall kOp("add.Tensor", 2, 1);
  return elementwise_(self, kOp, {&self, &other}, {alpha});
}
Tensor& add_(Tensor& self, Scalar other, Scalar alpha) {
  static const OpId kOp = op_id("add.Scalar");
  return inplace1(self, kOp, {self, other, alpha});
}

Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha) {
  static detail::ElementwiseCall kOp("sub.Tensor", 2, 1);
  return elementwise(kOp, {&self, &other}, {alpha});
}
Tensor sub(const Tensor& self, Scalar other, Scalar alpha) {
  static const OpId kOp = op_id("sub.Scalar");
  return call1(kOp, {self, other, alpha});
}
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha) {
  static detail::ElementwiseCall kOp("sub.Tensor", 2, 1);
  return elementwise_out(out, kOp, {&self, &other}, {alpha});
}
Tensor& sub_(Tensor& self, const Tensor& other, Scalar alpha) {
  static detail::ElementwiseCall kOp("sub.Tensor", 2, 1);
  return elementwise_(self, kOp, {&self, &other}, {alpha});
}
Tensor& sub_(Tensor& self, Scalar other, Scalar alpha) {
  static const OpId kOp = op_id("sub.Scalar");
  return inplace1(self, kOp, {self, other, alpha});
}

Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static detail::ElementwiseCall kOp("div.Tensor", 2, 0);
    return elementwise(kOp, {&self, &other});
  }
  static const OpId kOp = op_id("div.Tensor_mode");
  return call1(kOp, {self, other, opt(rounding_mode)});
}
Tensor div(const Tensor& self, Scalar other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static const OpId kOp = op_id("div.Scalar");
    return call1(kOp, {self, other});
  }
  static const OpId kOp = op_id("div.Scalar_mode");
  return call1(kOp, {self, other, opt(rounding_mode)});
}
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static detail::ElementwiseCall kOp("div.Tensor", 2, 0);
    return elementwise_out(out, kOp, {&self, &other});
  }
  static const OpId kOp = op_id("div.Tensor_mode");
  return out1(out, kOp, {self, other, opt(rounding_mode)});
}
Tensor& div_(Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static detail::ElementwiseCall kOp("div.Tensor", 2, 0);
    return elementwise_(self, kOp, {&self, &other});
  }
  static const OpId kOp = op_id("div.Tensor_mode");
  return inplace1(self, kOp, {self, other, opt(rounding_mode)});
}
Tensor& div_(Tensor& self, Scalar other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) {
    static const OpId kOp = op_id("div.Scalar");
    return inplace1(self, kOp, {self, other});
  }
  static const OpId kOp = op_id("div.Scalar_mode");
  return inplace1(self, kOp, {self, other, opt(rounding_mode)});
}

Tensor mul(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("mul.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor mul(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("mul.Scalar");
  return call1(kOp, {self, other});
}
Tensor& mul_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("mul.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& mul_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("mul.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& mul_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("mul.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor pow(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("pow.Tensor_Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor pow(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("pow.Tensor_Scalar");
  return call1(kOp, {self, other});
}
Tensor& pow_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("pow.Tensor_Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& pow_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("pow.Tensor_Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& pow_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("pow.Tensor_Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor eq(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("eq.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor eq(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("eq.Scalar");
  return call1(kOp, {self, other});
}
Tensor& eq_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("eq.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& eq_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("eq.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& eq_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("eq.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor ne(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("ne.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor ne(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("ne.Scalar");
  return call1(kOp, {self, other});
}
Tensor& ne_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("ne.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& ne_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("ne.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& ne_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("ne.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor lt(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("lt.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor lt(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("lt.Scalar");
  return call1(kOp, {self, other});
}
Tensor& lt_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("lt.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& lt_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("lt.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& lt_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("lt.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor le(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("le.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor le(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("le.Scalar");
  return call1(kOp, {self, other});
}
Tensor& le_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("le.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& le_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("le.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& le_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("le.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor gt(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("gt.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor gt(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("gt.Scalar");
  return call1(kOp, {self, other});
}
Tensor& gt_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("gt.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& gt_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("gt.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& gt_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("gt.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor ge(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("ge.Tensor", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor ge(const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("ge.Scalar");
  return call1(kOp, {self, other});
}
Tensor& ge_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("ge.Tensor", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}
Tensor& ge_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("ge.Tensor", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& ge_(Tensor& self, Scalar other) {
  static const OpId kOp = op_id("ge.Scalar");
  return inplace1(self, kOp, {self, other});
}

Tensor maximum(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("maximum", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor& maximum_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("maximum", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}

Tensor minimum(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("minimum", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor& minimum_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("minimum", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}

Tensor logical_and(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("logical_and", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor& logical_and_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("logical_and", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}

Tensor logical_or(const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("logical_or", 2, 0);
  return elementwise(kOp, {&self, &other});
}
Tensor& logical_or_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("logical_or", 2, 0);
  return elementwise_out(out, kOp, {&self, &other});
}

Tensor& logical_and_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("logical_and", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}
Tensor& logical_or_(Tensor& self, const Tensor& other) {
  static detail::ElementwiseCall kOp("logical_or", 2, 0);
  return elementwise_(self, kOp, {&self, &other});
}

Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  static const OpId kOp = op_id("clamp");
  return call1(kOp, {self, min, max});
}
Tensor& clamp_out(Tensor& out, const Tensor& self, std::optional<Scalar> min,
                  std::optional<Scalar> max) {
  static const OpId kOp = op_id("clamp");
  return out1(out, kOp, {self, min, max});
}
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  static const OpId kOp = op_id("clamp");
  return inplace1(self, kOp, {self, min, max});
}

Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max) {
  static const OpId kOp = op_id("clamp.Tensor");
  return call1(kOp, {self, min, max});
}
Tensor& clamp_out(Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                  const std::optional<Tensor>& max) {
  static const OpId kOp = op_id("clamp.Tensor");
  return out1(out, kOp, {self, min, max});
}
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  static const OpId kOp = op_id("clamp.Tensor");
  return inplace1(self, kOp, {self, min, max});
}

Tensor pow(Scalar self, const Tensor& exponent) {
  static const OpId kOp = op_id("pow.Scalar");
  return call1(kOp, {self, exponent});
}
Tensor& pow_out(Tensor& out, Scalar self, const Tensor& exponent) {
  static const OpId kOp = op_id("pow.Scalar");
  return out1(out, kOp, {self, exponent});
}

}  // namespace bp
