// Seeded inputs for conformance samples (inputs.hpp).
#include "backplane/conformance/inputs.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace bp::conformance {
namespace {

struct IntRange {
  double lo, hi;
};

IntRange int_range(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return {0, 1};
    case ScalarType::Int8:
      return {-128, 127};
    case ScalarType::UInt8:
      return {0, 255};
    case ScalarType::Int16:
      return {-32768, 32767};
    case ScalarType::Int32:
      return {-2147483648.0, 2147483647.0};
    // Doubles hold integers exactly only up to 2^53; the extremes of i64 are generated
    // separately (special_values) and stay exact because conversion to i64 saturates.
    default:
      return {-9007199254740992.0, 9007199254740992.0};
  }
}

// Rounds and clamps a drawn value into what `dtype` can hold, so the conversion from f64
// the reference performs is exact for integers and rounds once for floats.
double fit(double v, ScalarType dtype) {
  if (is_floating(dtype) || std::isnan(v)) return v;
  if (dtype == ScalarType::Bool) return v != 0.0 ? 1.0 : 0.0;
  const IntRange r = int_range(dtype);
  return std::clamp(std::nearbyint(v), r.lo, r.hi);
}

// A value a kernel must never read: written into the gaps of strided and offset layouts.
double sentinel(ScalarType dtype) {
  if (is_floating(dtype)) return std::numeric_limits<double>::quiet_NaN();
  if (dtype == ScalarType::Bool) return 1.0;
  return dtype == ScalarType::UInt8 ? 77.0 : -77.0;
}

Tensor contiguous_from(IntArrayRef sizes, ScalarType dtype, const std::vector<double>& values) {
  // i64 extremes do not survive a round trip through double; build them exactly.
  if (dtype == ScalarType::Int64) {
    std::vector<int64_t> ints(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      ints[i] = v >= 9.2233720368547758e18    ? std::numeric_limits<int64_t>::max()
                : v <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min()
                                              : static_cast<int64_t>(v);
    }
    return from_vector(ints, sizes, kReferenceDevice);
  }
  return to(from_vector(values, sizes, kReferenceDevice), dtype);
}

// The special values of a floating dtype, from its smallest denormal, smallest normal and
// largest finite value: NaN, ±inf, ±0, ±denormal, the smallest normal, ±max, then values
// that round differently (±1, 0.5, 1.5, ±2.5).
std::vector<double> floating_specials(double denorm_min, double normal_min, double max) {
  const double inf = std::numeric_limits<double>::infinity();
  return {NAN, inf,  -inf, -0.0, 0.0, denorm_min, -denorm_min, normal_min,
          max, -max, 1,    -1,   0.5, 1.5,        2.5,         -2.5};
}

}  // namespace

std::vector<double> special_values(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Bool:
      return {0, 1};
    case ScalarType::Float16:
      return floating_specials(5.960464477539063e-08, 6.103515625e-05, 65504.0);
    case ScalarType::BFloat16:
      return floating_specials(9.183549615799121e-41, 1.1754943508222875e-38,
                               3.3895313892515355e+38);
    case ScalarType::Float32:
      return floating_specials(1.401298464324817e-45, 1.1754943508222875e-38,
                               3.4028234663852886e+38);
    case ScalarType::Float64:
      return floating_specials(std::numeric_limits<double>::denorm_min(),
                               std::numeric_limits<double>::min(),
                               std::numeric_limits<double>::max());
    case ScalarType::Int64:
      return {-9.3e18, 9.3e18, 0, 1, -1, -9007199254740992.0, 9007199254740992.0};
    default: {
      const IntRange r = int_range(dtype);
      if (r.lo == 0) return {r.lo, r.hi, 1, r.lo + 1, r.hi - 1};
      return {r.lo, r.hi, 0, 1, -1, r.lo + 1, r.hi - 1};
    }
  }
}

int64_t InputMaker::uniform_int(int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
}

double InputMaker::uniform(double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng_);
}

