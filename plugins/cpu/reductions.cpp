// CPU kernels for the reductions: sum.dim_IntList, prod.dim_int, amax, amin, argmax, argmin,
// all.dim and any.dim. The meta rule hands each kernel its output in the keepdim shape and
// its dims wrapped (docs/ops.md), so one engine (reduce_engine.hpp) serves all of them; this
// file holds the per-op folds ("reducers") and their dtype dispatch.
//
// Numerics: f16/bf16 accumulate in f32, f32 in f32 with blocked pairwise sums, f64 in f64;
// integers and bool fold in uint64 and wrap like PyTorch. amax/amin propagate NaN;
// argmax/argmin return the first index of the extreme, a NaN counting as the extreme.
#include "cpu.hpp"
#include "reduce_engine.hpp"
#include "simd.hpp"
#include "simd_reduce.hpp"

#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace bp::cpu {
namespace {

// The accumulator of a floating sum or product: f32 for f16/bf16/f32, f64 for f64.
template <typename T>
using FloatAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Widens a contiguous f16/bf16 run to f32 in chunks and hands each chunk to `f`.
template <typename T, typename F>
void for_each_f32_chunk(const T* p, int64_t n, F&& f) {
  constexpr int64_t kChunk = 2048;
  float buf[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t m = std::min(kChunk, n - i);
    const auto* bits = reinterpret_cast<const uint16_t*>(p + i);
    if constexpr (std::is_same_v<T, Half>)
      simd::half_to_float(bits, buf, m);
    else
      simd::bfloat16_to_float(bits, buf, m);
    f(buf, m);
  }
}

// ---- sum and prod ------------------------------------------------------------------------
template <typename T>
struct SumFloat {
  using In = T;
  using Out = T;
  using Acc = FloatAcc<T>;
  static constexpr bool kCascade = true;
  Acc init() const { return 0; }
  void step(Acc& a, In x, int64_t) const { a += static_cast<Acc>(widen(x)); }
  void merge(Acc& a, const Acc& b) const { a += b; }
  Out finish(const Acc& a) const { return narrow<Out>(a); }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    if (stride != 1) return generic_row(*this, p, n, stride, idx0);
    if constexpr (std::is_same_v<T, float>) {
      return simd_sum_f32(p, n);
    } else if constexpr (std::is_same_v<T, double>) {
      return simd_sum_f64(p, n);
    } else {
      Pairwise<float> sum;
      for_each_f32_chunk(p, n, [&](const float* f, int64_t m) { sum.push(simd_sum_f32(f, m)); });
      return sum.total();
    }
  }
  // `count` contiguous rows of n elements, `stride` apart, each into out[r * out_stride]
  // (reduce_engine.hpp's plain-rows path): f32/f64 through one SIMD call for all of them.
  void rows(const In* p, int64_t n, int64_t stride, int64_t count, Out* out,
            int64_t out_stride) const {
    if constexpr (std::is_same_v<T, float>) {
      simd_sum_rows_f32(p, n, stride, count, out, out_stride);
    } else if constexpr (std::is_same_v<T, double>) {
      simd_sum_rows_f64(p, n, stride, count, out, out_stride);
    } else {
      for (int64_t r = 0; r < count; ++r)
        out[r * out_stride] = finish(row(p + r * stride, n, 1, 0));
    }
  }
};

// Integer and bool sums (and bool `or` for a bool result): exact modulo 2^64, then wrapped
// into the output type.
template <typename I, typename O>
struct SumInt {
  using In = I;
  using Out = O;
  using Acc = uint64_t;
  static constexpr bool kCascade = false;
  Acc init() const { return 0; }
  void step(Acc& a, In x, int64_t) const { a += static_cast<uint64_t>(static_cast<int64_t>(x)); }
  void merge(Acc& a, const Acc& b) const { a += b; }
  Out finish(const Acc& a) const {
    if constexpr (std::is_same_v<O, bool>)
      return a != 0;
    else
      return static_cast<O>(a);
  }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    if (stride != 1) return generic_row(*this, p, n, stride, idx0);
    // Four independent sums so the loop vectorises.
    uint64_t s[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
      for (int j = 0; j < 4; ++j) s[j] += static_cast<uint64_t>(static_cast<int64_t>(p[i + j]));
    for (; i < n; ++i) s[0] += static_cast<uint64_t>(static_cast<int64_t>(p[i]));
    return s[0] + s[1] + s[2] + s[3];
  }
};

