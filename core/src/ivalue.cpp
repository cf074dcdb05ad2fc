// IValue accessors: each checks the held kind and throws bp::Error(InvalidArgument) that
// names the expected and the actual kind, so a schema/argument mismatch in the boxed path
// reads "expected int but got Tensor" instead of a std::bad_variant_access.
#include "backplane/core/ivalue.hpp"

#include "backplane/core/error.hpp"

namespace bp {
namespace {

// Returns the held T or throws naming `expected` and the held kind.
template <typename T>
const T& get_or_throw(const IValue& v, std::string_view expected) {
  const T* p = std::get_if<T>(&v.variant());
  if (p == nullptr) [[unlikely]] {
    BP_FAIL(ErrorCode::InvalidArgument, "IValue: expected {} but got {}", expected, v.kind_name());
  }
  return *p;
}

}  // namespace

std::string_view IValue::kind_name() const {
  struct Namer {
    std::string_view operator()(std::monostate) const { return "None"; }
    std::string_view operator()(const Tensor&) const { return "Tensor"; }
    std::string_view operator()(const TensorList&) const { return "Tensor[]"; }
    std::string_view operator()(const Scalar&) const { return "Scalar"; }
    std::string_view operator()(int64_t) const { return "int"; }
    std::string_view operator()(const Shape&) const { return "int[]"; }
    std::string_view operator()(double) const { return "float"; }
    std::string_view operator()(bool) const { return "bool"; }
    std::string_view operator()(ScalarType) const { return "ScalarType"; }
    std::string_view operator()(const std::string&) const { return "str"; }
    std::string_view operator()(Device) const { return "Device"; }
  };
  return std::visit(Namer{}, v_);
}

const Tensor& IValue::tensor() const {
  return get_or_throw<Tensor>(*this, "Tensor");
}

const TensorList& IValue::tensor_list() const {
  return get_or_throw<TensorList>(*this, "Tensor[]");
}

Scalar IValue::scalar() const {
  if (const auto* s = std::get_if<Scalar>(&v_)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v_)) return Scalar(*i);
  if (const auto* d = std::get_if<double>(&v_)) return Scalar(*d);
  if (const auto* b = std::get_if<bool>(&v_)) return Scalar(*b);
  BP_FAIL(ErrorCode::InvalidArgument, "IValue: expected Scalar but got {}", kind_name());
}

int64_t IValue::to_int() const {
  return get_or_throw<int64_t>(*this, "int");
}

const Shape& IValue::int_list() const {
  return get_or_throw<Shape>(*this, "int[]");
}

double IValue::to_double() const {
  // Python lets an int stand where a float is expected (e.g. eps=1).
  if (const auto* i = std::get_if<int64_t>(&v_)) return static_cast<double>(*i);
  return get_or_throw<double>(*this, "float");
}

bool IValue::to_bool() const {
  return get_or_throw<bool>(*this, "bool");
}

ScalarType IValue::dtype() const {
  return get_or_throw<ScalarType>(*this, "ScalarType");
}

const std::string& IValue::string() const {
  return get_or_throw<std::string>(*this, "str");
}

Device IValue::device() const {
  return get_or_throw<Device>(*this, "Device");
}

}  // namespace bp
