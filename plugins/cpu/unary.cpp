// CPU kernels for the elementwise unary ops: neg abs sign relu floor ceil logical_not
// (integral and floating) and exp log sqrt rsqrt reciprocal sin cos tanh sigmoid erf gelu
// (floating only: the host promotes integral inputs first). Registered dtypes are the
// reference backend's. f32/f64 rows run the Highway loops of simd_unary.cpp; f16/bf16 are
// computed in f32 blocks and rounded once; integers wrap like PyTorch (abs(INT8_MIN) ==
// INT8_MIN). erf and gelu(approximate='none') use the C library's erf/erfc per element.
#include "elementwise.hpp"
#include "loops.hpp"
#include "simd.hpp"

#include <cmath>
#include <cstring>
#include <string>

namespace bp::cpu {
namespace {

// Runs the row out[i] = Op(x[i]) on contiguous compute values: the SIMD loop for f32/f64
// when the op has one, else Op::scalar per element.
template <typename Op, typename C, typename R>
void compute_row(const C* x, R* out, int64_t n) {
  if constexpr (std::is_floating_point_v<C> && std::is_same_v<C, R> && Op::kSimd) {
    simd::unary(Op::kSimdOp, x, out, n);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = Op::scalar(x[i]);
  }
}

// One row of the iteration: p[0]/s[0] the output, p[1]/s[1] the input of storage type T.
template <typename Op, typename T>
void unary_row(char* const* p, const int64_t* s, int64_t n, bp_dtype out_dtype) {
  using C = Compute<T>;
  using RT = typename Op::template Out<T>;  // the result's dtype (T, or bool)
  using RC = Compute<RT>;
  if constexpr (std::is_same_v<T, C> && std::is_same_v<RT, RC>) {
    if (out_dtype == dtype_of<RT>() && s[0] == static_cast<int64_t>(sizeof(RT)) &&
        s[1] == static_cast<int64_t>(sizeof(T))) {
      compute_row<Op>(reinterpret_cast<const C*>(p[1]), reinterpret_cast<RC*>(p[0]), n);
      return;
    }
  }
  C in_buf[kBlock];
  RC out_buf[kBlock];
  for (int64_t i = 0; i < n; i += kBlock) {
    const int64_t m = std::min(kBlock, n - i);
    const C* x = load_row<T>(p[1] + i * s[1], s[1], m, in_buf);
    compute_row<Op>(x, out_buf, m);
    store_row<RT>(out_buf, p[0] + i * s[0], s[0], m, out_dtype);
  }
}

template <typename Op>
bp_status unary_kernel(const bp_call* c) {
  const bp_tensor* self = arg_tensor(c, 0);
  const bp_tensor* out = out_tensor(c);
  return visit_dtype(self->dtype, [&](auto tag) -> bp_status {
    using T = typename decltype(tag)::type;
    if constexpr (!Op::template kSupports<T>) {
      return fail_dtype(c, "self", self->dtype);
    } else {
      const bp_dtype out_dtype = out->dtype;
      auto row = [out_dtype](char* const* p, const int64_t* s, int64_t n) {
        unary_row<Op, T>(p, s, n, out_dtype);
      };
      if (!for_each_row_of({out, self}, {dtype_size(out->dtype), int64_t{sizeof(T)}}, row))
        return fail(BP_ERR_INVALID_ARGUMENT,
                    std::string(c->op_name) + ": 'self' and the output differ in shape");
      return BP_OK;
    }
  });
}

// ---- ops -------------------------------------------------------------------------------
// Each op: kSupports<T> (storage types it is registered for), Out<T> (result type),
// scalar(C) on a compute value, and kSimd/kSimdOp when simd::unary has it for f32/f64.
struct IntegralAndFloating {
  template <typename T>
  static constexpr bool kSupports = kNotBool<T>;
  template <typename T>
  using Out = T;
};

struct Neg : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kNeg;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return -v;
    else
      return wrap_sub(C{0}, v);
  }
};

struct Abs : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kAbs;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return std::fabs(v);
    else if constexpr (std::is_signed_v<C>)
      return v < 0 ? wrap_sub(C{0}, v) : v;
    else
      return v;
  }
};

// sign(NaN) == 0 and sign(-0.0) == +0.0, as PyTorch's (0 < x) - (x < 0).
struct Sign {
  template <typename T>
  static constexpr bool kSupports = true;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kSign;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_same_v<C, bool> || std::is_unsigned_v<C>)
      return static_cast<C>(v != C{0});
    else
      return static_cast<C>((C{0} < v) - (v < C{0}));
  }
};

// relu keeps NaN and -0.0 (x < 0 ? 0 : x).
struct Relu : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kRelu;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_unsigned_v<C>)
      return v;
    else
      return v < C{0} ? C{0} : v;
  }
};

// floor and ceil are the identity on integers, as in PyTorch.
struct Floor : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kFloor;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return std::floor(v);
    else
      return v;
  }
};

struct Ceil : IntegralAndFloating {
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = simd::Unary::kCeil;
  template <typename C>
  static C scalar(C v) {
    if constexpr (std::is_floating_point_v<C>)
      return std::ceil(v);
    else
      return v;
  }
};

