// The comparator: reads both results to host memory (f64 holds every f16/bf16/f32/f64 and
// every integer up to 2^53 exactly; integers are read as int64 so the whole int64 range is
// exact), checks NaN positions and infinities exactly, then each finite pair under the
// tolerance, keeping the worst errors and the first bad element for the message.
#include "backplane/conformance/compare.hpp"

#include <backplane/tensor_api.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace bp::conformance {
namespace {

// Sign and magnitude bits of a value of `dtype`; consecutive representable values of one
// sign have consecutive magnitudes, which is what makes the ULP distance a subtraction.
struct SignMagnitude {
  bool negative;
  uint64_t magnitude;
};

SignMagnitude sign_magnitude(double v, ScalarType dtype) {
  uint64_t bits = 0;
  int sign_bit = 63;
  switch (dtype) {
    case ScalarType::Float16:
      bits = sdk::Half(v).bits;
      sign_bit = 15;
      break;
    case ScalarType::BFloat16:
      bits = sdk::BFloat16(v).bits;
      sign_bit = 15;
      break;
    case ScalarType::Float32: {
      const auto f = static_cast<float>(v);
      uint32_t u;
      std::memcpy(&u, &f, sizeof u);
      bits = u;
      sign_bit = 31;
      break;
    }
    default:
      std::memcpy(&bits, &v, sizeof bits);
      break;
  }
  const uint64_t sign_mask = uint64_t{1} << sign_bit;
  return {(bits & sign_mask) != 0, bits & (sign_mask - 1)};
}

std::string value_str(double v) {
  return std::isnan(v) ? "nan" : fmt::format("{}", v);
}

// Per element, whether `t` holds kGuardByte in every byte (read through the tensor's own
// device, which for the conformance suite is the reference's host memory).
std::vector<bool> holds_guard_pattern(const Tensor& t) {
  const size_t esize = element_size(t.dtype());
  std::vector<uint8_t> bytes(static_cast<size_t>(t.numel()) * esize);
  copy_to_host(t, bytes.data(), t.dtype());
  std::vector<bool> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = std::all_of(bytes.begin() + static_cast<std::ptrdiff_t>(i * esize),
                         bytes.begin() + static_cast<std::ptrdiff_t>((i + 1) * esize),
                         [](uint8_t b) { return b == kGuardByte; });
  return out;
}

// The kinds of mismatch, counted apart so that one NaN in the wrong place does not read as
// "max |diff| 0".
struct Mismatches {
  int64_t not_written = 0, nan = 0, inf = 0, sign = 0, value = 0;
  int64_t total() const { return not_written + nan + inf + sign + value; }
  std::string describe(bool floating, double max_abs, int64_t max_ulp) const {
    std::vector<std::string> parts;
    if (not_written)
      parts.push_back(
          fmt::format("{} not written (or read out of bounds): still the guard "
                      "pattern",
                      not_written));
    if (nan) parts.push_back(fmt::format("{} NaN where the other is not", nan));
    if (inf) parts.push_back(fmt::format("{} infinity mismatched", inf));
    if (sign) parts.push_back(fmt::format("{} zero of the wrong sign", sign));
    if (value)
      parts.push_back(floating
                          ? fmt::format("{} finite out of tolerance (max |diff| {}, max ulp "
                                        "{})",
                                        value, value_str(max_abs), max_ulp)
                          : fmt::format("{} wrong (max |diff| {})", value, value_str(max_abs)));
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
    return out;
  }
};

}  // namespace

std::string multi_index(int64_t flat, IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = flat % sizes[d];
    flat /= sizes[d];
  }
  return shape_str(IntArrayRef(index));
}

