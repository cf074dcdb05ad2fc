// Creating tensors, moving them between devices and dtypes, and reading their values back:
// the data-touching side of bp::Tensor (core/ only holds metadata). All functions go
// through the dispatcher. Thread-safe.
#pragma once

#include "backplane/core/scalar.hpp"
#include "backplane/core/tensor.hpp"

#include <backplane/sdk/half.hpp>

#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace bp {

using Half = sdk::Half;
using BFloat16 = sdk::BFloat16;

// The device factories use when none is given: the first available device in priority
// order (with only the built-in backend: reference:0).
Device default_device();

// dtype of a C++ element type: bool, int8_t, uint8_t, int16_t, int32_t, int64_t, Half,
// BFloat16, float, double.
template <typename T>
constexpr ScalarType dtype_of();

Tensor empty(IntArrayRef sizes, ScalarType dtype = kDefaultFloat,
             std::optional<Device> device = std::nullopt);
Tensor full(IntArrayRef sizes, Scalar value, ScalarType dtype = kDefaultFloat,
            std::optional<Device> device = std::nullopt);
Tensor zeros(IntArrayRef sizes, ScalarType dtype = kDefaultFloat,
             std::optional<Device> device = std::nullopt);
Tensor ones(IntArrayRef sizes, ScalarType dtype = kDefaultFloat,
            std::optional<Device> device = std::nullopt);
// A 0-d tensor. With wrapped_number it takes part in promotion as a Python scalar would.
Tensor scalar_tensor(Scalar value, ScalarType dtype, std::optional<Device> device = std::nullopt,
                     bool wrapped_number = false);
// Copies `count(shape)` elements of `dtype` from host memory into a new tensor.
Tensor from_data(const void* data, ScalarType dtype, IntArrayRef shape,
                 std::optional<Device> device = std::nullopt);
namespace detail {
// Throws bp::Error unless `shape` (checked: no negative size, no int64 overflow) has exactly
// `count` elements: from_data would read past the end of a shorter vector.
void check_value_count(size_t count, IntArrayRef shape, std::string_view op);
}  // namespace detail
template <typename T>
Tensor from_vector(const std::vector<T>& values, IntArrayRef shape,
                   std::optional<Device> device = std::nullopt) {
  detail::check_value_count(values.size(), shape, "from_vector");
  if constexpr (std::is_same_v<T, bool>) {  // std::vector<bool> has no data()
    std::vector<uint8_t> bytes(values.begin(), values.end());
    return from_data(bytes.data(), ScalarType::Bool, shape, device);
  } else {
    return from_data(values.data(), dtype_of<T>(), shape, device);
  }
}
// 1-D convenience: bp::tensor<float>({1, 2, 3}).
template <typename T>
Tensor tensor(std::initializer_list<T> values, std::optional<Device> device = std::nullopt) {
  return from_vector(std::vector<T>(values), {static_cast<int64_t>(values.size())}, device);
}

// Copies the tensor's elements, in row-major order, into host memory of `dtype` (converting
// through the dispatcher when the dtype differs). `out` holds numel * element_size bytes.
void copy_to_host(const Tensor& t, void* out, ScalarType dtype);
template <typename T>
std::vector<T> to_vector(const Tensor& t) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(static_cast<size_t>(t.numel()));
    copy_to_host(t, bytes.data(), ScalarType::Bool);
    return std::vector<bool>(bytes.begin(), bytes.end());
  } else {
    std::vector<T> v(static_cast<size_t>(t.numel()));
    copy_to_host(t, v.data(), dtype_of<T>());
    return v;
  }
}
// The single element of a 1-element tensor.
Scalar item(const Tensor& t);

// A contiguous tensor with the same values (the tensor itself when already contiguous).
Tensor contiguous(const Tensor& t);
// The tensor on `device` / in `dtype` (the tensor itself when nothing changes).
Tensor to(const Tensor& t, Device device);
Tensor to(const Tensor& t, ScalarType dtype);
Tensor clone(const Tensor& t);
// View when the strides allow it, else a contiguous copy (as torch.reshape).
Tensor reshape(const Tensor& t, IntArrayRef shape);
Tensor flatten(const Tensor& t, int64_t start_dim = 0, int64_t end_dim = -1);

// Human-readable values, as PyTorch prints: "tensor([[1., 2.],\n        [3., 4.]])".
std::string to_string(const Tensor& t);

// ---- implementation detail --------------------------------------------------------------
template <typename T>
constexpr ScalarType dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return ScalarType::Bool;
  else if constexpr (std::is_same_v<T, int8_t>)
    return ScalarType::Int8;
  else if constexpr (std::is_same_v<T, uint8_t>)
    return ScalarType::UInt8;
  else if constexpr (std::is_same_v<T, int16_t>)
    return ScalarType::Int16;
  else if constexpr (std::is_same_v<T, int32_t>)
    return ScalarType::Int32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return ScalarType::Int64;
  else if constexpr (std::is_same_v<T, Half>)
    return ScalarType::Float16;
  else if constexpr (std::is_same_v<T, BFloat16>)
    return ScalarType::BFloat16;
  else if constexpr (std::is_same_v<T, float>)
    return ScalarType::Float32;
  else if constexpr (std::is_same_v<T, double>)
    return ScalarType::Float64;
  else
    static_assert(sizeof(T) == 0, "no Backplane dtype for this C++ type");
}

}  // namespace bp
