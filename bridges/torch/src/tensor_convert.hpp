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
#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace bp::torch_bridge {

// Names a value in error messages: a fixed text ("the source of copy_") or an operator's
// argument ("argument 'other' of aten::add.Tensor"). It holds views only and builds the
// text only when a message is printed: kernels make one per argument on every call.
class ValueName {
 public:
  ValueName(const char* text) : text_(text) {}
  ValueName(std::string_view argument, std::string_view op) : text_(argument), op_(op) {}
  friend std::ostream& operator<<(std::ostream& out, const ValueName& name);
  std::string str() const;

 private:
  std::string_view text_;
  std::string_view op_;  // empty for a fixed text
};

// nullopt for dtypes Backplane does not have (complex, quantized, ...).
std::optional<ScalarType> backplane_dtype(c10::ScalarType type);
c10::ScalarType torch_dtype(ScalarType type);

// Complex scalars throw c10::Error naming `what`.
Scalar backplane_scalar(const c10::Scalar& value, const ValueName& what);
c10::Scalar torch_scalar(const Scalar& value);

// A c10 size or stride list as Backplane's IntArrayRef (the same memory).
inline IntArrayRef backplane_shape(c10::IntArrayRef values) {
  return std::span<const int64_t>(values.data(), values.size());
}

// True when every element type of `tensor` can be viewed by Backplane.
bool has_backplane_dtype(const at::Tensor& tensor);

// The bp::Tensor viewing a PrivateUse1 tensor's memory. `what` names the tensor in errors
// ("argument 'other' of aten::add.Tensor").
Tensor backplane_view(const at::Tensor& tensor, const ValueName& what);

// A PrivateUse1 tensor sharing `tensor`'s storage, on privateuseone:`index`.
at::Tensor torch_tensor(const Tensor& tensor, c10::DeviceIndex index);

// Points `target` (a PrivateUse1 tensor) at `source`'s storage, sizes, strides and
// offset: how an `out=` tensor that Backplane had to reallocate takes the new memory.
void adopt(const at::Tensor& target, const Tensor& source, c10::DeviceIndex index);

}  // namespace bp::torch_bridge
