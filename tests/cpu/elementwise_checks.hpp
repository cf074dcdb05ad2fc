// Helpers for the CPU plugin's elementwise tests (test_cpu_copy/unary/binary.cpp): the
// dtype lists, special-value tensors, the sizes and layouts every op is run on, and a
// comparison that first moves the CPU result to the reference device as raw bytes (so the
// check never relies on the CPU plugin's own copy_ conversions) and compares integers as
// int64, floats with their NaN positions and, when exact, the signs of zeros.
#pragma once

#include "cpu_checks.hpp"

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace bp::test::ew {

using ST = ScalarType;

inline const std::vector<ST> kAllDtypes = {ST::Bool,    ST::Int8,   ST::UInt8,   ST::Int16,
                                           ST::Int32,   ST::Int64,  ST::Float16, ST::BFloat16,
                                           ST::Float32, ST::Float64};
inline const std::vector<ST> kFloatDtypes = {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64};

inline std::vector<ST> all_but_bool() {
  return {kAllDtypes.begin() + 1, kAllDtypes.end()};
}

// Tolerance of a comparison: exact (signs of zeros included), or atol + rtol * |want|.
struct Tol {
  double rtol = 0.0;
  double atol = 0.0;
  bool exact() const { return rtol == 0.0 && atol == 0.0; }
};
inline Tol exact() {
  return {};
}
// check_same's defaults (PyTorch's testing tolerances), for results that may round
// differently from the double-precision oracle.
inline Tol loose(ST dtype) {
  return {default_rtol(dtype), default_atol(dtype)};
}

// Compares a CPU result with the reference's: dtype, shape, then every element.
inline void check_close(const Tensor& got_cpu, const Tensor& want, Tol tol) {
  REQUIRE(got_cpu.device() == cpu_device());
  const Tensor got = on(got_cpu, kRefDevice);
  REQUIRE(std::string(dtype_name(got.dtype())) == std::string(dtype_name(want.dtype())));
  REQUIRE(shape_str(as_ref(got.sizes())) == shape_str(as_ref(want.sizes())));
  int reported = 0;
  if (!is_floating(want.dtype())) {
    const std::vector<int64_t> g = to_vector<int64_t>(got), w = to_vector<int64_t>(want);
    for (size_t i = 0; i < w.size() && reported < 5; ++i) {
      if (g[i] == w[i]) continue;
      ++reported;
      CAPTURE(i);
      CAPTURE(g[i]);
      CAPTURE(w[i]);
      CHECK(g[i] == w[i]);
    }
    return;
  }
  const std::vector<double> g = to_vector<double>(got), w = to_vector<double>(want);
  for (size_t i = 0; i < w.size() && reported < 5; ++i) {
    bool ok;
    if (std::isnan(w[i]))
      ok = std::isnan(g[i]);
    else if (std::isinf(w[i]) || tol.exact())
      ok = g[i] == w[i] && std::signbit(g[i]) == std::signbit(w[i]);
    else
      ok = std::fabs(g[i] - w[i]) <= tol.atol + tol.rtol * std::fabs(w[i]);
    if (ok) continue;
    ++reported;
    CAPTURE(i);
    CAPTURE(g[i]);
    CAPTURE(w[i]);
    CHECK(ok);
  }
}

// Special values of a dtype as a 1-D reference tensor: zeros of both signs, +-1, NaN,
// +-inf, a subnormal, the largest finite values, halves, and for integers the extremes.
inline Tensor specials(ST dtype) {
  std::vector<double> v;
  if (dtype == ST::Bool) {
    v = {0, 1};
  } else if (is_floating(dtype)) {
    const double inf = std::numeric_limits<double>::infinity();
    const double big = dtype == ST::Float16 ? 65504.0 : dtype == ST::Float64 ? 1e300 : 3e38;
    const double tiny = dtype == ST::Float16 ? 0x1p-24 : dtype == ST::Float64 ? 1e-310 : 1e-40;
    v = {0.0,   -0.0, 1.0,   -1.0,  0.5,    -2.5,
         2.5,   3.0,  -7.25, 100.0, -100.0, tiny,
         -tiny, big,  -big,  inf,   -inf,   std::numeric_limits<double>::quiet_NaN()};
  } else {
    v = {0, 1, -1, 2, -7, 100, 127, -128, 255};
    if (dtype == ST::UInt8) v = {0, 1, 2, 7, 100, 127, 128, 254, 255};
  }
  Tensor t = to(from_vector(v, {static_cast<int64_t>(v.size())}, kRefDevice), dtype);
  if (dtype == ST::Int16 || dtype == ST::Int32 || dtype == ST::Int64) {
    // Extremes of the type itself (exact in int64; not representable through double).
    std::vector<int64_t> e = to_vector<int64_t>(t);
    const int64_t lo = dtype == ST::Int16   ? std::numeric_limits<int16_t>::min()
                       : dtype == ST::Int32 ? std::numeric_limits<int32_t>::min()
                                            : std::numeric_limits<int64_t>::min();
    const int64_t hi = dtype == ST::Int16   ? std::numeric_limits<int16_t>::max()
                       : dtype == ST::Int32 ? std::numeric_limits<int32_t>::max()
                                            : std::numeric_limits<int64_t>::max();
    e.insert(e.end(), {lo, hi, lo + 1, hi - 1});
    t = to(from_vector(e, {static_cast<int64_t>(e.size())}, kRefDevice), dtype);
  }
  return t;
}

// Sizes of the 1-D runs: 0, 1, 7, 1023, and one above two threading grains (65536) so the
// OpenMP split runs, not a multiple of the 64-element chunk alignment.
inline const std::vector<int64_t> kSizes = {0, 1, 7, 1023, 70001};

// Layouts with the same values as `t` on t's device, built with copy_ only (so they work
// before any other CPU kernel exists): a transposed copy transposed back, a view at an
// element offset of 3 in a larger buffer, and every other row of a buffer twice as long.
inline Tensor offset_copy(const Tensor& t) {
  const Tensor buf = empty({t.numel() + 3}, t.dtype(), t.device());
  Tensor v = buf.slice(0, 3, 3 + t.numel()).view(t.sizes());
  copy_(v, t);
  return v;
}
inline Tensor stepped_copy(const Tensor& t) {
  if (t.dim() == 0) return t;
  std::vector<int64_t> s(t.sizes().begin(), t.sizes().end());
  s.insert(s.begin() + 1, 2);
  Tensor v = empty(s, t.dtype(), t.device()).select(1, 1);
  copy_(v, t);
  return v;
}
inline Tensor transposed_copy(const Tensor& t) {
  if (t.dim() < 2) return t;
  return contiguous(t.transpose(0, t.dim() - 1)).transpose(0, t.dim() - 1);
}

using Layout = std::function<Tensor(const Tensor&)>;
inline std::vector<std::pair<std::string, Layout>> layouts() {
  return {
      {"contiguous", [](const Tensor& t) { return t; }},
      {"transposed", transposed_copy},
      {"offset", offset_copy},
      {"stepped", stepped_copy},
  };
}

}  // namespace bp::test::ew