template <typename T>
struct ProdFloat {
  using In = T;
  using Out = T;
  using Acc = FloatAcc<T>;
  static constexpr bool kCascade = false;
  Acc init() const { return 1; }
  void step(Acc& a, In x, int64_t) const { a *= static_cast<Acc>(widen(x)); }
  void merge(Acc& a, const Acc& b) const { a *= b; }
  Out finish(const Acc& a) const { return narrow<Out>(a); }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    return generic_row(*this, p, n, stride, idx0);
  }
};

template <typename I, typename O>
struct ProdInt {
  using In = I;
  using Out = O;
  using Acc = uint64_t;
  static constexpr bool kCascade = false;
  Acc init() const { return 1; }
  void step(Acc& a, In x, int64_t) const { a *= static_cast<uint64_t>(static_cast<int64_t>(x)); }
  void merge(Acc& a, const Acc& b) const { a *= b; }
  Out finish(const Acc& a) const {
    if constexpr (std::is_same_v<O, bool>)
      return a != 0;
    else
      return static_cast<O>(a);
  }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    return generic_row(*this, p, n, stride, idx0);
  }
};

// ---- amax / amin ---------------------------------------------------------------------------
// The key by which elements are ordered: f32 for f16/bf16 (exact), int64 for integers/bool.
template <typename T>
using OrderKey = std::conditional_t<kIsFloating<T>, decltype(widen(T{})), int64_t>;

template <bool kMax, typename K>
K extreme_identity() {
  if constexpr (std::is_floating_point_v<K>)
    return kMax ? -std::numeric_limits<K>::infinity() : std::numeric_limits<K>::infinity();
  else
    return kMax ? std::numeric_limits<K>::min() : std::numeric_limits<K>::max();
}

template <bool kMax, typename T>
struct Extreme {
  using In = T;
  using Out = T;
  using Acc = OrderKey<T>;
  static constexpr bool kCascade = false;
  Acc init() const { return extreme_identity<kMax, Acc>(); }
  void step(Acc& a, In x, int64_t) const { merge(a, static_cast<Acc>(widen(x))); }
  void merge(Acc& a, const Acc& b) const {
    if (a != a) return;  // NaN already wins
    if (b != b || (kMax ? b > a : b < a)) a = b;
  }
  Out finish(const Acc& a) const { return narrow<Out>(a); }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    if (stride != 1 || n == 0) return generic_row(*this, p, n, stride, idx0);
    if constexpr (std::is_same_v<T, float>) {
      return kMax ? simd_max_f32(p, n) : simd_min_f32(p, n);
    } else if constexpr (std::is_same_v<T, double>) {
      return kMax ? simd_max_f64(p, n) : simd_min_f64(p, n);
    } else if constexpr (kIsHalf<T>) {
      Acc a = init();
      for_each_f32_chunk(p, n, [&](const float* f, int64_t m) {
        merge(a, kMax ? simd_max_f32(f, m) : simd_min_f32(f, m));
      });
      return a;
    } else {
      return generic_row(*this, p, n, stride, idx0);
    }
  }
};

// ---- argmax / argmin -----------------------------------------------------------------------
template <typename K>
struct KeyIndex {
  K key;
  int64_t index;  // -1: nothing seen yet
};

template <bool kMax, typename T>
struct ArgExtreme {
  using In = T;
  using Out = int64_t;
  using Acc = KeyIndex<OrderKey<T>>;
  static constexpr bool kCascade = false;
  Acc init() const { return {extreme_identity<kMax, OrderKey<T>>(), -1}; }
  void step(Acc& a, In x, int64_t idx) const {
    merge(a, Acc{static_cast<OrderKey<T>>(widen(x)), idx});
  }
  // `b` holds later indices than `a`: on a tie `a` stays (first index wins).
  void merge(Acc& a, const Acc& b) const {
    if (b.index < 0) return;
    if (a.index >= 0 && a.key != a.key) return;  // a NaN is already chosen
    if (a.index < 0 || b.key != b.key || (kMax ? b.key > a.key : b.key < a.key)) a = b;
  }
  Out finish(const Acc& a) const { return a.index; }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t idx0) const {
    return generic_row(*this, p, n, stride, idx0);
  }
};

// ---- all / any -------------------------------------------------------------------------------
template <typename T>
bool nonzero(T x) {
  if constexpr (kIsHalf<T>)
    return (x.bits & 0x7fffu) != 0;  // +-0 is false; NaN is true
  else
    return x != T(0);
}

template <bool kAll, typename I, typename O>
struct AllAny {
  using In = I;
  using Out = O;
  using Acc = bool;
  static constexpr bool kCascade = false;
  Acc init() const { return kAll; }
  void step(Acc& a, In x, int64_t) const { a = kAll ? (a && nonzero(x)) : (a || nonzero(x)); }
  void merge(Acc& a, const Acc& b) const { a = kAll ? (a && b) : (a || b); }
  Out finish(const Acc& a) const { return static_cast<Out>(a); }
  Acc row(const In* p, int64_t n, int64_t stride, int64_t) const {
    for (int64_t i = 0; i < n; ++i)  // stops at the first element that decides
      if (nonzero(p[i * stride]) != kAll) return !kAll;
    return kAll;
  }
};

