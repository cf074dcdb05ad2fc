// CPU kernels for the elementwise binary ops: add sub mul div (true and with a rounding
// mode) pow maximum minimum, the comparisons eq ne lt le gt ge, logical_and logical_or,
// and where.self and clamp, which share the same iterator. Registered dtypes are the
// reference backend's. The host has expanded the inputs to the output's shape (broadcast
// dims have stride 0) and converted them to the compute dtype. f32/f64 arithmetic runs the
// Highway loops of simd_binary.cpp (including rows where one operand is broadcast);
// f16/bf16 are computed in f32 blocks and rounded once; integers wrap like PyTorch.
#include "binary_ops.hpp"
#include "loops.hpp"

#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <string>

namespace bp::cpu {
namespace {

using namespace binary;

// An input row as compute values: (pointer, step) with step 0 for a broadcast operand.
template <typename T>
inline const Compute<T>* load_operand(const char* src, int64_t stride, int64_t n, Compute<T>* buf,
                                      int64_t* step) {
  *step = stride == 0 ? 0 : 1;
  return load_row<T>(src, stride, stride == 0 ? 1 : n, buf);
}

// One row in blocks of kBlock: operands gathered (and widened to compute values) first, the
// results stored (and narrowed) after. Out of line: binary_row's dense case stays small.
template <typename Op, typename T>
[[gnu::noinline]] void binary_row_blocked(char* const* p, const int64_t* s, int64_t n,
                                          bp_dtype out_dtype, const Params& prm) {
  using C = Compute<T>;
  using RT = typename Op::template Out<T>;
  using RC = Compute<RT>;
  C a_buf[kBlock], b_buf[kBlock];
  RC out_buf[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    int64_t as = 0, bs = 0;
    const C* a = load_operand<T>(p[1] + i * s[1], s[1], m, a_buf, &as);
    const C* b = load_operand<T>(p[2] + i * s[2], s[2], m, b_buf, &bs);
    compute_row<Op>(a, as, b, bs, out_buf, m, prm);
    store_row<RT>(out_buf, p[0] + i * s[0], s[0], m, out_dtype);
  }
}

// One row: p[0] the output, p[1] self, p[2] other (storage type T). A dense row of compute
// values (each operand contiguous or one broadcast value) goes straight to compute_row.
template <typename Op, typename T>
[[gnu::always_inline]] inline void binary_row(char* const* p, const int64_t* s, int64_t n,
                                              bp_dtype out_dtype, const Params& prm) {
  using C = Compute<T>;
  using RT = typename Op::template Out<T>;
  using RC = Compute<RT>;
  constexpr int64_t kSize = sizeof(T);
  if constexpr (std::is_same_v<T, C> && std::is_same_v<RT, RC>) {
    if (out_dtype == dtype_of<RT>() && s[0] == static_cast<int64_t>(sizeof(RT)) &&
        (s[1] == 0 || s[1] == kSize) && (s[2] == 0 || s[2] == kSize)) {
      compute_row<Op>(reinterpret_cast<const C*>(p[1]), s[1] ? 1 : 0,
                      reinterpret_cast<const C*>(p[2]), s[2] ? 1 : 0, reinterpret_cast<RC*>(p[0]),
                      n, prm);
      return;
    }
  }
  binary_row_blocked<Op, T>(p, s, n, out_dtype, prm);
}

[[noreturn]] void shapes_differ(const KernelContext& ctx) {
  throw Error(BP_ERR_INVALID_ARGUMENT,
              std::string(ctx.op_name()) +
                  ": the inputs must have the output's shape (the host expands them)");
}

[[gnu::cold, gnu::noinline]] void dtypes_differ(const KernelContext& ctx, bp_dtype a, bp_dtype b) {
  throw Error(BP_ERR_INVALID_ARGUMENT, std::string(ctx.op_name()) +
                                           ": argument 'other' has dtype " + dtype_name(b) +
                                           " but 'self' has " + dtype_name(a) +
                                           "; the cpu backend expects both in the compute dtype");
}

// Inline, the message out of line: every binary kernel call checks this.
inline void check_same_dtype(const KernelContext& ctx, const TensorArg& a, const TensorArg& b) {
  if (a.dtype() != b.dtype()) dtypes_differ(ctx, a.dtype(), b.dtype());
}

// Runs Op over self, other and the output, for storage type T.
template <typename Op, typename T>
void run_binary(const KernelContext& ctx, const TensorArg& a, const TensorArg& b,
                const TensorArg& out, const Params& prm) {
  const bp_dtype out_dtype = out.dtype();
  auto row = [out_dtype, &prm](char* const* p, const int64_t* s, int64_t n) {
    binary_row<Op, T>(p, s, n, out_dtype, prm);
  };
  if (!for_each_row_of({out.raw(), a.raw(), b.raw()},
                       {dtype_size(out_dtype), int64_t{sizeof(T)}, int64_t{sizeof(T)}}, row))
    shapes_differ(ctx);
}

// Runs BinaryFn<Op>; the ops with arguments of their own specialise it below.
template <typename Op>
struct Binary {
  static void run(const KernelContext& ctx, TensorArg a, TensorArg b, TensorArg out) {
    using Fn = BinaryFn<Op>;
    check_same_dtype(ctx, a, b);
    visit_dtype(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!Fn::template kSupports<T>)
        throw unsupported(ctx, "self", a.dtype());
      else
        run_binary<Fn, T>(ctx, a, b, out, Params{});
    });
  }
};

