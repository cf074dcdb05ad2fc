// at <-> bp values (tensor_convert.hpp).
#include "tensor_convert.hpp"

#include "device_map.hpp"
#include "storage_bridge.hpp"

#include <backplane/core/error.hpp>

#include <c10/core/TensorImpl.h>
#include <c10/util/Exception.h>

namespace bp::torch_bridge {

std::ostream& operator<<(std::ostream& out, const ValueName& name) {
  if (name.op_.empty()) return out << name.text_;
  return out << "argument '" << name.text_ << "' of aten::" << name.op_;
}

std::string ValueName::str() const {
  return c10::str(*this);
}

namespace {

// Backplane's dtypes and PyTorch's, pair by pair: both directions read this one table.
struct DtypePair {
  c10::ScalarType torch;
  ScalarType backplane;
};
constexpr DtypePair kDtypes[] = {
    {c10::ScalarType::Bool, ScalarType::Bool},
    {c10::ScalarType::Char, ScalarType::Int8},
    {c10::ScalarType::Byte, ScalarType::UInt8},
    {c10::ScalarType::Short, ScalarType::Int16},
    {c10::ScalarType::Int, ScalarType::Int32},
    {c10::ScalarType::Long, ScalarType::Int64},
    {c10::ScalarType::Half, ScalarType::Float16},
    {c10::ScalarType::BFloat16, ScalarType::BFloat16},
    {c10::ScalarType::Float, ScalarType::Float32},
    {c10::ScalarType::Double, ScalarType::Float64},
};

}  // namespace

std::optional<ScalarType> backplane_dtype(c10::ScalarType type) {
  for (const DtypePair& pair : kDtypes)
    if (pair.torch == type) return pair.backplane;
  return std::nullopt;
}

c10::ScalarType torch_dtype(ScalarType type) {
  for (const DtypePair& pair : kDtypes)
    if (pair.backplane == type) return pair.torch;
  TORCH_CHECK(false, "backplane.torch: undefined Backplane dtype");
}

Scalar backplane_scalar(const c10::Scalar& value, const ValueName& what) {
  if (value.isBoolean()) return Scalar(value.toBool());
  if (value.isIntegral(/*includeBool=*/false)) return Scalar(value.toLong());
  if (value.isFloatingPoint()) return Scalar(value.toDouble());
  TORCH_CHECK(false, "backplane.torch: ", what, " is a ", value.type(),
              " scalar; Backplane takes bool, integer and floating scalars");
}

c10::Scalar torch_scalar(const Scalar& value) {
  if (value.is_bool()) return c10::Scalar(value.to_bool());
  if (value.is_integral()) return c10::Scalar(value.to_int());
  return c10::Scalar(value.to_double());
}

bool has_backplane_dtype(const at::Tensor& tensor) {
  return backplane_dtype(tensor.scalar_type()).has_value();
}

Tensor backplane_view(const at::Tensor& tensor, const ValueName& what) {
  TORCH_CHECK(tensor.device().type() == c10::DeviceType::PrivateUse1, "backplane.torch: ", what,
              " is on ", tensor.device().str(), ", not on a privateuseone device");
  const std::optional<ScalarType> dtype = backplane_dtype(tensor.scalar_type());
  TORCH_CHECK(dtype.has_value(), "backplane.torch: ", what, " has dtype ", tensor.scalar_type(),
              ", which Backplane does not support");
  const c10::Storage& storage = tensor.storage();
  const StoragePtr* block = backplane_storage(storage.data_ptr());
  TORCH_CHECK(block != nullptr, "backplane.torch: ", what,
              "'s memory was not allocated by Backplane (a tensor of another PrivateUse1 "
              "extension?)");
  const Device expected = backplane_device(tensor.device().index());
  TORCH_CHECK((*block)->device() == expected, "backplane.torch: ", what, " on ",
              tensor.device().str(), " holds memory of ", (*block)->device().str(),
              ", but that index now maps to ", expected.str(),
              " (backplane.torch.set_devices was called after the tensor was made)");
  const c10::IntArrayRef sizes = tensor.sizes();
  const c10::IntArrayRef strides = tensor.strides();
  return Tensor(*block, Shape(sizes.begin(), sizes.end()), Shape(strides.begin(), strides.end()),
                tensor.storage_offset(), *dtype);
}

at::Tensor torch_tensor(const Tensor& tensor, c10::DeviceIndex index) {
  const StoragePtr& block = tensor.storage();
  c10::Storage storage(c10::Storage::use_byte_size_t(), block->nbytes(), wrap_storage(block, index),
                       allocator(), /*resizable=*/true);
  at::Tensor out = at::detail::make_tensor<c10::TensorImpl>(
      std::move(storage), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
      caffe2::TypeMeta::fromScalarType(torch_dtype(tensor.dtype())));
  c10::TensorImpl* impl = out.unsafeGetTensorImpl();
  impl->set_sizes_and_strides(tensor.sizes(), tensor.strides());
  impl->set_storage_offset(tensor.storage_offset());
  return out;
}

void adopt(const at::Tensor& target, const Tensor& source, c10::DeviceIndex index) {
  const StoragePtr& block = source.storage();
  c10::TensorImpl* impl = target.unsafeGetTensorImpl();
  impl->set_storage_keep_dtype(c10::Storage(c10::Storage::use_byte_size_t(), block->nbytes(),
                                            wrap_storage(block, index), allocator(),
                                            /*resizable=*/true));
  impl->set_sizes_and_strides(source.sizes(), source.strides());
  impl->set_storage_offset(source.storage_offset());
}

}  // namespace bp::torch_bridge
