// Scalar types (dtypes) and PyTorch's type promotion rules, including the priority of
// dimensioned tensors over 0-d tensors over wrapped numbers (Python scalars).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace bp {

// Codes are part of the plugin ABI (BP_DTYPE_* in plugin.h) and never change.
enum class ScalarType : uint8_t {
  Bool = 0,
  Int8 = 1,
  UInt8 = 2,
  Int16 = 3,
  Int32 = 4,
  Int64 = 5,
  Float16 = 6,
  BFloat16 = 7,
  Float32 = 8,
  Float64 = 9,
  Undefined = 255,
};
inline constexpr int kNumScalarTypes = 10;

// The dtype a Python float becomes (torch.get_default_dtype()).
inline constexpr ScalarType kDefaultFloat = ScalarType::Float32;

// Short name used everywhere we print: "bool", "i8", "u8", ..., "f16", "bf16", "f32", "f64".
std::string_view dtype_name(ScalarType t);
// Accepts the short names and PyTorch's ("float32", "float", "half", "long", "int64", ...).
std::optional<ScalarType> parse_dtype(std::string_view name);

constexpr bool is_floating(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 || t == ScalarType::Float32 ||
         t == ScalarType::Float64;
}
// Integral types, bool excluded unless include_bool.
constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return (t >= ScalarType::Int8 && t <= ScalarType::Int64) ||
         (include_bool && t == ScalarType::Bool);
}
constexpr bool is_valid(ScalarType t) {
  return static_cast<uint8_t>(t) < kNumScalarTypes;
}

namespace detail {
[[noreturn]] void throw_invalid_dtype(ScalarType t, std::string_view what);
// At namespace scope: a table local to element_size is rebuilt on the stack at each call.
inline constexpr uint8_t kElementSizes[kNumScalarTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
}  // namespace detail
// Bytes per element; throws bp::Error(Type) for an invalid dtype. Inline: every kernel call
// describes its tensors with it.
inline size_t element_size(ScalarType t) {
  if (!is_valid(t)) [[unlikely]]
    detail::throw_invalid_dtype(t, "element_size");
  return detail::kElementSizes[static_cast<uint8_t>(t)];
}

// torch.promote_types: the smallest type both a and b convert to without losing category.
ScalarType promote_types(ScalarType a, ScalarType b);

// Incremental torch.result_type over operands of three priorities: tensors with dim > 0,
// 0-d tensors, and wrapped numbers (scalars). A higher category (bool < integral <
// floating) among lower-priority operands still raises the result's category.
class ResultTypeState {
 public:
  void add_tensor(ScalarType t, int64_t dim, bool wrapped_number);
  void add_scalar(ScalarType scalar_kind);  // a Python scalar: Bool, Int64 or Float64
  ScalarType result() const;

 private:
  ScalarType dim_ = ScalarType::Undefined;
  ScalarType zero_dim_ = ScalarType::Undefined;
  ScalarType wrapped_ = ScalarType::Undefined;
};

// torch.can_cast(from, to): whether an op computing `from` may write into an out= of `to`.
bool can_cast(ScalarType from, ScalarType to);

}  // namespace bp
