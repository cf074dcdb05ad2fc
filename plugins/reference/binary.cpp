// Reference kernels for the elementwise binary ops: add sub mul div (true and with a
// rounding mode) pow maximum minimum, the comparisons eq ne lt le gt ge, logical_and
// logical_or, and the two with other arities that share their loop: where.self and clamp.
// The host has expanded the inputs to the output's shape and converted them to the compute
// dtype (docs/ops.md). Floating values are computed in double and rounded once; integral
// ones use uint64 arithmetic that wraps like PyTorch's.
#include "elementwise.hpp"

#include <cmath>
#include <cstring>
#include <functional>
#include <optional>

namespace bp::reference {
namespace {

// The host hands binary kernels both inputs in the output's shape and in one compute dtype.
void check_binary(const KernelContext& ctx, const StridedView& a, const StridedView& b,
                  const StridedView& out) {
  check_shape(ctx, "self", a, out);
  check_shape(ctx, "other", b, out);
  if (a.dtype != b.dtype)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(ctx.op_name()) + ": argument 'other' has dtype " + dtype_name(b.dtype) +
                    " but 'self' has " + dtype_name(a.dtype) +
                    "; the reference backend expects both in the compute dtype");
}

// out[i] = f(a[i], b[i]) for inputs of compute type T.
template <typename T, typename F>
void binary_loop(const StridedView& a, const StridedView& b, const StridedView& out, F&& f) {
  for_each_index(out, [&](const int64_t* idx) { store(out, idx, f(a.at<T>(idx), b.at<T>(idx))); });
}

inline uint64_t u64(int64_t v) {
  return static_cast<uint64_t>(v);
}

// The arithmetic of each stateless op, by its SDK tag: supports<T> (which compute dtypes
// it has) and apply(T, T).
template <typename Op>
struct BinaryFn;

// Runs BinaryFn<Op> elementwise; the ops with arguments of their own specialise it below.
template <typename Op>
struct Binary {
  static void run(const KernelContext& ctx, StridedView a, StridedView b, StridedView out) {
    check_binary(ctx, a, b, out);
    visit_dtype(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!BinaryFn<Op>::template supports<T>)
        throw unsupported(ctx, "self", a.dtype);
      else
        binary_loop<T>(a, b, out, [](T x, T y) { return BinaryFn<Op>::apply(x, y); });
    });
  }
};

// ---- add / sub: self +- alpha * other ------------------------------------------------------
// alpha is checked as PyTorch does: a bool alpha only for bool results, no floating alpha
// for integral ones, and it must fit the compute dtype. For f16/bf16/f32 PyTorch multiplies
// by alpha as a float (its "opmath" type), so alpha is rounded to float first.
template <typename T>
void check_alpha(const KernelContext& ctx, const sdk::Scalar& alpha, bp_dtype dtype) {
  if (!std::is_same_v<T, bool> && alpha.is_bool())
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(ctx.op_name()) +
                                             ": Boolean alpha only supported for Boolean "
                                             "results (compute dtype " +
                                             dtype_name(dtype) + ")");
  if (!kIsFloating<T> && alpha.is_floating())
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(ctx.op_name()) +
                    ": for integral input tensors, argument 'alpha' must not be a floating "
                    "point number (got " +
                    alpha.text() + ")");
}

template <bool kSub>
struct Binary<op::AddSub<kSub>> {
  static void run(const KernelContext& ctx, StridedView a, StridedView b,
                  std::optional<sdk::Scalar> alpha_arg, StridedView out) {
    check_binary(ctx, a, b, out);
    bp_value one{};
    one.tag = BP_VALUE_INT;
    one.u.i = 1;
    const sdk::Scalar alpha_v = alpha_arg.value_or(sdk::Scalar(one));
    visit_dtype(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (kSub && std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", a.dtype);  // PyTorch: use logical_xor instead
      } else {
        check_alpha<T>(ctx, alpha_v, a.dtype);
        const T alpha = alpha_v.checked_to<T>(ctx.op_name(), "alpha");
        if constexpr (std::is_same_v<T, bool>) {
          binary_loop<T>(a, b, out, [&](bool x, bool y) { return x || (alpha && y); });
        } else if constexpr (kIsFloating<T>) {
          const double al = alpha_v.to_double();
          const double alpha_d = std::is_same_v<T, double> ? al : static_cast<float>(al);
          binary_loop<T>(a, b, out, [&](T x, T y) {
            const double p = alpha_d * to_double(y);
            return from_double<T>(kSub ? to_double(x) - p : to_double(x) + p);
          });
        } else {
          const uint64_t al = u64(alpha);
          binary_loop<T>(a, b, out, [&](T x, T y) {
            const uint64_t p = al * u64(y);
            return wrap_int<T>(kSub ? u64(x) - p : u64(x) + p);
          });
        }
      }
    });
  }
};