// NaN is nonzero, so logical_not(NaN) is false.
struct LogicalNot {
  template <typename T>
  static constexpr bool kSupports = true;
  template <typename T>
  using Out = bool;
  static constexpr bool kSimd = false;
  template <typename C>
  static bool scalar(C v) {
    return !(v != C{0});
  }
};

// A floating op with a SIMD loop for f32/f64; F is its value on one compute element.
template <simd::Unary kOp, typename F>
struct FloatOp {
  template <typename T>
  static constexpr bool kSupports = kIsFloating<T>;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = true;
  static constexpr simd::Unary kSimdOp = kOp;
  template <typename C>
  static C scalar(C v) {
    return F{}(v);
  }
};

// The per-element forms, used by the non-SIMD paths (none for f32/f64 at present) and as
// the definition of each op.
struct ExpF {
  template <typename C>
  C operator()(C v) const {
    return std::exp(v);
  }
};
struct LogF {
  template <typename C>
  C operator()(C v) const {
    return std::log(v);
  }
};
struct SqrtF {
  template <typename C>
  C operator()(C v) const {
    return std::sqrt(v);
  }
};
struct RsqrtF {  // rsqrt(-0.0) == -inf
  template <typename C>
  C operator()(C v) const {
    return C{1} / std::sqrt(v);
  }
};
struct ReciprocalF {
  template <typename C>
  C operator()(C v) const {
    return C{1} / v;
  }
};
struct SinF {
  template <typename C>
  C operator()(C v) const {
    return std::sin(v);
  }
};
struct CosF {
  template <typename C>
  C operator()(C v) const {
    return std::cos(v);
  }
};
struct TanhF {
  template <typename C>
  C operator()(C v) const {
    return std::tanh(v);
  }
};
struct SigmoidF {
  template <typename C>
  C operator()(C v) const {
    return C{1} / (C{1} + std::exp(-v));
  }
};
struct GeluTanhF {
  template <typename C>
  C operator()(C x) const {
    const C u = C(0.79788456080286535588) * (x + C(0.044715) * x * x * x);
    return x / (C{1} + std::exp(C{-2} * u));
  }
};

// erf and gelu('none') have no Highway routine: the C library's, one element at a time.
template <typename F>
struct ScalarFloatOp {
  template <typename T>
  static constexpr bool kSupports = kIsFloating<T>;
  template <typename T>
  using Out = T;
  static constexpr bool kSimd = false;
  template <typename C>
  static C scalar(C v) {
    return F{}(v);
  }
};
struct ErfF {
  template <typename C>
  C operator()(C v) const {
    return std::erf(v);
  }
};
// x * Phi(x) = 0.5 x erfc(-x / sqrt 2): the same function as 0.5 x (1 + erf(x / sqrt 2))
// without its cancellation for negative x (the reference's form).
struct GeluErfF {
  template <typename C>
  C operator()(C x) const {
    return C(0.5) * x * std::erfc(-x * C(0.70710678118654752440));
  }
};

// gelu(Tensor self, *, str approximate='none') -> out.
bp_status gelu_kernel(const bp_call* c) {
  const bp_value& mode = c->args[1];
  const char* name = mode.tag == BP_VALUE_STRING ? mode.u.s : "none";
  if (mode.tag == BP_VALUE_NONE || std::strcmp(name, "none") == 0)
    return unary_kernel<ScalarFloatOp<GeluErfF>>(c);
  if (std::strcmp(name, "tanh") == 0)
    return unary_kernel<FloatOp<simd::Unary::kGeluTanh, GeluTanhF>>(c);
  return fail(BP_ERR_INVALID_ARGUMENT,
              std::string(c->op_name) +
                  ": argument 'approximate' must be either 'none' or 'tanh', but got '" +
                  (mode.tag == BP_VALUE_STRING ? name : "<not a string>") + "'");
}

}  // namespace

bp_status register_unary_kernels(uint32_t backend_id) {
  using U = simd::Unary;
  static const KernelEntry entries[] = {
      {"neg", kAllButBool, unary_kernel<Neg>},
      {"abs", kAllButBool, unary_kernel<Abs>},
      {"sign", BP_DTYPES_ALL, unary_kernel<Sign>},
      {"relu", kAllButBool, unary_kernel<Relu>},
      {"floor", kAllButBool, unary_kernel<Floor>},
      {"ceil", kAllButBool, unary_kernel<Ceil>},
      {"logical_not", BP_DTYPES_ALL, unary_kernel<LogicalNot>},
      {"exp", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kExp, ExpF>>},
      {"log", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kLog, LogF>>},
      {"sqrt", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kSqrt, SqrtF>>},
      {"rsqrt", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kRsqrt, RsqrtF>>},
      {"reciprocal", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kReciprocal, ReciprocalF>>},
      {"sin", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kSin, SinF>>},
      {"cos", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kCos, CosF>>},
      {"tanh", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kTanh, TanhF>>},
      {"sigmoid", BP_DTYPES_FLOATING, unary_kernel<FloatOp<U::kSigmoid, SigmoidF>>},
      {"erf", BP_DTYPES_FLOATING, unary_kernel<ScalarFloatOp<ErfF>>},
      {"gelu", BP_DTYPES_FLOATING, gelu_kernel},
  };
  return register_entries(backend_id, entries);
}

}  // namespace bp::cpu