// ---- kernels with arguments ------------------------------------------------------------------
// add.Tensor / sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> out. alpha is
// checked as PyTorch does (the meta rule has normally done it already).
template <bool kSub>
struct Binary<op::AddSub<kSub>> {
  // The alpha of the scalar loops, checked and converted to the compute dtype T.
  template <typename T>
  static Params alpha_params(const KernelContext& ctx, const sdk::Scalar& alpha_v) {
    if (!std::is_same_v<T, bool> && alpha_v.is_bool())
      throw Error(
          BP_ERR_INVALID_ARGUMENT,
          std::string(ctx.op_name()) + ": Boolean alpha only supported for Boolean results");
    if (!kIsFloating<T> && alpha_v.is_floating())
      throw Error(BP_ERR_INVALID_ARGUMENT,
                  std::string(ctx.op_name()) +
                      ": for integral input tensors, argument 'alpha' must not be a floating "
                      "point number");
    const T alpha = alpha_v.checked_to<T>(ctx.op_name(), "alpha");
    Params prm;
    if constexpr (std::is_same_v<T, bool>) {
      prm.alpha_b = alpha;
    } else if constexpr (kIsFloating<T>) {
      const double al = alpha_v.to_double();
      // f16/bf16/f32 multiply by alpha as a float (PyTorch's opmath type).
      prm.alpha = std::is_same_v<T, double> ? al : static_cast<double>(static_cast<float>(al));
      prm.scaled = prm.alpha != 1.0;
    } else {
      prm.alpha_i = static_cast<int64_t>(alpha);
      prm.scaled = alpha != T{1};
    }
    return prm;
  }

  static void run(const KernelContext& ctx, TensorArg a, TensorArg b,
                  std::optional<sdk::Scalar> alpha_arg, TensorArg out) {
    check_same_dtype(ctx, a, b);
    bp_value one{};
    one.tag = BP_VALUE_INT;
    one.u.i = 1;
    const sdk::Scalar alpha_v = alpha_arg.value_or(sdk::Scalar(one));
    visit_dtype(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!AddSub<kSub>::template kSupports<T>)
        throw unsupported(ctx, "self", a.dtype());
      else
        run_binary<AddSub<kSub>, T>(ctx, a, b, out, alpha_params<T>(ctx, alpha_v));
    });
  }
};

// Whether any element of `t` (storage type T) is zero; rows over all threads.
template <typename T>
bool has_zero(const bp_tensor* t) {
  StridedIter<1> it;
  make_iter(it, {t}, {int64_t{sizeof(T)}});
  std::atomic<bool> found{false};
  for_each_row(it, [&found](char* const* p, const int64_t* s, int64_t n) {
    bool zero = false;
    for (int64_t i = 0; i < n; ++i) zero |= *reinterpret_cast<const T*>(p[0] + i * s[0]) == T{0};
    if (zero) found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

// div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> out.
template <>
struct Binary<op::DivMode> {
  static void run(const KernelContext& ctx, TensorArg a, TensorArg b, const char* rounding_mode,
                  TensorArg out) {
    check_same_dtype(ctx, a, b);
    Params prm;
    prm.mode = sdk::rounding_mode(ctx.op_name(), rounding_mode);
    visit_dtype(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", a.dtype());
      } else if constexpr (kIsFloating<T>) {
        if (prm.mode == Rounding::kNone)
          return run_binary<BinaryFn<op::Div>, T>(ctx, a, b, out, prm);
        run_binary<DivRounding, T>(ctx, a, b, out, prm);
      } else {
        if (prm.mode == Rounding::kNone) return run_binary<DivTrueInt, T>(ctx, a, b, out, prm);
        // Checked before writing anything, so an in-place call leaves self unchanged.
        if (has_zero<T>(b.raw()))
          throw Error(BP_ERR_INVALID_ARGUMENT,
                      std::string(ctx.op_name()) +
                          ": ZeroDivisionError: integer division by zero (argument 'other' "
                          "contains 0, rounding_mode='" +
                          rounding_mode + "', dtype " + dtype_name(a.dtype()) + ")");
        run_binary<DivRounding, T>(ctx, a, b, out, prm);
      }
    });
  }
};

// where.self(Tensor condition, Tensor self, Tensor other) -> out: selects storage values,
// converted only when an out= tensor of another dtype was passed.
template <>
struct Binary<op::Where> {
  static void run(const KernelContext& ctx, TensorArg cond, TensorArg a, TensorArg b,
                  TensorArg out) {
    check_same_dtype(ctx, a, b);
    if (cond.dtype() != BP_DTYPE_BOOL) throw unsupported(ctx, "condition", cond.dtype());
    visit_dtype(a.dtype(),
                [&](auto tag) { select<typename decltype(tag)::type>(ctx, cond, a, b, out); });
  }

  template <typename T>
  static void select(const KernelContext& ctx, TensorArg cond, TensorArg a, TensorArg b,
                     TensorArg out) {
    StridedIter<4> it;
    if (!make_iter(it, {out.raw(), cond.raw(), a.raw(), b.raw()},
                   {dtype_size(out.dtype()), int64_t{1}, int64_t{sizeof(T)}, int64_t{sizeof(T)}}))
      shapes_differ(ctx);
    const bp_dtype out_dtype = out.dtype();
    for_each_row(it, [out_dtype](char* const* p, const int64_t* s, int64_t n) {
      auto pick = [&](int64_t i) -> const T& {
        return *reinterpret_cast<const bool*>(p[1] + i * s[1])
                   ? *reinterpret_cast<const T*>(p[2] + i * s[2])
                   : *reinterpret_cast<const T*>(p[3] + i * s[3]);
      };
      if (out_dtype == dtype_of<T>()) {
        for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = pick(i);
        return;
      }
      Compute<T> buf[kBlock];
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        for (int64_t j = 0; j < m; ++j) buf[j] = to_compute(pick(i + j));
        store_row<T>(buf, p[0] + i * s[0], s[0], m, out_dtype);
      }
    });
  }
};