int64_t ulp_distance(double a, double b, ScalarType dtype) {
  const SignMagnitude x = sign_magnitude(a, dtype);
  const SignMagnitude y = sign_magnitude(b, dtype);
  // Same sign: the magnitudes' difference. Opposite signs: both distances to zero.
  const uint64_t d =
      x.negative == y.negative
          ? (x.magnitude > y.magnitude ? x.magnitude - y.magnitude : y.magnitude - x.magnitude)
          : x.magnitude + y.magnitude;  // < 2^64: magnitudes are < 2^63
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return static_cast<int64_t>(d > kMax ? kMax : d);
}

namespace {

constexpr const char* kNotWritten =
    "not written (or read out of bounds): the element still holds the guard pattern";

// One comparison of two tensors of one dtype and shape, element by element: the worst
// errors go into the result, each mismatch is counted by kind, and the first is described.
class ElementComparison {
 public:
  ElementComparison(const Tensor& got, const Tensor& want, CompareResult& r)
      : got_(got), want_(want), r_(r) {}

  // Integers and bools are exact whatever the tolerance says: there is no rounding.
  void integers() {
    const std::vector<int64_t> g = to_vector<int64_t>(got_);
    const std::vector<int64_t> w = to_vector<int64_t>(want_);
    for (int64_t i = 0; i < want_.numel(); ++i) {
      const auto gi = g[static_cast<size_t>(i)], wi = w[static_cast<size_t>(i)];
      if (gi == wi) continue;
      // |gi - wi| in uint64 (no overflow across the int64 range).
      const uint64_t diff = gi > wi ? static_cast<uint64_t>(gi) - static_cast<uint64_t>(wi)
                                    : static_cast<uint64_t>(wi) - static_cast<uint64_t>(gi);
      r_.max_abs_err = std::max(r_.max_abs_err, static_cast<double>(diff));
      constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
      r_.max_ulp = std::max(r_.max_ulp, static_cast<int64_t>(std::min(diff, kMax)));
      if (not_written(i)) {
        ++bad_.not_written;
        note_first(i, fmt::format("{}", gi), fmt::format("{}", wi), kNotWritten);
        continue;
      }
      ++bad_.value;
      value_max_abs_ = std::max(value_max_abs_, static_cast<double>(diff));
      note_first(i, fmt::format("{}", gi), fmt::format("{}", wi), "exact");
    }
  }

  // NaN positions and infinities exactly, each finite pair under the tolerance.
  void floats(const Tolerance& tol) {
    const std::vector<double> g = to_vector<double>(got_);
    const std::vector<double> w = to_vector<double>(want_);
    for (int64_t i = 0; i < want_.numel(); ++i) {
      const double gi = g[static_cast<size_t>(i)], wi = w[static_cast<size_t>(i)];
      std::string why;
      int64_t* kind = float_mismatch(gi, wi, tol, why);
      if (kind == nullptr) continue;
      if (not_written(i)) {
        kind = &bad_.not_written;
        why = kNotWritten;
      }
      ++*kind;
      note_first(i, value_str(gi), value_str(wi), why);
    }
  }

  // "" when every element matched, else the message.
  std::string verdict() const {
    if (bad_.total() == 0) return {};
    const bool floating = is_floating(want_.dtype());
    return fmt::format("{} of {} elements differ: {}; first {}", bad_.total(), want_.numel(),
                       bad_.describe(floating, value_max_abs_, value_max_ulp_), first_);
  }

