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

namespace bp::reference {
namespace {

bp_status check_binary(const bp_call* c, const View& a, const View& b, const View& out) {
  if (!same_shape(a, out)) return fail_shape(c, "self", a, out);
  if (!same_shape(b, out)) return fail_shape(c, "other", b, out);
  if (a.dtype != b.dtype)
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string(c->op_name) + ": argument 'other' has dtype " + dtype_name(b.dtype) +
                    " but 'self' has " + dtype_name(a.dtype) +
                    "; the reference backend expects both in the compute dtype");
  return BP_OK;
}

// out[i] = f(a[i], b[i]) for inputs of compute type T.
template <typename T, typename F>
void binary_loop(const View& a, const View& b, const View& out, F&& f) {
  for_each_index(out.ndim, out.shape,
                 [&](const int64_t* idx) { store(out, idx, f(a.at<T>(idx), b.at<T>(idx))); });
}

// A stateless op: Op::supports<T> (which compute dtypes it has) and Op::apply(T, T).
template <typename Op>
bp_status binary_kernel(const bp_call* c) {
  const View a(arg_tensor(c, 0)), b(arg_tensor(c, 1)), out(out_tensor(c));
  if (bp_status s = check_binary(c, a, b, out); s != BP_OK) return s;
  return visit_dtype(a.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (!Op::template supports<T>) {
      return fail_dtype(c, "self", a.dtype);
    } else {
      binary_loop<T>(a, b, out, [](T x, T y) { return Op::apply(x, y); });
      return BP_OK;
    }
  });
}

template <typename T>
inline constexpr bool kNotBool = !std::is_same_v<T, bool>;

inline uint64_t u64(int64_t v) {
  return static_cast<uint64_t>(v);
}

// ---- add / sub: self +- alpha * other ------------------------------------------------------
// alpha is checked as PyTorch does: a bool alpha only for bool results, no floating alpha
// for integral ones, and it must fit the compute dtype. For f16/bf16/f32 PyTorch multiplies
// by alpha as a float (its "opmath" type), so alpha is rounded to float first.
template <bool kSub>
bp_status add_sub_kernel(const bp_call* c) {
  const View a(arg_tensor(c, 0)), b(arg_tensor(c, 1)), out(out_tensor(c));
  if (bp_status s = check_binary(c, a, b, out); s != BP_OK) return s;
  bp_value alpha_v = c->args[2];
  if (alpha_v.tag == BP_VALUE_NONE) {
    alpha_v.tag = BP_VALUE_INT;
    alpha_v.u.i = 1;
  }
  return visit_dtype(a.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (kSub && std::is_same_v<T, bool>) {
      return fail_dtype(c, "self", a.dtype);  // PyTorch: use logical_xor instead
    } else {
      if (!std::is_same_v<T, bool> && alpha_v.tag == BP_VALUE_BOOL)
        return fail(BP_ERR_INVALID_ARGUMENT, std::string(c->op_name) +
                                                 ": Boolean alpha only supported for Boolean "
                                                 "results (compute dtype " +
                                                 dtype_name(a.dtype) + ")");
      if (!kIsFloating<T> && alpha_v.tag == BP_VALUE_FLOAT)
        return fail(BP_ERR_INVALID_ARGUMENT,
                    std::string(c->op_name) +
                        ": for integral input tensors, argument 'alpha' must not be a floating "
                        "point number (got " +
                        scalar_text(alpha_v) + ")");
      T alpha{};
      if (!scalar_to<T>(alpha_v, &alpha)) return fail_scalar_overflow(c, "alpha", alpha_v, a.dtype);
      if constexpr (std::is_same_v<T, bool>) {
        binary_loop<T>(a, b, out, [&](bool x, bool y) { return x || (alpha && y); });
      } else if constexpr (kIsFloating<T>) {
        const double al = arg_double(c, 2, 1.0);
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
      return BP_OK;
    }
  });
}

