// The tolerance table of the conformance suite: one line per op family, with the reason for
// its bounds next to it. The reference backend computes in double and rounds once to the
// output dtype, so for f16/bf16/f32 it is the correctly rounded result (within 0.5 ULP) and
// for f64 it carries libm's error (about 1 ULP). Bounds are what a correct fast
// implementation needs, no more: a kernel that is off by more is wrong.
#include "backplane/conformance/tolerance.hpp"

#include <backplane/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

namespace bp::conformance {
namespace {

enum class Kind {
  Exact,        // the result is an input value, an index, a bool or an integer-valued rounding
  ExactSigned,  // Exact, and a zero must have the reference's sign
  Default,      // PyTorch's default rtol/atol for the dtype (torch.testing.assert_close)
  Ulp,          // max_ulp, with an absolute floor for results near zero
  Reduction,    // K values folded into one: rtol + sqrt(K)*eps_acc, atol + K*eps_acc
  Product,      // as Reduction, but relative error grows linearly: rtol + K*eps_acc
};

struct Rule {
  const char* ops;  // base op names, space-separated
  Kind kind;
  int64_t ulp_half;    // ULP bound for f16 and bf16 (Kind::Ulp)
  int64_t ulp_single;  // ULP bound for f32 and f64 (Kind::Ulp)
  double floor_eps;    // absolute floor, in eps of the compute precision (Kind::Ulp)
};

// f16/bf16 ULP bounds: implementations compute in f32 and round once, so they are at most
// 1 ULP from the correctly rounded reference; composites round twice (2 ULP).
// f32/f64 ULP bounds: IEEE operations (sqrt, 1/x) are correctly rounded (1 ULP of slack for
// hardware reciprocal/sqrt approximations refined by one Newton step); rsqrt rounds twice.
// Vendor math libraries document 1-4 ULP for the transcendental functions (CUDA expf 2,
// sinf 2, tanhf 2, erff 2, powf 2; Highway's contrib/math Sin/Cos 3, Log/Tanh 4; glibc
// < 1), so 4 ULP admits all of them and still catches a wrong polynomial or range
// reduction. The floor covers results that cancel to near zero: the argument reduction of
// sin/cos near multiples of pi, and gelu's 1 + erf(x/sqrt 2) for negative x, whose absolute
// error is a few eps of the compute precision however small the result. It is counted in
// eps of f32 for f16/bf16/f32 (half types compute in f32; an f16 eps floor would admit
// any result below 0.008) and of f64 for f64.
constexpr Rule kRules[] = {
    {"copy_ fill_ cat index_select gather where embedding", Kind::ExactSigned, 0, 0, 0},  // moves
    {"neg abs sign relu floor ceil clamp", Kind::ExactSigned, 0, 0, 0},  // picks, negations
    // On a +-0 tie PyTorch 1.13's CPU maximum/minimum return the first operand's zero for
    // tensors shorter than a vector and the second's for longer ones: no sign to match.
    {"maximum minimum", Kind::Exact, 0, 0, 0},
    {"amax amin argmax argmin all any", Kind::Exact, 0, 0, 0},  // selecting reductions
    {"eq ne lt le gt ge logical_and logical_or logical_not", Kind::Exact, 0, 0, 0},  // bool
    {"sqrt reciprocal", Kind::Ulp, 1, 1, 0},  // IEEE-exact operations
    {"rsqrt", Kind::Ulp, 1, 2, 0},            // 1/sqrt(x): two roundings
    {"exp log tanh sigmoid erf pow", Kind::Ulp, 1, 4, 0},
    {"sin cos", Kind::Ulp, 1, 4, 1},    // + argument reduction near zeros of the result
    {"gelu silu", Kind::Ulp, 2, 4, 8},  // products with cancellation (gelu, x < 0)
    // IEEE multiplication and division round once, in PyTorch as on every backend (f16/bf16
    // computed in f32 and rounded again give the same result, f32 having more than 2p+2
    // bits), and the rounding modes of div are exact: bit-exact, zero signs included, as
    // PyTorch is.
    {"mul div", Kind::ExactSigned, 0, 0, 0},
    // add/sub: one rounding, but alpha makes a second (or a fused multiply-add); cancellation
    // makes relative error unbounded, hence atol. arange computes start + i*step, which
    // cancels near zero crossings the same way.
    {"add sub arange", Kind::Default, 0, 0, 0},
    // Summation error is at most (K-1)*u*sum|x_i| (Higham, 4.2); blocked and pairwise sums
    // are typically sqrt(K)*u relative. The suite's inputs are O(1), so K*eps absolute and
    // sqrt(K)*eps relative bound what a correct summation order can change.
    {"sum mean matmul addmm baddbmm linear softmax log_softmax layer_norm rms_norm "
     "scaled_dot_product_attention",
     Kind::Reduction, 0, 0, 0},
    {"prod", Kind::Product, 0, 0, 0},  // relative error of K-1 products: (K-1)*u
    // Training ops (docs/training.md). threshold_backward picks grad or 0; zero_ writes 0.
    {"threshold_backward zero_", Kind::ExactSigned, 0, 0, 0},
    // The activation gradients are chains of 3 to 8 roundings around exp/erf/tanh, with
    // cancellation (1 - y*y near |y| = 1, gelu's cdf + x*pdf for x < 0); the losses'
    // gradients and the optimizer ops are 2-3 roundings with add's cancellation: PyTorch's
    // own assert_close defaults, as for add.
    {"gelu_backward silu_backward sigmoid_backward tanh_backward mse_loss_backward "
     "nll_loss_backward addcmul addcdiv lerp",
     Kind::Default, 0, 0, 0},
    // Row sums (the softmax gradients) and batch sums (the reduced losses).
    {"native_layer_norm native_layer_norm_backward _softmax_backward_data "
     "_log_softmax_backward_data mse_loss nll_loss_forward nll_loss "
     "cross_entropy_loss",
     Kind::Reduction, 0, 0, 0},
    // Adds through indices, in the index's order with one rounding each on every backend;
    // K is the number of adds (a GPU's fused multiply-add of alpha may round once less).
    {"index_add embedding_dense_backward", Kind::Reduction, 0, 0, 0},
    // Op set v2. The masks pick self or the value (a zero's sign included); the statistics
    // are two row sums (var: the mean, then the squares) and logsumexp one, around exp/log.
    {"masked_fill tril triu", Kind::ExactSigned, 0, 0, 0},
    {"var std logsumexp", Kind::Reduction, 0, 0, 0},
    // Running sums and products in the line's order (K: the line length); max/min pick.
    {"cumsum", Kind::Reduction, 0, 0, 0},
    {"cumprod", Kind::Product, 0, 0, 0},
    {"max min", Kind::Exact, 0, 0, 0},
    // Sums of K products per result element, in each backend's order (oneDNN's blocked
    // f32 order on the CPU, one work item's loop on a GPU); K is the window times the
    // group's channels (forward), or the batch times the output positions (weight gradient).
    {"convolution convolution_backward convolution_forward convolution_backward_input "
     "convolution_backward_weight",
     Kind::Reduction, 0, 0, 0},
    // Max pooling picks an input element (and its index); its gradient, and average
    // pooling and its gradient, are sums of K window elements (K: the window's size, or the
    // windows an input element belongs to).
    // Pure functions of (seed, offset) computed in one fixed order of correctly rounded
    // steps on every device (sdk/philox.hpp), and the exact products and picks over them.
    {"uniform_ normal_ random_ bernoulli_ native_dropout native_dropout_backward",
     Kind::ExactSigned, 0, 0, 0},
    {"hardtanh hardtanh_backward", Kind::ExactSigned, 0, 0, 0},  // clamp; grad or zero
    {"sort argsort topk", Kind::ExactSigned, 0, 0, 0},  // input values moved; a stable order
    // Up to K values folded into one element (sum, prod, mean), as index_add; assignments and
    // amax/amin are exact under it.
    {"scatter scatter_add scatter_reduce", Kind::Reduction, 0, 0, 0},
    // Coordinates, and self's elements picked or written by them; index_put's accumulate
    // adds in index order, as index_add.
    {"nonzero_static nonzero masked_select masked_scatter one_hot index", Kind::ExactSigned, 0, 0,
     0},
    {"index_put", Kind::Reduction, 0, 0, 0},
    {"max_pool2d_with_indices", Kind::ExactSigned, 0, 0, 0},
    {"max_pool2d_with_indices_backward avg_pool2d avg_pool2d_backward _adaptive_avg_pool2d "
     "_adaptive_avg_pool2d_backward",
     Kind::Reduction, 0, 0, 0},
    // Batch norm: per-channel means over K = N * spatial elements, as layer_norm's rows.
    {"native_batch_norm native_batch_norm_backward native_group_norm "
     "native_group_norm_backward",
     Kind::Reduction, 0, 0, 0},
};

bool rule_has(const Rule& rule, std::string_view name) {
  std::string_view ops = rule.ops;
  while (!ops.empty()) {
    const size_t space = ops.find(' ');
    if (ops.substr(0, space) == name) return true;
    if (space == std::string_view::npos) break;
    ops.remove_prefix(space + 1);
  }
  return false;
}

const Rule* find_rule(std::string_view name) {
  for (const Rule& rule : kRules)
    if (rule_has(rule, name)) return &rule;
  return nullptr;
}

// "aten::add.out" -> "add"; "add_" -> "add" when only the functional form is in the table.
const Rule* rule_for(std::string_view op_name) {
  std::string_view name = op_name;
  if (const size_t colons = name.rfind("::"); colons != std::string_view::npos)
    name.remove_prefix(colons + 2);
  name = name.substr(0, name.find('.'));
  if (const Rule* rule = find_rule(name)) return rule;
  if (name.size() > 1 && name.back() == '_') return find_rule(name.substr(0, name.size() - 1));
  return nullptr;
}

// torch.testing.assert_close's defaults.
Tolerance pytorch_default(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float16:
      return {1e-3, 1e-5, 0, false};
    case ScalarType::BFloat16:
      return {1.6e-2, 1e-5, 0, false};
    case ScalarType::Float32:
      return {1.3e-6, 1e-5, 0, false};
    default:
      return {1e-7, 1e-7, 0, false};
  }
}

double smallest_normal(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float16:
      return std::ldexp(1.0, -14);
    case ScalarType::BFloat16:
    case ScalarType::Float32:
      return std::ldexp(1.0, -126);
    default:
      return std::ldexp(1.0, -1022);
  }
}