 private:
  // The counter of the kind of mismatch between two floating values (and why, for the
  // message), or nullptr when they match. Finite pairs update the worst errors.
  int64_t* float_mismatch(double gi, double wi, const Tolerance& tol, std::string& why) {
    if (std::isnan(gi) || std::isnan(wi)) {
      if (std::isnan(gi) && std::isnan(wi)) return nullptr;
      why = "NaN positions must match";
      return &bad_.nan;
    }
    if (std::isinf(gi) || std::isinf(wi)) {
      if (gi == wi) return nullptr;
      why = "infinities must match with their sign";
      return &bad_.inf;
    }
    const double diff = std::fabs(gi - wi);
    const int64_t ulp = ulp_distance(gi, wi, want_.dtype());
    r_.max_abs_err = std::max(r_.max_abs_err, diff);
    r_.max_ulp = std::max(r_.max_ulp, ulp);
    if (tol.exact && tol.signed_zeros && gi == 0.0 && wi == 0.0) {
      if (std::signbit(gi) == std::signbit(wi)) return nullptr;
      why = "a zero of the wrong sign; this op's zeros are compared by sign";
      return &bad_.sign;
    }
    const bool pass = tol.exact ? gi == wi
                                : diff <= tol.atol + tol.rtol * std::fabs(wi) ||
                                      (tol.max_ulp > 0 && ulp <= tol.max_ulp);
    if (pass) return nullptr;
    value_max_abs_ = std::max(value_max_abs_, diff);
    value_max_ulp_ = std::max(value_max_ulp_, ulp);
    why = fmt::format("|diff| {}, {} ulp; allowed {}", value_str(diff), ulp, to_string(tol));
    return &bad_.value;
  }

  // Whether element i was never written: the guard pattern where the reference has a value.
  // The guards are read on the first mismatch only: a passing comparison reads no bytes twice.
  bool not_written(int64_t i) {
    if (got_guard_.empty()) {
      got_guard_ = holds_guard_pattern(got_);
      want_guard_ = holds_guard_pattern(want_);
    }
    return got_guard_[static_cast<size_t>(i)] && !want_guard_[static_cast<size_t>(i)];
  }

  void note_first(int64_t i, const std::string& got_text, const std::string& want_text,
                  const std::string& why) {
    if (!first_.empty()) return;
    r_.first_bad_index = i;
    first_ = fmt::format("at {}: got {}, want {} ({})", multi_index(i, want_.sizes()), got_text,
                         want_text, why);
  }

  const Tensor& got_;
  const Tensor& want_;
  CompareResult& r_;
  Mismatches bad_;
  double value_max_abs_ = 0.0;  // over the finite pairs out of tolerance (the message's)
  int64_t value_max_ulp_ = 0;
  std::string first_;  // the first mismatch, described
  std::vector<bool> got_guard_, want_guard_;
};

}  // namespace

CompareResult compare(const Tensor& got, const Tensor& want, const Tolerance& tol) {
  CompareResult r;
  auto fail = [&r](std::string message) {
    r.ok = false;
    r.message = std::move(message);
    return r;
  };
  if (got.dtype() != want.dtype())
    return fail(fmt::format("dtype mismatch: got {}, want {}", dtype_name(got.dtype()),
                            dtype_name(want.dtype())));
  if (got.sizes() != want.sizes())
    return fail(fmt::format("shape mismatch: got {}, want {}", shape_str(got.sizes()),
                            shape_str(want.sizes())));
  ElementComparison elements(got, want, r);
  if (is_floating(want.dtype()))
    elements.floats(tol);
  else
    elements.integers();
  if (std::string message = elements.verdict(); !message.empty()) return fail(std::move(message));
  return r;
}

std::string check_out_layout(const Tensor& out, IntArrayRef sizes, IntArrayRef strides) {
  bool same = static_cast<size_t>(out.dim()) == sizes.size() && strides.size() == sizes.size();
  bool empty = false;
  for (size_t d = 0; same && d < sizes.size(); ++d) {
    same = out.sizes()[d] == sizes[d];
    empty = empty || sizes[d] == 0;
  }
  // A stride of a dim of size 1 never addresses memory, nor does any stride of an empty
  // tensor; PyTorch leaves them unspecified, so they are not compared.
  for (size_t d = 0; same && !empty && d < sizes.size(); ++d)
    same = sizes[d] <= 1 || out.strides()[d] == strides[d];
  if (same) return "";
  return fmt::format("out layout: got sizes {} strides {}, want sizes {} strides {}",
                     shape_str(out.sizes()), shape_str(out.strides()), shape_str(sizes),
                     shape_str(strides));
}

}  // namespace bp::conformance