// ---- dispatch ----------------------------------------------------------------------------
[[noreturn]] void unsupported(const char* op, const StridedView& in, const StridedView& out) {
  throw Error(BP_ERR_UNSUPPORTED, std::string(op) + ": no kernel from " + dtype_name(in.dtype) +
                                      " to " + dtype_name(out.dtype));
}

// Runs reducer `R` over the dims `dim` names, after the SDK's checks; `needs_elements`
// rejects an empty reduction.
template <typename R>
void run_reducer(const char* op, const StridedView& in, const bp_value& dim, const StridedView& out,
                 bool needs_elements) {
  const ReducePlan plan(in, out, sdk::reduced_dims(op, dim, in, out));
  if (needs_elements && plan.nred == 0 && plan.nout > 0) throw sdk::empty_reduction(op, in);
  reduce(R{}, plan, in.data<typename R::In>(), out.data<typename R::Out>());
}

// Each reduction by its SDK tag; run() takes the op's arguments (op_families.hpp).
template <typename Op>
struct Reduction;

template <bool kProd>
struct Reduction<op::SumProd<kProd>> {
  static void run(StridedView in, const bp_value* dim, bool, std::optional<bp_dtype>,
                  StridedView out) {
    const char* op = kProd ? "prod.dim_int" : "sum.dim_IntList";
    bool handled = false;
    visit_dtype(in.dtype, [&](auto itag) {
      using I = typename decltype(itag)::type;
      if constexpr (kIsFloating<I>) {
        if (out.dtype != in.dtype) return;
        handled = true;
        kProd ? run_reducer<ProdFloat<I>>(op, in, *dim, out, false)
              : run_reducer<SumFloat<I>>(op, in, *dim, out, false);
      } else {
        // Without `dtype=` integers and bool give int64; with it the input already has the
        // output dtype.
        auto with_out = [&](auto otag) {
          using O = typename decltype(otag)::type;
          handled = true;
          kProd ? run_reducer<ProdInt<I, O>>(op, in, *dim, out, false)
                : run_reducer<SumInt<I, O>>(op, in, *dim, out, false);
        };
        if (out.dtype == BP_DTYPE_I64)
          with_out(TypeTag<int64_t>{});
        else if (out.dtype == in.dtype)
          with_out(TypeTag<I>{});
      }
    });
    if (!handled) unsupported(op, in, out);
  }
};

template <bool kMax>
struct Reduction<op::Extreme<kMax>> {
  static void run(StridedView in, const bp_value* dim, bool, StridedView out) {
    const char* op = kMax ? "amax" : "amin";
    if (in.dtype != out.dtype) unsupported(op, in, out);
    visit_dtype(in.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      run_reducer<Extreme<kMax, T>>(op, in, *dim, out, true);
    });
  }
};

template <bool kMax>
struct Reduction<op::ArgExtreme<kMax>> {
  static void run(StridedView in, const bp_value* dim, bool, StridedView out) {
    const char* op = kMax ? "argmax" : "argmin";
    if (out.dtype != BP_DTYPE_I64)
      throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": output dtype is " +
                                               dtype_name(out.dtype) + ", expected i64");
    if (in.dtype == BP_DTYPE_BOOL) unsupported(op, in, out);
    visit_dtype(in.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>)
        run_reducer<ArgExtreme<kMax, T>>(op, in, *dim, out, true);
    });
  }
};

template <bool kAll>
struct Reduction<op::AllAny<kAll>> {
  static void run(StridedView in, const bp_value* dim, bool, StridedView out) {
    const char* op = kAll ? "all.dim" : "any.dim";
    if (out.dtype != BP_DTYPE_BOOL && out.dtype != BP_DTYPE_U8) unsupported(op, in, out);
    visit_dtype(in.dtype, [&](auto tag) {
      using I = typename decltype(tag)::type;
      if (out.dtype == BP_DTYPE_BOOL)
        run_reducer<AllAny<kAll, I, bool>>(op, in, *dim, out, false);
      else
        run_reducer<AllAny<kAll, I, uint8_t>>(op, in, *dim, out, false);
    });
  }
};

}  // namespace

void register_reduction_kernels(sdk::Registrar& r) {
  sdk::register_reduction_ops<Reduction>(r);
}

}  // namespace bp::cpu