// The precision f16/bf16 results are computed in: f32 (reductions of f16/bf16 accumulate in
// f32, docs/ops.md), so their accumulation error is f32's; only the final rounding is in
// the output dtype, which the default rtol covers.
double accumulation_eps(ScalarType dtype) {
  return dtype == ScalarType::Float64 ? dtype_eps(ScalarType::Float64)
                                      : dtype_eps(ScalarType::Float32);
}

}  // namespace

double dtype_eps(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float16:
      return std::ldexp(1.0, -10);
    case ScalarType::BFloat16:
      return std::ldexp(1.0, -7);
    case ScalarType::Float32:
      return std::ldexp(1.0, -23);
    case ScalarType::Float64:
      return std::ldexp(1.0, -52);
    default:
      return 0.0;
  }
}

Tolerance tolerance_for(std::string_view op_name, ScalarType dtype, int64_t reduced_elements,
                        double input_scale) {
  const Rule* rule = rule_for(op_name);
  BP_CHECK(rule != nullptr, ErrorCode::InvalidArgument,
           "no conformance tolerance for operator '{}' (add it to the table in "
           "conformance/src/tolerance.cpp)",
           op_name);
  BP_CHECK(reduced_elements >= 1, ErrorCode::InvalidArgument,
           "reduced_elements must be >= 1, got {}", reduced_elements);
  if (!is_floating(dtype) || rule->kind == Kind::Exact) return {0.0, 0.0, 0, true};
  if (rule->kind == Kind::ExactSigned) return {0.0, 0.0, 0, true, true};
  const bool half = dtype == ScalarType::Float16 || dtype == ScalarType::BFloat16;
  const auto k = static_cast<double>(reduced_elements);
  Tolerance tol = pytorch_default(dtype);
  switch (rule->kind) {
    case Kind::Exact:
    case Kind::ExactSigned:
    case Kind::Default:
      break;
    case Kind::Ulp:
      tol.rtol = 0.0;
      // Results below the smallest normal may be flushed to zero: flush-to-zero is the
      // default of GPU fast math and of vector math libraries (the CPU plugin's sigmoid of
      // -98 is 0, not 2.7e-43), and no model depends on subnormal results.
      tol.atol = std::max(rule->floor_eps * accumulation_eps(dtype), smallest_normal(dtype));
      tol.max_ulp = half ? rule->ulp_half : rule->ulp_single;
      break;
    case Kind::Reduction:
      tol.rtol += std::sqrt(k) * accumulation_eps(dtype);
      tol.atol += k * accumulation_eps(dtype) * input_scale;
      if (half) {
        // The composites of this family (linear = matmul + add, softmax, layer_norm, sdpa)
        // decompose into ops that each round to the output dtype: one more rounding of an
        // intermediate of magnitude about sqrt(K) * input_scale.
        tol.rtol += dtype_eps(dtype);
        tol.atol += dtype_eps(dtype) * std::sqrt(k) * input_scale;
      }
      break;
    case Kind::Product:
      tol.rtol += k * accumulation_eps(dtype);
      tol.atol += k * accumulation_eps(dtype) * input_scale;
      break;
  }
  return tol;
}

