// IValue: one boxed argument of an operator call, as the schema types it (Tensor, Tensor?,
// Tensor[], Scalar, int, int[], float, bool, ScalarType, str, Device, or None). The boxed
// call path, the meta rules and the composites all work on std::span<const IValue>.
// A plain value: distinct IValues may be used from distinct threads, one IValue read from
// many; writing one while another thread reads it is a data race.
#pragma once

#include "backplane/core/device.hpp"
#include "backplane/core/scalar.hpp"
#include "backplane/core/shape.hpp"
#include "backplane/core/tensor.hpp"

#include <string>
#include <variant>
#include <vector>

namespace bp {

class IValue {
 public:
  using Variant = std::variant<std::monostate, Tensor, TensorList, Scalar, int64_t, Shape, double,
                               bool, ScalarType, std::string, Device>;

  IValue() = default;  // None
  IValue(std::nullopt_t) {}
  IValue(Tensor t) : v_(std::move(t)) {}
  IValue(TensorList l) : v_(std::move(l)) {}
  IValue(Scalar s) : v_(s) {}
  IValue(int64_t i) : v_(i) {}
  IValue(int i) : v_(int64_t{i}) {}
  IValue(Shape l) : v_(std::move(l)) {}
  IValue(IntArrayRef l) : v_(Shape(l.begin(), l.end())) {}
  IValue(double d) : v_(d) {}
  IValue(bool b) : v_(b) {}
  IValue(ScalarType t) : v_(t) {}
  IValue(std::string s) : v_(std::move(s)) {}
  IValue(const char* s) : v_(std::string(s)) {}
  IValue(Device d) : v_(d) {}
  template <typename T>
  IValue(const std::optional<T>& o) {
    if (o) *this = IValue(*o);
  }

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_tensor_list() const { return std::holds_alternative<TensorList>(v_); }
  bool is_scalar() const { return std::holds_alternative<Scalar>(v_); }
  bool is_int() const { return std::holds_alternative<int64_t>(v_); }
  bool is_int_list() const { return std::holds_alternative<Shape>(v_); }
  bool is_double() const { return std::holds_alternative<double>(v_); }
  bool is_bool() const { return std::holds_alternative<bool>(v_); }
  bool is_dtype() const { return std::holds_alternative<ScalarType>(v_); }
  bool is_string() const { return std::holds_alternative<std::string>(v_); }
  bool is_device() const { return std::holds_alternative<Device>(v_); }

  // Accessors throw bp::Error(InvalidArgument) naming the expected and the actual kind.
  const Tensor& tensor() const;
  const TensorList& tensor_list() const;
  // A Scalar, or an int / float / bool promoted to one.
  Scalar scalar() const;
  int64_t to_int() const;
  const Shape& int_list() const;
  double to_double() const;  // accepts int too
  bool to_bool() const;
  ScalarType dtype() const;
  const std::string& string() const;
  Device device() const;

  // Kind name for messages: "None", "Tensor", "int", ...
  std::string_view kind_name() const;

  const Variant& variant() const { return v_; }

 private:
  Variant v_;
};

}  // namespace bp
