// dtype names, sizes and PyTorch's type promotion: promote_types (torch.promote_types),
// ResultTypeState (torch.result_type with its three operand priorities) and can_cast.
#include "backplane/core/dtype.hpp"
#include "backplane/core/dtype_mask.hpp"

#include "backplane/core/error.hpp"

#include <array>
#include <utility>

namespace bp {
namespace {

using ST = ScalarType;

constexpr std::array<std::string_view, kNumScalarTypes> kShortNames = {
    "bool", "i8", "u8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};

// PyTorch's spellings (torch.float32, torch.half, torch.long, ...), besides the short names.
constexpr std::array<std::pair<std::string_view, ST>, 16> kTorchNames = {{
    {"float32", ST::Float32},
    {"float", ST::Float32},
    {"float16", ST::Float16},
    {"half", ST::Float16},
    {"bfloat16", ST::BFloat16},
    {"float64", ST::Float64},
    {"double", ST::Float64},
    {"int8", ST::Int8},
    {"uint8", ST::UInt8},
    {"int16", ST::Int16},
    {"short", ST::Int16},
    {"int32", ST::Int32},
    {"int", ST::Int32},
    {"int64", ST::Int64},
    {"long", ST::Int64},
    {"bool", ST::Bool},
}};

size_t index_of(ST t) {
  return static_cast<size_t>(t);
}

void check_valid(ST t, std::string_view what) {
  BP_CHECK(is_valid(t), ErrorCode::Type, "{}: invalid dtype code {}", what, static_cast<int>(t));
}

// promote_types with Undefined as the identity (an empty priority class).
ST promote_skip_undefined(ST a, ST b) {
  if (a == ST::Undefined) return b;
  if (b == ST::Undefined) return a;
  return promote_types(a, b);
}

// PyTorch's combine_categories: the result of a higher-priority class stands unless a
// lower-priority class is of a higher category (bool < integral < floating); then both are
// promoted. E.g. an i32 tensor and a 0-d f64 tensor give f64, but an f16 tensor and a 0-d
// f64 tensor give f16.
ST combine_categories(ST higher, ST lower) {
  if (is_floating(higher)) return higher;
  if (higher == ST::Bool || is_floating(lower)) return promote_skip_undefined(higher, lower);
  if (higher != ST::Undefined) return higher;
  return lower;
}

}  // namespace

std::string_view dtype_name(ScalarType t) {
  if (t == ST::Undefined) return "undefined";
  if (!is_valid(t)) return "invalid";
  return kShortNames[index_of(t)];
}

std::optional<ScalarType> parse_dtype(std::string_view name) {
  // Users paste what Python printed ("torch.float32").
  if (name.starts_with("torch.")) name.remove_prefix(6);
  for (size_t i = 0; i < kShortNames.size(); ++i) {
    if (kShortNames[i] == name) return static_cast<ST>(i);
  }
  for (const auto& [n, t] : kTorchNames) {
    if (n == name) return t;
  }
  return std::nullopt;
}

namespace detail {
void throw_invalid_dtype(ScalarType t, std::string_view what) {
  BP_FAIL(ErrorCode::Type, "{}: invalid dtype code {}", what, static_cast<int>(t));
}
}  // namespace detail

ScalarType promote_types(ScalarType a, ScalarType b) {
  check_valid(a, "promote_types");
  check_valid(b, "promote_types");
  if (a == b) return a;
  if (a == ST::Bool) return b;
  if (b == ST::Bool) return a;
  const bool fa = is_floating(a);
  const bool fb = is_floating(b);
  if (fa && fb) {
    // Neither half format holds the other's range and precision.
    if ((a == ST::Float16 && b == ST::BFloat16) || (a == ST::BFloat16 && b == ST::Float16)) {
      return ST::Float32;
    }
    return element_size(a) >= element_size(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  // Both integral. u8 is the only unsigned type: with a signed type it needs one that holds
  // 0..255, i.e. at least i16.
  if (a == ST::UInt8 || b == ST::UInt8) {
    const ST other = a == ST::UInt8 ? b : a;
    return other == ST::Int8 ? ST::Int16 : other;
  }
  return element_size(a) >= element_size(b) ? a : b;
}

void ResultTypeState::add_tensor(ScalarType t, int64_t dim, bool wrapped_number) {
  // An undefined tensor (an absent optional) does not take part, as in PyTorch.
  if (t == ST::Undefined) return;
  check_valid(t, "result_type");
  // A wrapped Python float counts as the default dtype, not as the f64 it is stored in.
  if (wrapped_number && is_floating(t)) t = kDefaultFloat;
  if (dim > 0) {
    dim_ = promote_skip_undefined(dim_, t);
  } else if (wrapped_number) {
    wrapped_ = promote_skip_undefined(wrapped_, t);
  } else {
    zero_dim_ = promote_skip_undefined(zero_dim_, t);
  }
}

void ResultTypeState::add_scalar(ScalarType scalar_kind) {
  check_valid(scalar_kind, "result_type");
  if (is_floating(scalar_kind)) scalar_kind = kDefaultFloat;
  wrapped_ = promote_skip_undefined(wrapped_, scalar_kind);
}

ScalarType ResultTypeState::result() const {
  return combine_categories(dim_, combine_categories(zero_dim_, wrapped_));
}

bool can_cast(ScalarType from, ScalarType to) {
  check_valid(from, "can_cast");
  check_valid(to, "can_cast");
  // Casting may not lower the category: floating -> integral, or non-bool -> bool.
  if (is_floating(from) && is_integral(to, /*include_bool=*/true)) return false;
  if (from != ST::Bool && to == ST::Bool) return false;
  return true;
}

std::vector<std::string> dtype_mask_names(uint32_t mask) {
  std::vector<std::string> names;
  for (int t = 0; t < kNumScalarTypes; ++t)
    if (mask & (1u << t)) names.emplace_back(dtype_name(static_cast<ScalarType>(t)));
  return names;
}

}  // namespace bp
