// Helpers for the CPU plugin's tests: the CPU plugin loaded from the build tree, seeded
// random tensors in every layout a kernel must handle (contiguous, transposed, sliced with
// a step, broadcast, offset views), and a comparison of a CPU result with the reference
// backend's result for the same call. The reference backend is the oracle: it computes in
// double and has its own hand-checked tests (tests/reference/).
#pragma once

#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace bp::test {

inline const Device kRefDevice{device_types::Reference, 0};

// cpu:0, loading libbackplane_plugin_cpu.so from the build tree on first use.
inline Device cpu_device() {
  static const Device device = [] {
    const PluginLoadReport r =
        load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
    INFO(r.message);
    REQUIRE(r.status == LoadStatus::Loaded);
    return Device{device_types::CPU, 0};
  }();
  return device;
}

// Values drawn uniformly from [lo, hi] (integers: rounded; bool: 0/1), deterministic in
// `seed`, as a contiguous tensor of `dtype` on `device`.
inline Tensor random_tensor(IntArrayRef shape, ScalarType dtype, uint64_t seed, Device device,
                            double lo = -4.0, double hi = 4.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> values(static_cast<size_t>(n));
  for (double& v : values) {
    v = dist(rng);
    if (dtype == ScalarType::Bool)
      v = v > (lo + hi) / 2 ? 1.0 : 0.0;
    else if (!is_floating(dtype))
      v = std::round(v);
  }
  const Tensor f64 = from_vector(values, shape, device);
  return to(f64, dtype);
}

// The same values on another device (a copy through the dispatcher).
inline Tensor on(const Tensor& t, Device device) {
  return to(t, device);
}

// Views with the same logical values as `t` but another layout, to check strided paths:
// a transposed copy transposed back, a slice with step 2 of a doubled tensor, a view at a
// byte offset. Each returns a tensor equal to `t` element by element.
inline Tensor transposed_layout(const Tensor& t) {
  if (t.dim() < 2) return t;
  return contiguous(t.transpose(0, t.dim() - 1)).transpose(0, t.dim() - 1);
}
inline Tensor offset_layout(const Tensor& t) {
  const Tensor flat = flatten(t);
  const Tensor padded = cat({zeros({3}, t.dtype(), t.device()), flat}, 0);
  return padded.slice(0, 3, 3 + flat.numel()).view(t.sizes());
}

// Relative/absolute tolerance of a CPU result against the double-precision reference for
// elementwise float arithmetic (conformance will own per-op tables; these are PyTorch's
// testing defaults). Integers, bool and data movement compare exactly.
inline double default_rtol(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Float16:
      return 1e-3;
    case ScalarType::BFloat16:
      return 1.6e-2;
    case ScalarType::Float32:
      return 1.3e-6;
    case ScalarType::Float64:
      return 1e-7;
    default:
      return 0.0;
  }
}
inline double default_atol(ScalarType dtype) {
  return is_floating(dtype) ? 1e-5 : 0.0;
}

// Checks that `got` (CPU) equals `want` (reference): dtype, shape, NaN positions, infinity
// signs, and every value within atol + rtol * |want|. Reports the first few mismatches
// with their flat index.
inline void check_same(const Tensor& got, const Tensor& want, double rtol, double atol) {
  REQUIRE(std::string(dtype_name(got.dtype())) == std::string(dtype_name(want.dtype())));
  REQUIRE(shape_str(as_ref(got.sizes())) == shape_str(as_ref(want.sizes())));
  const std::vector<double> g = to_vector<double>(got);
  const std::vector<double> w = to_vector<double>(want);
  REQUIRE(g.size() == w.size());
  int reported = 0;
  for (size_t i = 0; i < w.size() && reported < 5; ++i) {
    bool ok;
    if (std::isnan(w[i]))
      ok = std::isnan(g[i]);
    else if (std::isinf(w[i]) || (rtol == 0.0 && atol == 0.0))
      ok = g[i] == w[i];
    else
      ok = std::fabs(g[i] - w[i]) <= atol + rtol * std::fabs(w[i]);
    if (!ok) {
      ++reported;
      CAPTURE(i);
      CAPTURE(g[i]);
      CAPTURE(w[i]);
      CHECK(ok);
    }
  }
}
inline void check_same(const Tensor& got, const Tensor& want) {
  check_same(got, want, default_rtol(want.dtype()), default_atol(want.dtype()));
}

}  // namespace bp::test

// ---- helpers of the reduction, indexing and matmul tests -----------------------------------
#include <functional>
#include <limits>
#include <utility>

namespace bp::test {

// The CPU layouts a kernel must read, each built from a tensor on reference:0 without any
// CPU kernel (contiguous blocks move as bytes; the views are metadata), so these tests do
// not depend on the CPU copy_ kernel to set up their inputs.
enum class CpuLayout { Contiguous, Transposed, Offset };
inline constexpr CpuLayout kCpuLayouts[] = {CpuLayout::Contiguous, CpuLayout::Transposed,
                                            CpuLayout::Offset};
inline const char* layout_name(CpuLayout l) {
  return l == CpuLayout::Contiguous   ? "contiguous"
         : l == CpuLayout::Transposed ? "transposed"
                                      : "offset";
}
inline Tensor cpu_copy(const Tensor& ref, CpuLayout layout) {
  const Device cpu = cpu_device();
  switch (layout) {
    case CpuLayout::Transposed:
      if (ref.dim() >= 2) {
        const int64_t last = ref.dim() - 1;
        return on(contiguous(ref.transpose(0, last)), cpu).transpose(0, last);
      }
      return on(contiguous(ref), cpu);
    case CpuLayout::Offset: {
      const Tensor flat = flatten(contiguous(ref));
      const Tensor padded = cat({zeros({3}, ref.dtype(), ref.device()), flat}, 0);
      return on(padded, cpu).slice(0, 3, 3 + flat.numel()).view(ref.sizes());
    }
    default:
      return on(contiguous(ref), cpu);
  }
}

// Compares a result on cpu:0 with the reference's (moved as bytes, compared on the host).
inline void check_cpu(const Tensor& got, const Tensor& want, double rtol, double atol) {
  check_same(on(got, kRefDevice), want, rtol, atol);
}
inline void check_cpu(const Tensor& got, const Tensor& want) {
  check_cpu(got, want, default_rtol(want.dtype()), default_atol(want.dtype()));
}

inline constexpr ScalarType kEveryDtype[] = {
    ScalarType::Bool,    ScalarType::Int8,   ScalarType::UInt8,   ScalarType::Int16,
    ScalarType::Int32,   ScalarType::Int64,  ScalarType::Float16, ScalarType::BFloat16,
    ScalarType::Float32, ScalarType::Float64};

// Machine epsilon of the dtype a kernel accumulates in (f16/bf16 accumulate in f32).
inline double accumulate_eps(ScalarType dtype) {
  return dtype == ScalarType::Float64 ? std::numeric_limits<double>::epsilon()
                                      : std::numeric_limits<float>::epsilon();
}

// Runs f, which must throw bp::Error with `code` and a message containing `part`.
inline void check_cpu_error(const std::function<void()>& f, ErrorCode code,
                            const std::string& part) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(std::string(to_string(e.code())) == std::string(to_string(code)));
    CAPTURE(e.what());
    CHECK(std::string(e.what()).find(part) != std::string::npos);
    return;
  }
  FAIL_CHECK("expected a bp::Error containing \"" << part << "\"");
}

}  // namespace bp::test