template <>
struct BinaryFn<op::Mul> {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static T apply(T x, T y) {
    if constexpr (std::is_same_v<T, bool>)
      return x && y;
    else if constexpr (kIsFloating<T>)
      return from_double<T>(to_double(x) * to_double(y));
    else
      return wrap_int<T>(u64(x) * u64(y));
  }
};

// True division; the host promotes integral inputs to floating first.
template <>
struct BinaryFn<op::Div> {
  template <typename T>
  static constexpr bool supports = kIsFloating<T>;
  template <typename T>
  static T apply(T x, T y) {
    return from_double<T>(ieee_div(to_double(x), to_double(y)));
  }
};

// ---- div with a rounding mode --------------------------------------------------------------
using Rounding = sdk::RoundingMode;

// Python's float floor division (what PyTorch's div_floor_floating implements), in the
// op's math precision C (float for f16/bf16/f32, double for f64) as PyTorch computes it:
// the quotient from fmod, so it is exact where a / b would round up to the next integer;
// division by zero gives the IEEE result of a / b; a zero result takes the sign of a / b.
template <typename C>
C floor_divide(C a, C b) {
  if (b == C{0}) return static_cast<C>(ieee_div(a, b));
  const C mod = std::fmod(a, b);
  C div = (a - mod) / b;
  if (mod != C{0} && ((b < C{0}) != (mod < C{0}))) div -= C{1};
  if (div == C{0}) return std::copysign(C{0}, a / b);
  C floored = std::floor(div);
  if (div - floored > C{0.5}) floored += C{1};  // (a - mod) / b rounded just below an integer
  return floored;
}

// trunc(a / b) with the quotient rounded to the math precision C first, as PyTorch (and any
// device dividing in that precision) computes it: 20815601.7 in f32 is 20815602, so the
// truncated quotient is too. (A double quotient of float operands rounded to float is the
// float quotient: double has more than 2 * 24 + 2 bits.)
template <typename C>
C trunc_divide(double a, double b) {
  return std::trunc(static_cast<C>(ieee_div(a, b)));
}

// Integral quotient rounded toward zero or -inf; b != 0. INT_MIN / -1 wraps to INT_MIN
// (PyTorch crashes with SIGFPE on int64; on narrower types it wraps as here).
int64_t int_divide(int64_t a, int64_t b, Rounding mode) {
  if (b == -1) return static_cast<int64_t>(uint64_t{0} - u64(a));
  int64_t q = a / b;
  if (mode == Rounding::kFloor && a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

// Floating quotients rounded as PyTorch rounds them: f16/bf16/f32 in f32 (its opmath
// type), f64 in double.
template <typename T>
T floating_divide(T x, T y, Rounding mode) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const double a_d = to_double(x), b_d = to_double(y);
  if (mode == Rounding::kNone) return from_double<T>(ieee_div(a_d, b_d));
  const C q = mode == Rounding::kTrunc ? trunc_divide<C>(a_d, b_d)
                                       : floor_divide(static_cast<C>(a_d), static_cast<C>(b_d));
  return from_double<T>(static_cast<double>(q));
}

// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> out.
template <>
struct Binary<op::DivMode> {
  static void run(const KernelContext& ctx, StridedView a, StridedView b, const char* rounding_mode,
                  StridedView out) {
    check_binary(ctx, a, b, out);
    const Rounding mode = sdk::rounding_mode(ctx.op_name(), rounding_mode);
    visit_dtype(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", a.dtype);
      } else if constexpr (kIsFloating<T>) {
        binary_loop<T>(a, b, out, [&](T x, T y) { return floating_divide(x, y, mode); });
      } else if (mode == Rounding::kNone) {
        // True division of integers yields a floating result (the host normally promotes).
        binary_loop<T>(a, b, out, [](T x, T y) { return ieee_div(to_double(x), to_double(y)); });
      } else {
        // Checked before writing anything, so an in-place call leaves self unchanged.
        bool has_zero = false;
        for_each_index(b, [&](const int64_t* idx) { has_zero |= b.at<T>(idx) == 0; });
        if (has_zero)
          throw Error(BP_ERR_INVALID_ARGUMENT,
                      std::string(ctx.op_name()) +
                          ": ZeroDivisionError: integer division by zero (argument 'other' "
                          "contains 0, rounding_mode='" +
                          rounding_mode + "', dtype " + dtype_name(a.dtype) + ")");
        binary_loop<T>(a, b, out, [&](T x, T y) {
          return wrap_int<T>(
              u64(int_divide(static_cast<int64_t>(x), static_cast<int64_t>(y), mode)));
        });
      }
    });
  }
};

