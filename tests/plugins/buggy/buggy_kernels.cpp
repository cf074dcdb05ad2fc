// The correct kernels of the buggy fixture plugins and the deliberately wrong ones. Each
// wrong kernel is a bug a real backend could ship, done the way it would be done by
// mistake; the comments say which case of the suite must catch it and how.
#include "buggy_kernels.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>
#include <type_traits>

namespace bp_buggy {
namespace {

namespace sdk = bp::sdk;
constexpr bp_dtype_mask kF32 = BP_DTYPE_BIT(BP_DTYPE_F32);
constexpr bp_dtype_mask kF16 = BP_DTYPE_BIT(BP_DTYPE_F16);

// ---- correct kernels ----------------------------------------------------------------

// One element converted through double (exact for every value the suite copies between
// dtypes of these plugins; bool is `!= 0`).
template <typename O, typename I>
O convert(I v) {
  double d = 0.0;
  if constexpr (std::is_same_v<I, bool>)
    d = v ? 1.0 : 0.0;
  else
    d = static_cast<double>(v);
  if constexpr (std::is_same_v<O, bool>)
    return d != 0.0;
  else if constexpr (std::is_same_v<O, sdk::Half> || std::is_same_v<O, sdk::BFloat16>)
    return O(static_cast<float>(d));
  else if constexpr (std::is_integral_v<O>)
    return static_cast<O>(static_cast<int64_t>(d));
  else
    return static_cast<O>(d);
}

// copy_(Tensor(a!) self, Tensor src, bool non_blocking=False): the suite lays out every
// input and output on the device with it. `src` has self's shape (expanded) and its own
// dtype; both may be strided.
void copy_any(sdk::TensorArg self, sdk::TensorArg src, bool /*non_blocking*/) {
  if (self.dtype() == src.dtype()) {
    const size_t esize = sdk::dtype_size(self.dtype());
    auto* dst = static_cast<char*>(self.data());
    const auto* from = static_cast<const char*>(src.data());
    sdk::for_each_index(self.sizes(), [&](const int64_t* idx) {
      std::memcpy(dst + self.offset_of(idx) * static_cast<int64_t>(esize),
                  from + src.offset_of(idx) * static_cast<int64_t>(esize), esize);
    });
    return;
  }
  sdk::visit_dtype(self.dtype(), [&](auto out_tag) {
    using O = typename decltype(out_tag)::type;
    sdk::visit_dtype(src.dtype(), [&](auto in_tag) {
      using I = typename decltype(in_tag)::type;
      O* o = self.data_as<O>();
      const I* in = src.data_as<I>();
      sdk::for_each_index(self.sizes(), [&](const int64_t* idx) {
        o[self.offset_of(idx)] = convert<O>(in[src.offset_of(idx)]);
      });
    });
  });
}

void add_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha, sdk::TensorArg out) {
  const float a = alpha.to<float>();
  sdk::map<float>(
      out, [a](float x, float y) { return x + a * y; }, self, other);
}

void mul_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::TensorArg out) {
  sdk::map<float>(
      out, [](float x, float y) { return x * y; }, self, other);
}

void neg_f32(sdk::TensorArg self, sdk::TensorArg out) {
  sdk::map<float>(
      out, [](float x) { return -x; }, self);
}

float relu(float x) {
  return x < 0.0f ? 0.0f : x;  // NaN stays NaN
}

void relu_f32(sdk::TensorArg self, sdk::TensorArg out) {
  sdk::map<float>(out, relu, self);
}

// NaN propagates from either side; of -0 and +0 the result is +0 (as the reference).
float max_propagating(float x, float y) {
  if (std::isnan(x)) return x;
  if (std::isnan(y)) return y;
  if (x == y) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}

void maximum_f32(sdk::TensorArg self, sdk::TensorArg other, sdk::TensorArg out) {
  sdk::map<float>(out, max_propagating, self, other);
}

void exp_f32(sdk::TensorArg self, sdk::TensorArg out) {
  sdk::map<float>(
      out, [](float x) { return std::exp(x); }, self);
}

