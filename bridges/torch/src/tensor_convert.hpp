// Translation between PyTorch's values and Backplane's: dtypes, scalars and tensors. A
// PrivateUse1 at::Tensor becomes a bp::Tensor viewing the same memory with the same sizes,
// strides and offset (no copy, whatever the strides); a bp::Tensor becomes a PrivateUse1
// at::Tensor sharing its storage. Errors are c10::Errors that name what was wrong, so
// PyTorch raises them as RuntimeError.
#pragma once

#include <backplane/core/scalar.hpp>
#include <backplane/core/tensor.hpp>

#include <ATen/core/Tensor.h>

#include <optional>
#include <span>
#include <string_view>

namespace bp::torch_bridge {

// nullopt for dtypes Backplane does not have (complex, quantized, ...).
std::optional<ScalarType> backplane_dtype(c10::ScalarType type);
c10::ScalarType torch_dtype(ScalarType type);

// Complex scalars throw c10::Error naming `what`.
Scalar backplane_scalar(const c10::Scalar& value, std::string_view what);
c10::Scalar torch_scalar(const Scalar& value);

// A c10 size or stride list as Backplane's IntArrayRef (the same memory).
inline IntArrayRef backplane_shape(c10::IntArrayRef values) {
  return std::span<const int64_t>(values.data(), values.size());
}

// True when every element type of `tensor` can be viewed by Backplane.
bool has_backplane_dtype(const at::Tensor& tensor);

// The bp::Tensor viewing a PrivateUse1 tensor's memory. `what` names the tensor in errors
// ("argument 'other' of aten::add.Tensor").
Tensor backplane_view(const at::Tensor& tensor, std::string_view what);

// A PrivateUse1 tensor sharing `tensor`'s storage, on privateuseone:`index`.
at::Tensor torch_tensor(const Tensor& tensor, c10::DeviceIndex index);

// Points `target` (a PrivateUse1 tensor) at `source`'s storage, sizes, strides and
// offset: how an `out=` tensor that Backplane had to reallocate takes the new memory.
void adopt(const at::Tensor& target, const Tensor& source, c10::DeviceIndex index);

}  // namespace bp::torch_bridge
