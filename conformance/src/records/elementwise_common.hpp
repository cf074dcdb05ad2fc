// Small helpers shared by the elementwise and nn record files: the dtype sets ops allow, and the
// "partner" dtype used by mixed-dtype promotion samples. Header-only; nothing here makes tensors
// until a sample's make() runs.
#pragma once

#include "records_internal.hpp"

#include <string>
#include <utility>
#include <vector>

namespace bp::conformance::detail {

// Which input dtypes an op accepts as its case dtype.
enum class DtypeSet { All, NoBool, Floating };

inline std::vector<ScalarType> dtypes_of(DtypeSet set) {
  switch (set) {
    case DtypeSet::All:
      return all_dtypes();
    case DtypeSet::NoBool:
      return numeric_dtypes();
    case DtypeSet::Floating:
      return floating_dtypes();
  }
  return {};
}

// The dtype a mixed-dtype sample pairs with `t`, chosen so every promotion rule PyTorch
// has gets exercised: bool + int, u8 + i8 -> i16 (neither holds the other), i16 + i64,
// int + float -> float, f16 + bf16 -> f32, f32 + f64, f64 + f16.
inline ScalarType partner_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return ScalarType::Int32;
    case ScalarType::Int8:
      return ScalarType::UInt8;
    case ScalarType::UInt8:
      return ScalarType::Int8;
    case ScalarType::Int16:
      return ScalarType::Int64;
    case ScalarType::Int32:
      return ScalarType::Float32;
    case ScalarType::Int64:
      return ScalarType::Float64;
    case ScalarType::Float16:
      return ScalarType::BFloat16;
    case ScalarType::BFloat16:
      return ScalarType::Float16;
    case ScalarType::Float32:
      return ScalarType::Float64;
    default:
      return ScalarType::Float16;
  }
}

// A 0-d tensor that takes part in promotion like a Python number (what PyTorch makes of
// `tensor + 2.5`).
inline Tensor wrapped_scalar(Scalar value) {
  return scalar_tensor(value, value.dtype(), kReferenceDevice, /*wrapped_number=*/true);
}

void add_unary_records(std::vector<OpRecord>& out);
void add_binary_records(std::vector<OpRecord>& out);
void add_clamp_record(std::vector<OpRecord>& out);

}  // namespace bp::conformance::detail