// The element offset one past the last element of `t` in memory (its largest offset + 1).
int64_t one_past_end(const sdk::TensorArg& t) {
  int64_t last = 0;
  for (int32_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  return last + 1;
}

// ---- the bugs -----------------------------------------------------------------------

// Oob: a loop bound of `<= n` in spirit: after the correct result, one more float is
// stored right after the output's last element. The suite's guard bytes must see it.
void add_f32_oob(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha, sdk::TensorArg out) {
  add_f32(self, other, alpha, out);
  if (out.numel() > 0) out.data_as<float>()[one_past_end(out)] = 42.0f;
}

// DenseTail: the dense entry of add.Tensor (plugin.h's bp_dense_call) adds in blocks of 8,
// as an unrolled loop would, and its tail loop for the last numel % 8 elements copies self,
// having lost `+ alpha * other`. The kernel is correct, so the strided and broadcast cases
// pass and the contiguous ones of a size not a multiple of 8 (contiguous_7x13) fail.
bp_status add_f32_dense_tail(const bp_dense_call* call) {
  const bp_value& alpha = call->scalars[0];
  if (alpha.tag != BP_VALUE_INT && alpha.tag != BP_VALUE_FLOAT) return BP_ERR_UNSUPPORTED;
  const float a =
      alpha.tag == BP_VALUE_INT ? static_cast<float>(alpha.u.i) : static_cast<float>(alpha.u.f);
  const auto* x = static_cast<const float*>(call->inputs[0]);
  const auto* y = static_cast<const float*>(call->inputs[1]);
  auto* out = static_cast<float*>(call->out);
  const int64_t body = call->numel / 8 * 8;
  for (int64_t i = 0; i < body; ++i) out[i] = x[i] + a * y[i];
  for (int64_t i = body; i < call->numel; ++i) out[i] = x[i];
  return BP_OK;
}

// F16Rounding: float -> f16 by dropping the low mantissa bits (round toward zero). A
// correct converter rounds to nearest even. Toward zero is an IEEE rounding mode, so
// overflow gives the largest finite value (65504) rather than infinity: the special-value
// case 65504 + 65504 (inf in PyTorch) shows it; ordinary values are off by < 1 ULP.
uint16_t float_to_half_toward_zero(float f) {
  uint32_t x = 0;
  std::memcpy(&x, &f, sizeof x);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t abs = x & 0x7fffffffu;
  uint32_t bits = 0;
  if (abs > 0x7f800000u) {
    bits = 0x7e00u;  // NaN stays a (quiet) NaN
  } else if (abs == 0x7f800000u) {
    bits = 0x7c00u;  // infinity
  } else if (abs >= 0x47800000u) {
    bits = 0x7bffu;                // >= 65536: the largest finite value
  } else if (abs < 0x38800000u) {  // below 2^-14: an f16 subnormal, in units of 2^-24
    float v = 0.0f;
    std::memcpy(&v, &abs, sizeof v);
    bits = static_cast<uint32_t>(v * 16777216.0f);  // exact product, truncated
  } else {
    bits = (abs - 0x38000000u) >> 13;  // rebias the exponent, drop 13 mantissa bits
  }
  return static_cast<uint16_t>(sign | bits);
}

void add_f16_truncating(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha,
                        sdk::TensorArg out) {
  const float a = static_cast<float>(alpha.to_double());
  sdk::map<sdk::Half>(
      out,
      [a](sdk::Half x, sdk::Half y) {
        const float r = static_cast<float>(x) + a * static_cast<float>(y);
        return sdk::Half::from_bits(float_to_half_toward_zero(r));
      },
      self, other);
}

// The runtime keeps one kernel per (op, backend), so f16 and f32 share one entry point.
void add_f32_or_f16_truncating(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha,
                               sdk::TensorArg out) {
  if (out.dtype() == BP_DTYPE_F16) return add_f16_truncating(self, other, alpha, out);
  add_f32(self, other, alpha, out);
}

// NanMax: the textbook max. When `self` is NaN the comparison is false and `other` wins.
void maximum_f32_nan_dropping(sdk::TensorArg self, sdk::TensorArg other, sdk::TensorArg out) {
  sdk::map<float>(
      out, [](float x, float y) { return x > y ? x : y; }, self, other);
}

// Strides: the input is walked as a dense array while the output honours its strides, so
// a transposed or sliced input gives permuted values and reads the gaps of a strided one.
template <float (*F)(float)>
void unary_f32_ignoring_input_strides(sdk::TensorArg self, sdk::TensorArg out) {
  const float* in = self.data_as<float>();
  float* o = out.data_as<float>();
  int64_t flat = 0;
  sdk::for_each_index(out.sizes(),
                      [&](const int64_t* idx) { o[out.offset_of(idx)] = F(in[flat++]); });
}

float negate(float x) {
  return -x;
}

// Broadcast: an input with a 0-stride dimension is read as its un-expanded dense self at
// flat index % (its number of distinct elements). Right when only leading dimensions were
// broadcast ([7,13] + [13]), wrong for [3,1] + [1,4].
float read_input(const sdk::TensorArg& t, const float* data, const int64_t* idx, int64_t flat) {
  int64_t distinct = 1;
  bool broadcast = false;
  for (int32_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0 && t.size(d) > 1)
      broadcast = true;
    else
      distinct *= t.size(d);
  }
  return broadcast ? data[flat % distinct] : data[t.offset_of(idx)];
}