struct Mul {
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
struct Div {
  template <typename T>
  static constexpr bool supports = kIsFloating<T>;
  template <typename T>
  static T apply(T x, T y) {
    return from_double<T>(ieee_div(to_double(x), to_double(y)));
  }
};

// ---- div with a rounding mode --------------------------------------------------------------
enum class Rounding { kNone, kTrunc, kFloor };

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

// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> out.
bp_status div_mode_kernel(const bp_call* c) {
  const View a(arg_tensor(c, 0)), b(arg_tensor(c, 1)), out(out_tensor(c));
  if (bp_status s = check_binary(c, a, b, out); s != BP_OK) return s;
  const bp_value& mode_v = c->args[2];
  Rounding mode = Rounding::kNone;
  if (mode_v.tag == BP_VALUE_STRING && std::strcmp(mode_v.u.s, "trunc") == 0) {
    mode = Rounding::kTrunc;
  } else if (mode_v.tag == BP_VALUE_STRING && std::strcmp(mode_v.u.s, "floor") == 0) {
    mode = Rounding::kFloor;
  } else if (mode_v.tag != BP_VALUE_NONE) {
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string(c->op_name) +
                    ": expected rounding_mode to be one of None, 'trunc', or 'floor' but found " +
                    (mode_v.tag == BP_VALUE_STRING ? "'" + std::string(mode_v.u.s) + "'"
                                                   : std::string("a non-string")));
  }
  return visit_dtype(a.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return fail_dtype(c, "self", a.dtype);
    } else if constexpr (kIsFloating<T>) {
      binary_loop<T>(a, b, out, [&](T x, T y) {
        // f16/bf16/f32 round in f32 (PyTorch's opmath type), f64 in double.
        using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
        const double a_d = to_double(x), b_d = to_double(y);
        if (mode == Rounding::kNone) return from_double<T>(ieee_div(a_d, b_d));
        const C q = mode == Rounding::kTrunc
                        ? trunc_divide<C>(a_d, b_d)
                        : floor_divide(static_cast<C>(a_d), static_cast<C>(b_d));
        return from_double<T>(static_cast<double>(q));
      });
      return BP_OK;
    } else if (mode == Rounding::kNone) {
      // True division of integers yields a floating result (the host normally promotes).
      binary_loop<T>(a, b, out, [](T x, T y) { return ieee_div(to_double(x), to_double(y)); });
      return BP_OK;
    } else {
      // Checked before writing anything, so an in-place call leaves self unchanged.
      bool has_zero = false;
      for_each_index(b.ndim, b.shape, [&](const int64_t* idx) { has_zero |= b.at<T>(idx) == 0; });
      if (has_zero)
        return fail(BP_ERR_INVALID_ARGUMENT,
                    std::string(c->op_name) +
                        ": ZeroDivisionError: integer division by zero (argument 'other' "
                        "contains 0, rounding_mode='" +
                        mode_v.u.s + "', dtype " + dtype_name(a.dtype) + ")");
      binary_loop<T>(a, b, out, [&](T x, T y) {
        return wrap_int<T>(u64(int_divide(static_cast<int64_t>(x), static_cast<int64_t>(y), mode)));
      });
      return BP_OK;
    }
  });
}

// pow: std::pow in double for floating types; exact integer powers by squaring with
// wrap-around otherwise. A negative integral exponent gives PyTorch's values for tensor
// exponents: 1 for a base of 1, +-1 for -1, 0 for any other base (0 included).
struct Pow {
  template <typename T>
  static constexpr bool supports = kNotBool<T>;
  template <typename T>
  static T apply(T x, T y) {
    if constexpr (kIsFloating<T>) {
      return from_double<T>(std::pow(to_double(x), to_double(y)));
    } else {
      if constexpr (std::is_signed_v<T>) {
        if (y < 0) {
          if (x == 1) return T{1};
          if (x == -1) return (u64(y) & 1u) ? T{-1} : T{1};
          return T{0};
        }
      }
      uint64_t base = u64(x), e = static_cast<uint64_t>(y), result = 1;
      for (; e != 0; e >>= 1, base *= base)
        if (e & 1u) result *= base;
      return wrap_int<T>(result);
    }
  }
};

// maximum/minimum propagate NaN. Of +0.0 and -0.0 maximum returns +0.0 and minimum -0.0
// (IEEE 754-2019); PyTorch's answer there depends on its code path (docs/reference.md).
template <bool kMax>
struct MaxMin {
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
struct Compare {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static bool apply(T x, T y) {
    return Cmp{}(comparable(x), comparable(y));
  }
};

template <bool kAnd>
struct Logical {
  template <typename T>
  static constexpr bool supports = true;
  template <typename T>
  static bool apply(T x, T y) {
    return kAnd ? (nonzero(x) && nonzero(y)) : (nonzero(x) || nonzero(y));
  }
};

// where.self(Tensor condition, Tensor self, Tensor other) -> out.
bp_status where_kernel(const bp_call* c) {
  const View cond(arg_tensor(c, 0)), a(arg_tensor(c, 1)), b(arg_tensor(c, 2));
  const View out(out_tensor(c));
  if (!same_shape(cond, out)) return fail_shape(c, "condition", cond, out);
  if (bp_status s = check_binary(c, a, b, out); s != BP_OK) return s;
  if (cond.dtype != BP_DTYPE_BOOL) return fail_dtype(c, "condition", cond.dtype);
  visit_dtype(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_index(out.ndim, out.shape, [&](const int64_t* idx) {
      store(out, idx, cond.at<bool>(idx) ? a.at<T>(idx) : b.at<T>(idx));
    });
  });
  return BP_OK;
}