double input_scale_for(std::string_view op_name, std::vector<double> input_rms) {
  std::sort(input_rms.begin(), input_rms.end(), std::greater<>());
  std::string_view name = op_name.substr(0, op_name.find('.'));
  const bool products = name == "matmul" || name == "addmm" || name == "linear" ||
                        name == "scaled_dot_product_attention";
  double scale = input_rms.empty() ? 1.0 : input_rms[0];
  if (products && input_rms.size() >= 2) scale *= input_rms[1];
  return std::max(1.0, scale);
}

std::string to_string(const Tolerance& tol) {
  if (tol.exact) return tol.signed_zeros ? "exact, zeros by sign" : "exact";
  char buf[96];
  if (tol.max_ulp > 0 && tol.rtol == 0.0)
    std::snprintf(buf, sizeof buf, "%lld ulp or atol %.3g", static_cast<long long>(tol.max_ulp),
                  tol.atol);
  else if (tol.max_ulp > 0)
    std::snprintf(buf, sizeof buf, "%lld ulp or rtol %.3g atol %.3g",
                  static_cast<long long>(tol.max_ulp), tol.rtol, tol.atol);
  else
    std::snprintf(buf, sizeof buf, "rtol %.3g atol %.3g", tol.rtol, tol.atol);
  return buf;
}

}  // namespace bp::conformance
