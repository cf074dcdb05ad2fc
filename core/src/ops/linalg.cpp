// Linear algebra of op set v1: matmul (primitive; PyTorch's rules for 1-D, 2-D and batched
// operands with broadcast batch dims), addmm, linear and baddbmm (composites over matmul). No dtype
// promotion: operands must share a dtype, as in PyTorch.
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include "backplane/core/error.hpp"

#include <string_view>

namespace bp::ops {
namespace {

// Operands of a product: same dtype (no promotion, as PyTorch), not bool.
void check_product_dtypes(std::string_view op, const Tensor& a, std::string_view a_name,
                          const Tensor& b, std::string_view b_name) {
  BP_CHECK(a.dtype() == b.dtype(), ErrorCode::Type,
           "{}: argument '{}' has dtype {} but '{}' has dtype {}; {} does not promote, so "
           "convert one of them first",
           op, b_name, dtype_name(b.dtype()), a_name, dtype_name(a.dtype()), op);
  BP_CHECK(a.dtype() != ScalarType::Bool, ErrorCode::Type,
           "{}: argument '{}' has dtype bool, which {} does not support; convert it to an "
           "integer or floating dtype",
           op, a_name, op);
}

std::string shape_of(const Tensor& t) {
  return shape_str(as_ref(t.sizes()));
}

// matmul(Tensor self, Tensor other) -> Tensor
// The kernel sees self [*B, n, k], other [*B, k, m] and the output [*B, n, m]: a 1-D self is
// viewed as [1, k] and a 1-D other as [k, 1] (the output loses that dim again), and both are
// expanded to the broadcast batch dims *B.
MetaResult matmul_meta(const OpDef& op, std::span<IValue> args) {
  // Copies: the arguments are replaced by their canonical views below.
  const Tensor self = tensor_arg(op, args, 0);
  const Tensor other = tensor_arg(op, args, 1);
  BP_CHECK(self.dim() >= 1 && other.dim() >= 1, ErrorCode::Shape,
           "{}: both arguments must have at least 1 dim, but 'self' has shape {} and 'other' "
           "has shape {}",
           op.name, shape_of(self), shape_of(other));
  check_product_dtypes(op.name, self, "self", other, "other");
  const bool self_vec = self.dim() == 1;
  const bool other_vec = other.dim() == 1;
  const Tensor a = self_vec ? self.unsqueeze(0) : self;     // [*, n, k]
  const Tensor b = other_vec ? other.unsqueeze(1) : other;  // [*, k, m]
  const int64_t n = a.size(-2);
  const int64_t k = a.size(-1);
  const int64_t m = b.size(-1);
  BP_CHECK(b.size(-2) == k, ErrorCode::Shape,
           "{}: argument 'other' has shape {} and 'self' has shape {}; the contracted sizes "
           "differ ({} in 'self''s last dim, {} in 'other''s {})",
           op.name, shape_of(other), shape_of(self), k, b.size(-2),
           other_vec ? "only dim" : "second-to-last dim");
  const Shape a_batch(a.sizes().begin(), a.sizes().end() - 2);
  const Shape b_batch(b.sizes().begin(), b.sizes().end() - 2);
  Shape batch = broadcast_shapes(as_ref(a_batch), as_ref(b_batch), op.name);
  Shape a_shape = batch;
  a_shape.insert(a_shape.end(), {n, k});
  Shape b_shape = batch;
  b_shape.insert(b_shape.end(), {k, m});
  Shape kernel = batch;
  kernel.insert(kernel.end(), {n, m});

  TensorMeta out;
  out.dtype = self.dtype();
  out.sizes = batch;
  if (!self_vec) out.sizes.push_back(n);
  if (!other_vec) out.sizes.push_back(m);
  if (out.sizes != kernel) out.kernel_sizes = std::move(kernel);
  args[0] = IValue(a.expand(as_ref(a_shape)));
  args[1] = IValue(b.expand(as_ref(b_shape)));
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(std::move(out));
  return r;
}

// addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor
// beta * self + alpha * (mat1 @ mat2); mat1 [n, k], mat2 [k, m], self broadcastable to
// [n, m] (and given to a fused kernel expanded to it).
// baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1): the
// same over a batch: batch1 [b, n, k], batch2 [b, k, m], self broadcastable to [b, n, m].
// kRank is 2 for addmm, 3 for baddbmm.
template <int kRank>
MetaResult addmm_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor self = tensor_arg(op, args, 0);
  const Tensor& mat1 = tensor_arg(op, args, 1);
  const Tensor& mat2 = tensor_arg(op, args, 2);
  const std::string_view name1 = arg_name(op, 1), name2 = arg_name(op, 2);
  for (auto [t, name] : {std::pair{&mat1, name1}, std::pair{&mat2, name2}}) {
    BP_CHECK(t->dim() == kRank, ErrorCode::Shape, "{}: argument '{}' must be {}, but has shape {}",
             op.name, name, kRank == 2 ? "a matrix (2 dims)" : "a batch of matrices (3 dims)",
             shape_of(*t));
  }
  check_product_dtypes(op.name, mat1, name1, mat2, name2);
  BP_CHECK(self.dtype() == mat1.dtype(), ErrorCode::Type,
           "{}: argument 'self' has dtype {} but '{}' has dtype {}; {} does not promote, so "
           "convert one of them first",
           op.name, dtype_name(self.dtype()), name1, dtype_name(mat1.dtype()), op.name);
  BP_CHECK(mat1.size(-1) == mat2.size(-2), ErrorCode::Shape,
           "{}: argument '{}' has shape {} and '{}' has shape {}; {}'s {} must equal {}'s last "
           "dim",
           op.name, name2, shape_of(mat2), name1, shape_of(mat1), name2,
           kRank == 2 ? "first dim" : "dim 1", name1);
  BP_CHECK(kRank == 2 || mat1.size(0) == mat2.size(0), ErrorCode::Shape,
           "{}: arguments '{}' {} and '{}' {} must hold the same number of matrices", op.name,
           name1, shape_of(mat1), name2, shape_of(mat2));
  Shape out{mat1.size(-2), mat2.size(-1)};
  if (kRank == 3) out.insert(out.begin(), mat1.size(0));
  BP_CHECK(broadcasts_to(as_ref(self.sizes()), as_ref(out)), ErrorCode::Shape,
           "{}: argument 'self' has shape {}, which does not broadcast to the product's shape "
           "{}",
           op.name, shape_of(self), shape_str(as_ref(out)));
  expand_args(args, {0}, as_ref(out));
  // PyTorch's checked conversion first: alpha=-1.5 for u8 matrices is an error.
  check_scalar_fits(op, "beta", args[3].scalar(), mat1.dtype());
  check_scalar_fits(op, "alpha", args[4].scalar(), mat1.dtype());
  args[3] = IValue(coefficient_for(args[3].scalar(), mat1.dtype()));
  args[4] = IValue(coefficient_for(args[4].scalar(), mat1.dtype()));
  MetaResult r;
  r.compute_dtype = mat1.dtype();
  r.outputs.push_back(TensorMeta{out, mat1.dtype(), std::nullopt});
  return r;
}

// add(alpha * (mat1 @ mat2), self, alpha=beta), for addmm and baddbmm. beta == 0 ignores self
// entirely, so NaN and Inf in it do not propagate (as PyTorch).
std::vector<Tensor> addmm_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMatmul = op_id("matmul");
  static const OpId kMul = op_id("mul.Tensor");
  static const OpId kAdd = op_id("add.Tensor");
  const Tensor& mat1 = args[1].tensor();
  const ScalarType dtype = mat1.dtype();
  const Scalar beta = coefficient_for(args[3].scalar(), dtype);
  const Scalar alpha = coefficient_for(args[4].scalar(), dtype);
  Tensor y = ctx.call1(kMatmul, {mat1, args[2]});
  if (alpha.to_double() != 1.0) {
    y = ctx.call1(kMul, {y, ctx.scalar_tensor(alpha, dtype)});
  }
  if (beta.to_double() == 0.0) return {y};
  return {ctx.call1(kAdd, {y, args[0], beta})};
}

// linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
// input [*, in] @ weight^T (weight [out, in], or [in] for an output without the last dim)
// + bias, broadcast to the output's shape.
MetaResult linear_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& input = tensor_arg(op, args, 0);
  const Tensor& weight = tensor_arg(op, args, 1);
  BP_CHECK(input.dim() >= 1, ErrorCode::Shape,
           "{}: argument 'input' has shape {}, but it must have at least 1 dim", op.name,
           shape_of(input));
  BP_CHECK(weight.dim() == 1 || weight.dim() == 2, ErrorCode::Shape,
           "{}: argument 'weight' has shape {}, but it must have 1 or 2 dims", op.name,
           shape_of(weight));
  check_product_dtypes(op.name, input, "input", weight, "weight");
  BP_CHECK(input.size(-1) == weight.size(-1), ErrorCode::Shape,
           "{}: argument 'weight' has shape {} and 'input' has shape {}; their last dims "
           "(in_features) must be equal",
           op.name, shape_of(weight), shape_of(input));
  Shape out(input.sizes().begin(), input.sizes().end() - 1);
  if (weight.dim() == 2) out.push_back(weight.size(0));
  if (const Tensor* b = optional_tensor_arg(op, args, 2)) {
    const Tensor& bias = *b;
    BP_CHECK(bias.dtype() == input.dtype(), ErrorCode::Type,
             "{}: argument 'bias' has dtype {} but 'input' has dtype {}; {} does not promote, "
             "so convert one of them first",
             op.name, dtype_name(bias.dtype()), dtype_name(input.dtype()), op.name);
    BP_CHECK(broadcasts_to(as_ref(bias.sizes()), as_ref(out)), ErrorCode::Shape,
             "{}: argument 'bias' has shape {}, which does not broadcast to the output's shape "
             "{}",
             op.name, shape_of(bias), shape_str(as_ref(out)));
  }
  MetaResult r;
  r.compute_dtype = input.dtype();
  r.outputs.push_back(TensorMeta{std::move(out), input.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> linear_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kMatmul = op_id("matmul");
  static const OpId kAdd = op_id("add.Tensor");
  Tensor y = ctx.call1(kMatmul, {args[0], args[1].tensor().t()});
  const Tensor* bias = optional_tensor(args[2]);
  return {bias == nullptr ? y : ctx.call1(kAdd, {y, *bias, Scalar(1)})};
}

}  // namespace

void register_linalg_ops(Catalog& c) {
  using K = OpKind;
  c.add({"matmul(Tensor self, Tensor other) -> Tensor", K::Primitive, matmul_meta});
  c.add(
      {"addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) "
       "-> Tensor",
       K::Composite, addmm_meta<2>, addmm_decompose});
  c.add({"linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", K::Composite,
         linear_meta, linear_decompose});
  c.add(
      {"baddbmm(Tensor self, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) "
       "-> Tensor",
       K::Composite, addmm_meta<3>, addmm_decompose});
}

}  // namespace bp::ops