// clamp(Tensor self, Scalar? min, Scalar? max) -> out: min(max(x, lo), hi), so lo > hi
// gives hi. The bounds are converted to the compute dtype first (checked, as PyTorch). NaN
// in x stays NaN; a NaN bound makes the result NaN (docs/reference.md: PyTorch 1.13's CPU
// kernel ignores a lone NaN bound).
bp_status clamp_kernel(const bp_call* c) {
  const View self(arg_tensor(c, 0)), out(out_tensor(c));
  if (!same_shape(self, out)) return fail_shape(c, "self", self, out);
  const bp_value& lo_v = c->args[1];
  const bp_value& hi_v = c->args[2];
  const bool has_lo = lo_v.tag != BP_VALUE_NONE, has_hi = hi_v.tag != BP_VALUE_NONE;
  if (!has_lo && !has_hi)
    return fail(BP_ERR_INVALID_ARGUMENT,
                std::string(c->op_name) + ": at least one of 'min' or 'max' must not be None");
  return visit_dtype(self.dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return fail_dtype(c, "self", self.dtype);
    } else {
      T lo{}, hi{};
      if (has_lo && !scalar_to<T>(lo_v, &lo))
        return fail_scalar_overflow(c, "min", lo_v, self.dtype);
      if (has_hi && !scalar_to<T>(hi_v, &hi))
        return fail_scalar_overflow(c, "max", hi_v, self.dtype);
      for_each_index(out.ndim, out.shape, [&](const int64_t* idx) {
        T r = self.at<T>(idx);
        if constexpr (kIsFloating<T>) {
          if (!std::isnan(to_double(r))) {
            if (has_lo && (std::isnan(to_double(lo)) || to_double(r) < to_double(lo))) r = lo;
            if (has_hi && (std::isnan(to_double(hi)) || to_double(r) > to_double(hi))) r = hi;
          }
        } else {
          if (has_lo && r < lo) r = lo;
          if (has_hi && r > hi) r = hi;
        }
        store(out, idx, r);
      });
      return BP_OK;
    }
  });
}

}  // namespace

bp_status register_binary_kernels(uint32_t backend_id) {
  static const KernelEntry entries[] = {
      {"add.Tensor", BP_DTYPES_ALL, add_sub_kernel<false>},
      {"sub.Tensor", kAllButBool, add_sub_kernel<true>},
      {"mul.Tensor", BP_DTYPES_ALL, binary_kernel<Mul>},
      {"div.Tensor", BP_DTYPES_FLOATING, binary_kernel<Div>},
      {"div.Tensor_mode", kAllButBool, div_mode_kernel},
      {"pow.Tensor_Tensor", kAllButBool, binary_kernel<Pow>},
      {"maximum", BP_DTYPES_ALL, binary_kernel<MaxMin<true>>},
      {"minimum", BP_DTYPES_ALL, binary_kernel<MaxMin<false>>},
      {"eq.Tensor", BP_DTYPES_ALL, binary_kernel<Compare<std::equal_to<>>>},
      {"ne.Tensor", BP_DTYPES_ALL, binary_kernel<Compare<std::not_equal_to<>>>},
      {"lt.Tensor", BP_DTYPES_ALL, binary_kernel<Compare<std::less<>>>},
      {"le.Tensor", BP_DTYPES_ALL, binary_kernel<Compare<std::less_equal<>>>},
      {"gt.Tensor", BP_DTYPES_ALL, binary_kernel<Compare<std::greater<>>>},
      {"ge.Tensor", BP_DTYPES_ALL, binary_kernel<Compare<std::greater_equal<>>>},
      {"logical_and", BP_DTYPES_ALL, binary_kernel<Logical<true>>},
      {"logical_or", BP_DTYPES_ALL, binary_kernel<Logical<false>>},
      {"where.self", BP_DTYPES_ALL, where_kernel},
      {"clamp", kAllButBool, clamp_kernel},
  };
  return register_kernels(backend_id, entries, sizeof entries / sizeof entries[0]);
}

}  // namespace bp::reference