// pow: std::pow in double for floating types; PyTorch's wrapping integer powers otherwise
// (int_math.hpp: a negative exponent gives 1 for a base of 1, +-1 for -1, else 0).
template <>
struct BinaryFn<op::Pow> {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T x, T y) {
    if constexpr (kIsFloating<T>)
      return from_double<T>(std::pow(to_double(x), to_double(y)));
    else
      return sdk::wrapping_pow(x, y);
  }
};

// maximum/minimum propagate NaN. Of +0.0 and -0.0 maximum returns +0.0 and minimum -0.0
// (IEEE 754-2019); PyTorch's answer there depends on its code path (docs/reference.md).
template <bool kMax>
struct BinaryFn<op::MaxMin<kMax>> {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static T apply(T x, T y) {
    if constexpr (kIsFloating<T>) {
      const double dx = to_double(x), dy = to_double(y);
      if (std::isnan(dx)) return x;
      if (std::isnan(dy)) return y;
      if (dx == dy) return (std::signbit(dx) == kMax) ? y : x;
      return (dx > dy) == kMax ? x : y;
    } else {
      return (x > y) == kMax ? x : y;
    }
  }
};

// Comparisons read floating values as double (exact) and integers as themselves, so int64
// values beyond 2^53 compare exactly.
template <typename T>
auto comparable(T v) {
  if constexpr (kIsFloating<T>)
    return to_double(v);
  else
    return v;
}

template <typename Cmp>
struct BinaryFn<op::Compare<Cmp>> {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static bool apply(T x, T y) {
    return Cmp{}(comparable(x), comparable(y));
  }
};

template <bool kAnd>
struct BinaryFn<op::Logical<kAnd>> {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static bool apply(T x, T y) {
    return kAnd ? (nonzero(x) && nonzero(y)) : (nonzero(x) || nonzero(y));
  }
};

// where.self(Tensor condition, Tensor self, Tensor other) -> out.
template <>
struct Binary<op::Where> {
  static void run(const KernelContext& ctx, StridedView cond, StridedView a, StridedView b,
                  StridedView out) {
    check_shape(ctx, "condition", cond, out);
    check_binary(ctx, a, b, out);
    if (cond.dtype != BP_DTYPE_BOOL) throw unsupported(ctx, "condition", cond.dtype);
    visit_dtype(a.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for_each_index(out, [&](const int64_t* idx) {
        store(out, idx, cond.at<bool>(idx) ? a.at<T>(idx) : b.at<T>(idx));
      });
    });
  }
};

// min(max(x, lo), hi) with NaN in x kept and a NaN bound winning.
template <typename T>
T clamp_value(T r, const std::optional<T>& lo, const std::optional<T>& hi) {
  if constexpr (kIsFloating<T>) {
    if (std::isnan(to_double(r))) return r;
    if (lo && (std::isnan(to_double(*lo)) || to_double(r) < to_double(*lo))) r = *lo;
    if (hi && (std::isnan(to_double(*hi)) || to_double(r) > to_double(*hi))) r = *hi;
  } else {
    if (lo && r < *lo) r = *lo;
    if (hi && r > *hi) r = *hi;
  }
  return r;
}

// clamp(Tensor self, Scalar? min, Scalar? max) -> out: min(max(x, lo), hi), so lo > hi
// gives hi. The bounds are converted to the compute dtype first (checked, as PyTorch). NaN
// in x stays NaN; a NaN bound makes the result NaN (docs/reference.md: PyTorch 1.13's CPU
// kernel ignores a lone NaN bound).
template <>
struct Binary<op::Clamp> {
  static void run(const KernelContext& ctx, StridedView self, std::optional<sdk::Scalar> min,
                  std::optional<sdk::Scalar> max, StridedView out) {
    check_shape(ctx, "self", self, out);
    if (!min && !max)
      throw Error(BP_ERR_INVALID_ARGUMENT,
                  std::string(ctx.op_name()) + ": at least one of 'min' or 'max' must not be None");
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", self.dtype);
      } else {
        std::optional<T> lo, hi;
        if (min) lo = min->checked_to<T>(ctx.op_name(), "min");
        if (max) hi = max->checked_to<T>(ctx.op_name(), "max");
        for_each_index(out, [&](const int64_t* idx) {
          store(out, idx, clamp_value(self.at<T>(idx), lo, hi));
        });
      }
    });
  }
};

}  // namespace

void register_binary_kernels(sdk::Registrar& r) {
  sdk::register_binary_ops<Binary>(r);
}

}  // namespace bp::reference
