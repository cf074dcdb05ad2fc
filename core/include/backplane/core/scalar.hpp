// Scalar: a number that is a bool, an int64 or a double, as PyTorch's c10::Scalar.
// Used for schema arguments of type `Scalar` (alpha, fill values, clamp bounds).
// A plain immutable value: thread-safe.
#pragma once

#include "backplane/core/dtype.hpp"

#include <cstdint>
#include <string>
#include <type_traits>

namespace bp {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double };

  constexpr Scalar() : kind_(Kind::Int), i_(0) {}
  constexpr Scalar(bool v) : kind_(Kind::Bool), b_(v) {}
  template <typename T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) constexpr Scalar(T v)
      : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}
  template <typename T>
  requires std::is_floating_point_v<T>
  constexpr Scalar(T v) : kind_(Kind::Double), d_(static_cast<double>(v)) {}

  constexpr Kind kind() const { return kind_; }
  constexpr bool is_bool() const { return kind_ == Kind::Bool; }
  constexpr bool is_integral() const { return kind_ == Kind::Int; }
  constexpr bool is_floating() const { return kind_ == Kind::Double; }

  // The dtype this scalar has as a wrapped number: Bool, Int64 or Float64.
  constexpr ScalarType dtype() const {
    return kind_ == Kind::Bool  ? ScalarType::Bool
           : kind_ == Kind::Int ? ScalarType::Int64
                                : ScalarType::Float64;
  }

  constexpr double to_double() const {
    return kind_ == Kind::Double ? d_ : kind_ == Kind::Int ? static_cast<double>(i_) : b_;
  }
  // Truncates a double toward zero (as static_cast), saturating at the int64 range; NaN
  // becomes 0.
  int64_t to_int() const { return kind_ == Kind::Int ? i_ : to_int_other(); }
  constexpr bool to_bool() const {
    return kind_ == Kind::Bool ? b_ : kind_ == Kind::Int ? i_ != 0 : d_ != 0.0;
  }

  std::string str() const;

 private:
  int64_t to_int_other() const;  // to_int of a bool or a double

  Kind kind_;
  union {
    bool b_;
    int64_t i_;
    double d_;
  };
};

}  // namespace bp