std::vector<double> InputMaker::draw(int64_t n, ScalarType dtype, Values values) {
  std::vector<double> out(static_cast<size_t>(std::max<int64_t>(n, 0)));
  const bool fp = is_floating(dtype);
  const bool unsigned_int = dtype == ScalarType::UInt8;
  std::normal_distribution<double> normal(0.0, 1.0);
  size_t i = 0;
  if (values == Values::Special) {
    const std::vector<double> special = special_values(dtype);
    for (; i < out.size() && i < special.size(); ++i) out[i] = special[i];
    // The rest in a random order relative to the specials, so they meet every neighbour.
    std::shuffle(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(i), rng_);
  }
  for (; i < out.size(); ++i) {
    double v = 0.0;
    if (dtype == ScalarType::Bool) {
      v = values == Values::Positive ? 1.0 : static_cast<double>(uniform_int(0, 1));
    } else {
      switch (values) {
        case Values::Normal:
        case Values::Special:
          v = fp ? normal(rng_) : static_cast<double>(uniform_int(unsigned_int ? 0 : -9, 9));
          break;
        case Values::Positive:
          v = fp ? uniform(0.125, 8.0) : static_cast<double>(uniform_int(1, 9));
          break;
        case Values::Unit:
          v = fp ? uniform(-1.0, 1.0) : static_cast<double>(uniform_int(unsigned_int ? 0 : -1, 1));
          break;
        case Values::Wide:
          if (fp) {
            v = normal(rng_) * 1000.0;
          } else {
            const IntRange r = int_range(dtype);
            v = std::nearbyint(uniform(r.lo, r.hi));
          }
          break;
        case Values::Ties: {
          static constexpr double kFloatTies[] = {-1.0, -0.5, 0.0, 0.5, 1.0};
          v = fp ? kFloatTies[uniform_int(0, 4)]
                 : static_cast<double>(uniform_int(unsigned_int ? 0 : -2, 2));
          break;
        }
      }
    }
    out[i] = fit(v, dtype);
  }
  return out;
}

Tensor InputMaker::tensor(IntArrayRef sizes, ScalarType dtype, Values values, Layout layout) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return from_doubles(sizes, dtype, draw(n, dtype, values), layout);
}

Tensor InputMaker::from_doubles(IntArrayRef sizes, ScalarType dtype,
                                const std::vector<double>& values, Layout layout) {
  return relayout(contiguous_from(sizes, dtype, values), layout);
}

Tensor expanded_first_slice(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.sizes()[static_cast<size_t>(d)] <= 1) continue;
    Shape strides(t.strides().begin(), t.strides().end());
    strides[static_cast<size_t>(d)] = 0;
    return t.as_strided(t.sizes(), strides, t.storage_offset());
  }
  return t;
}

Tensor relayout(const Tensor& logical, Layout layout) {
  const int64_t dim = logical.dim();
  const IntArrayRef sizes = logical.sizes();
  const ScalarType dtype = logical.dtype();
  switch (layout) {
    case Layout::Contiguous:
      return logical;
    case Layout::Transposed:
      if (dim < 2) return logical;
      return contiguous(logical.transpose(-1, -2)).transpose(-1, -2);
    case Layout::Permuted: {
      if (dim < 2) return logical;
      Shape reversed(static_cast<size_t>(dim));
      std::iota(reversed.rbegin(), reversed.rend(), int64_t{0});
      return contiguous(logical.permute(reversed)).permute(reversed);
    }
    case Layout::Strided: {
      if (dim < 1) return logical;
      Shape wide(sizes.begin(), sizes.end());
      wide.back() = wide.back() * 2 + 1;
      Tensor storage = full(wide, Scalar(sentinel(dtype)), dtype, kReferenceDevice);
      Tensor view = storage.slice(-1, 1, std::nullopt, 2);
      copy_(view, logical);
      return view;
    }
    case Layout::Offset: {
      constexpr int64_t kOffset = 3;
      Tensor storage =
          full({logical.numel() + kOffset}, Scalar(sentinel(dtype)), dtype, kReferenceDevice);
      Tensor view = storage.narrow(0, kOffset, logical.numel()).view(sizes);
      copy_(view, logical);
      return view;
    }
  }
  return logical;
}

Tensor InputMaker::indices(IntArrayRef sizes, int64_t lo, int64_t hi, ScalarType dtype,
                           Layout layout) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> values(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (double& v : values) v = static_cast<double>(uniform_int(lo, hi));
  return from_doubles(sizes, dtype, values, layout);
}

Tensor InputMaker::mask(IntArrayRef sizes, double p, Layout layout) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> values(static_cast<size_t>(std::max<int64_t>(n, 0)));
  for (double& v : values) v = uniform(0.0, 1.0) < p ? 1.0 : 0.0;
  return from_doubles(sizes, ScalarType::Bool, values, layout);
}

}  // namespace bp::conformance