void add_f32_broadcast_modulo(sdk::TensorArg self, sdk::TensorArg other, sdk::Scalar alpha,
                              sdk::TensorArg out) {
  const float a = alpha.to<float>();
  const float* x = self.data_as<float>();
  const float* y = other.data_as<float>();
  float* o = out.data_as<float>();
  int64_t flat = 0;
  sdk::for_each_index(out.sizes(), [&](const int64_t* idx) {
    o[out.offset_of(idx)] = read_input(self, x, idx, flat) + a * read_input(other, y, idx, flat);
    ++flat;
  });
}

// LeakyRelu: the kernel of leaky_relu (default slope 0.01) registered under relu, a
// copy-paste slip. Plausible-looking output, wrong by 1% of every negative input:
// `backplane run`'s MLP (tests/tools/test_run_command.cpp) must come out of tolerance.
float leaky_relu(float x) {
  return x < 0.0f ? 0.01f * x : x;
}

void leaky_relu_f32(sdk::TensorArg self, sdk::TensorArg out) {
  sdk::map<float>(out, leaky_relu, self);
}

// Segfault: a store through a pointer that is NULL. Both are volatile: the compiler cannot
// know the pointer is NULL (so emits no trap instruction instead, which would be SIGILL)
// nor drop the store.
void neg_f32_segfault(sdk::TensorArg self, sdk::TensorArg out) {
  volatile float* volatile nowhere = nullptr;
  *nowhere = 1.0f;
  neg_f32(self, out);
}

// NondeterministicExp: every other call rounds its results one ulp up, as a kernel whose
// floating-point order depends on scheduling (atomics, a split chosen at run time) gives other
// last bits from run to run. Each result is within exp's tolerance: only repeating the case
// shows it (conformance --determinism).
void exp_f32_nondeterministic(sdk::TensorArg self, sdk::TensorArg out) {
  static std::atomic<unsigned> calls{0};
  const bool bump = calls.fetch_add(1) % 2 == 1;
  sdk::map<float>(
      out,
      [bump](float x) {
        const float y = std::exp(x);
        return bump && std::isfinite(y) && y > 0 ? std::nextafter(y, INFINITY) : y;
      },
      self);
}

// Hang: waits for a completion that never comes.
void exp_f32_hang(sdk::TensorArg self, sdk::TensorArg out) {
  volatile bool done = false;
  while (!done) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  exp_f32(self, out);
}

}  // namespace

void register_kernels(sdk::Host& host, uint32_t backend, Bug bug) {
  sdk::Registrar r = host.kernels(backend);
  r.kernel<copy_any>("copy_", BP_DTYPES_ALL);
  switch (bug) {
    case Bug::Oob:
      r.kernel<add_f32_oob>("add.Tensor", kF32);
      break;
    case Bug::F16Rounding:
      r.kernel<add_f32_or_f16_truncating>("add.Tensor", kF32 | kF16);
      break;
    case Bug::Broadcast:
      r.kernel<add_f32_broadcast_modulo>("add.Tensor", kF32);
      break;
    default:
      r.kernel<add_f32>("add.Tensor", kF32);
      break;
  }
  if (bug == Bug::DenseTail) r.dense("add.Tensor", kF32, add_f32_dense_tail, nullptr);
  r.kernel<mul_f32>("mul.Tensor", kF32);
  switch (bug) {
    case Bug::Strides:
      r.kernel<unary_f32_ignoring_input_strides<negate>>("neg", kF32)
          .kernel<unary_f32_ignoring_input_strides<relu>>("relu", kF32);
      break;
    case Bug::Segfault:
      r.kernel<neg_f32_segfault>("neg", kF32).kernel<relu_f32>("relu", kF32);
      break;
    case Bug::LeakyRelu:
      r.kernel<neg_f32>("neg", kF32).kernel<leaky_relu_f32>("relu", kF32);
      break;
    default:
      r.kernel<neg_f32>("neg", kF32).kernel<relu_f32>("relu", kF32);
      break;
  }
  if (bug == Bug::NanMax)
    r.kernel<maximum_f32_nan_dropping>("maximum", kF32);
  else
    r.kernel<maximum_f32>("maximum", kF32);
  if (bug == Bug::Hang)
    r.kernel<exp_f32_hang>("exp", kF32);
  else if (bug == Bug::NondeterministicExp)
    r.kernel<exp_f32_nondeterministic>("exp", kF32);
  else
    r.kernel<exp_f32>("exp", kF32);
  register_gradient_kernels(r, bug);
}

}  // namespace bp_buggy