// clamp(Tensor self, Scalar? min, Scalar? max) -> out: min(max(x, lo), hi) with the bounds
// converted (checked) to the compute dtype, so lo > hi gives hi. NaN in x stays NaN; a NaN
// bound makes the result NaN (the reference's rule).
template <typename C>
struct ClampBounds {
  C lo{}, hi{};
  bool has_lo = false, has_hi = false;
  C apply(C r) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(r)) return r;
      if (has_lo && (std::isnan(lo) || r < lo)) r = lo;
      if (has_hi && (std::isnan(hi) || r > hi)) r = hi;
    } else {
      if (has_lo && r < lo) r = lo;
      if (has_hi && r > hi) r = hi;
    }
    return r;
  }
};

template <>
struct Binary<op::Clamp> {
  static void run(const KernelContext& ctx, TensorArg self, std::optional<sdk::Scalar> min,
                  std::optional<sdk::Scalar> max, TensorArg out) {
    if (!min && !max)
      throw Error(BP_ERR_INVALID_ARGUMENT,
                  std::string(ctx.op_name()) + ": at least one of 'min' or 'max' must not be None");
    visit_dtype(self.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_same_v<T, bool>) {
        throw unsupported(ctx, "self", self.dtype());
      } else {
        T lo{}, hi{};
        if (min) lo = min->checked_to<T>(ctx.op_name(), "min");
        if (max) hi = max->checked_to<T>(ctx.op_name(), "max");
        const ClampBounds<Compute<T>> bounds{to_compute(lo), to_compute(hi), min.has_value(),
                                             max.has_value()};
        clamp_rows<T>(ctx, self, out, bounds);
      }
    });
  }

  template <typename T>
  static void clamp_rows(const KernelContext& ctx, TensorArg self, TensorArg out,
                         const ClampBounds<Compute<T>>& bounds) {
    using C = Compute<T>;
    StridedIter<2> it;
    if (!make_iter(it, {out.raw(), self.raw()}, {dtype_size(out.dtype()), int64_t{sizeof(T)}}))
      shapes_differ(ctx);
    const bp_dtype out_dtype = out.dtype();
    for_each_row(it, [out_dtype, &bounds](char* const* p, const int64_t* s, int64_t n) {
      if constexpr (std::is_same_v<T, C>) {
        if (out_dtype == dtype_of<T>() && s[0] == int64_t{sizeof(T)} &&
            s[1] == int64_t{sizeof(T)}) {
          const T* x = reinterpret_cast<const T*>(p[1]);
          T* o = reinterpret_cast<T*>(p[0]);
          for (int64_t i = 0; i < n; ++i) o[i] = bounds.apply(x[i]);
          return;
        }
      }
      C in_buf[kBlock], out_buf[kBlock];
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        const C* x = load_row<T>(p[1] + i * s[1], s[1], m, in_buf);
        for (int64_t j = 0; j < m; ++j) out_buf[j] = bounds.apply(x[j]);
        store_row<T>(out_buf, p[0] + i * s[0], s[0], m, out_dtype);
      }
    });
  }
};

}  // namespace

void register_binary_kernels(sdk::Registrar& r) {
  sdk::register_binary_ops<Binary>(r);
  register_binary_dense_entries(r);
}

}  // namespace bp::cpu
