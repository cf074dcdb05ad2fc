// Scalar's out-of-line conversions: a saturating double -> int64 and Python-like printing.
#include "backplane/core/scalar.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace bp {

int64_t Scalar::to_int_other() const {
  switch (kind_) {
    case Kind::Bool:
      return b_ ? 1 : 0;
    case Kind::Int:
      return i_;
    case Kind::Double:
      break;
  }
  // A plain static_cast is UB for NaN and out-of-range values; saturate instead.
  if (std::isnan(d_)) return 0;
  // 2^63 is exactly representable; every double below it truncates into range.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (d_ >= kTwo63) return std::numeric_limits<int64_t>::max();
  if (d_ < -kTwo63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d_);
}

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::Bool:
      return b_ ? "True" : "False";
    case Kind::Int:
      return fmt::format("{}", i_);
    case Kind::Double:
      break;
  }
  // Shortest round-trip form; keep a float recognisable as one ("2.0", not "2"), as Python.
  std::string s = fmt::format("{}", d_);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

}  // namespace bp
