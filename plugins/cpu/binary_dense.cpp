// The dense entries of the CPU plugin's binary ops (ABI 1.3, plugin.h's bp_dense_call;
// docs/cpu.md, "Dense entries"): add sub mul div maximum minimum on f32/f64, beside their
// kernels in binary.cpp.
#include "binary_ops.hpp"
#include "loops.hpp"

#include <cmath>
#include <limits>

namespace bp::cpu {
namespace {

using namespace binary;

// For the SIMD ops on f32/f64: contiguous operands of one shape are one row, which the dense
// entry hands to compute_row as binary_row does for the same call (for_each_row_of runs such
// a call as one row below two parallel grains), so the results are the kernel's bit for bit.
// It declines what the kernel runs otherwise: sizes split over threads, and alphas the
// kernel refuses (a bool, or one that overflows the dtype), whose messages are the kernel's.

// add/sub take an alpha; the other dense ops no Scalar.
template <typename Op>
constexpr bool kHasAlpha = false;
template <bool kSub>
constexpr bool kHasAlpha<AddSub<kSub>> = true;

// alpha_params' Params for f32/f64 from a dense call's alpha; false: the kernel's to check
// (a bool, or what sdk::checked_convert refuses: a finite float beyond the dtype's range;
// every int64 is within both ranges).
template <typename T>
[[gnu::always_inline]] inline bool dense_alpha(const bp_dense_call& call, Params& prm) {
  const bp_value& alpha = call.scalars[0];
  if (alpha.tag == BP_VALUE_INT && alpha.u.i == 1) return true;  // the default: Params{}
  double al = 0.0;
  if (alpha.tag == BP_VALUE_INT) {
    al = static_cast<double>(alpha.u.i);
  } else if (alpha.tag == BP_VALUE_FLOAT) {
    al = alpha.u.f;
    if (std::isfinite(al) && std::fabs(al) > static_cast<double>(std::numeric_limits<T>::max()))
      return false;
  } else {
    return false;
  }
  // alpha_params' conversion: to double, then rounded to float for f32.
  prm.alpha = std::is_same_v<T, double> ? al : static_cast<double>(static_cast<float>(al));
  prm.scaled = prm.alpha != 1.0;
  return true;
}

// compute_row's SIMD loop for a long dense row. Out of line, with arguments that all fit in
// registers, so that the entry's call of it is a tail call and a short row saves none.
template <typename T>
[[gnu::noinline]] bp_status dense_long_row(simd::Binary op, const T* a, const T* b, T* out,
                                           int64_t n, T alpha) {
  simd::binary(op, a, 1, b, 1, out, n, alpha);
  return BP_OK;
}

template <typename Op, typename T>
[[gnu::always_inline]] inline bp_status dense_row(const bp_dense_call& call) {
  static_assert(Op::kSimd, "dense entries are registered for the ops simd::binary computes");
  Params prm;
  if constexpr (kHasAlpha<Op>)
    if (!dense_alpha<T>(call, prm)) return BP_ERR_UNSUPPORTED;
  const auto* a = static_cast<const T*>(call.inputs[0]);
  const auto* b = static_cast<const T*>(call.inputs[1]);
  auto* out = static_cast<T*>(call.out);
  // compute_row for T = C = R (its SIMD path), spelt out so that the long row's call is a
  // tail call. A scaled short row goes there too (simd::binary's own short path): its fused
  // multiply-add is a libm call on the baseline ISA, which would make every entry save
  // registers.
  const simd::Binary op = Op::simd_op(prm);
  const auto alpha = static_cast<T>(prm.alpha);
  if (call.numel <= simd::kShortRow && !prm.scaled &&
      simd::short_binary(op, a, 1, b, 1, out, call.numel, alpha))
    return BP_OK;
  return dense_long_row(op, a, b, out, call.numel, alpha);
}

template <typename Op>
bp_status dense_binary(const bp_dense_call* call) {
  if (call->numel >= 2 * kParallelGrain || call->out_dtype != call->dtype)
    return BP_ERR_UNSUPPORTED;
  if (call->dtype == BP_DTYPE_F32) return dense_row<Op, float>(*call);
  if (call->dtype == BP_DTYPE_F64) return dense_row<Op, double>(*call);
  return BP_ERR_UNSUPPORTED;
}

}  // namespace

void register_binary_dense_entries(sdk::Registrar& r) {
  constexpr bp_dtype_mask kDense = BP_DTYPE_BIT(BP_DTYPE_F32) | BP_DTYPE_BIT(BP_DTYPE_F64);
  r.dense("add.Tensor", kDense, dense_binary<AddSub<false>>, nullptr)
      .dense("sub.Tensor", kDense, dense_binary<AddSub<true>>, nullptr)
      .dense("mul.Tensor", kDense, dense_binary<BinaryFn<op::Mul>>, nullptr)
      .dense("div.Tensor", kDense, dense_binary<BinaryFn<op::Div>>, nullptr)
      .dense("maximum", kDense, dense_binary<BinaryFn<op::MaxMin<true>>>, nullptr)
      .dense("minimum", kDense, dense_binary<BinaryFn<op::MaxMin<false>>>, nullptr);
}

}  // namespace bp::cpu
