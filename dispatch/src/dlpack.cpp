// DLPack export and import (dlpack.hpp). The exported DLManagedTensor owns a copy of the
// Tensor handle (keeping the storage alive) and the shape/stride arrays it points to.
#include "backplane/dlpack.hpp"

#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"
#include "backplane/tensor_api.hpp"

#include <dlpack/dlpack.h>

#include <memory>

namespace bp {
namespace {

constexpr uint8_t kDLBoolCode = 6;  // kDLBool in DLPack >= 0.8

struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensor managed{};
};

DLDataType dl_dtype(ScalarType t) {
  const auto bits = static_cast<uint8_t>(element_size(t) * 8);
  switch (t) {
    case ScalarType::Bool:
      return {kDLBoolCode, 8, 1};
    case ScalarType::UInt8:
      return {kDLUInt, 8, 1};
    case ScalarType::BFloat16:
      return {kDLBfloat, 16, 1};
    default:
      return {static_cast<uint8_t>(is_floating(t) ? kDLFloat : kDLInt), bits, 1};
  }
}

// The inverse of dl_dtype: the one mapping lives there.
ScalarType from_dl_dtype(DLDataType d) {
  BP_CHECK(d.lanes == 1, ErrorCode::Type,
           "from_dlpack: vector dtypes (lanes = {}) are not supported", d.lanes);
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const DLDataType candidate = dl_dtype(static_cast<ScalarType>(i));
    if (candidate.code == d.code && candidate.bits == d.bits) return static_cast<ScalarType>(i);
  }
  BP_FAIL(ErrorCode::Type, "from_dlpack: dtype code {} with {} bits is not supported",
          static_cast<int>(d.code), static_cast<int>(d.bits));
}

// The host device DLPack CPU memory is imported onto.
Device host_device() {
  detail::Runtime& rt = detail::Runtime::get();
  for (DeviceType t : {device_types::CPU, device_types::Reference})
    if (detail::Backend* b = rt.backend(t); b && b->device_count > 0 && b->host_accessible(0))
      return Device(t, 0);
  BP_FAIL(ErrorCode::Device, "from_dlpack: no host device (cpu or reference) is loaded");
}

}  // namespace

DLManagedTensor* to_dlpack(const Tensor& t) {
  BP_CHECK(t.defined(), ErrorCode::InvalidArgument, "to_dlpack: the tensor is undefined");
  BP_CHECK(t.storage()->host_accessible(), ErrorCode::Device,
           "to_dlpack: only host-memory tensors can be exported yet (tensor is on {})",
           t.device().str());
  auto ctx = std::make_unique<ExportContext>();
  ctx->tensor = t;
  ctx->shape.assign(t.sizes().begin(), t.sizes().end());
  ctx->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& dl = ctx->managed.dl_tensor;
  dl.data = t.storage()->data();
  dl.byte_offset = static_cast<uint64_t>(t.storage_offset()) * t.element_size();
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(t.dim());
  dl.dtype = dl_dtype(t.dtype());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = [](DLManagedTensor* self) {
    delete static_cast<ExportContext*>(self->manager_ctx);
  };
  return &ctx.release()->managed;
}

Tensor from_dlpack(DLManagedTensor* managed) {
  BP_CHECK(managed != nullptr, ErrorCode::InvalidArgument, "from_dlpack: NULL tensor");
  const DLTensor& dl = managed->dl_tensor;
  BP_CHECK(dl.device.device_type == kDLCPU, ErrorCode::Device,
           "from_dlpack: DLPack device type {} is not supported yet (only kDLCPU = 1)",
           static_cast<int>(dl.device.device_type));
  BP_CHECK(dl.ndim >= 0 && (dl.ndim == 0 || dl.shape), ErrorCode::InvalidArgument,
           "from_dlpack: ndim {} with shape {}", dl.ndim, dl.shape ? "set" : "NULL");
  const ScalarType dtype = from_dl_dtype(dl.dtype);
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  Shape strides =
      dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(as_ref(sizes));
  const int64_t numel = checked_numel(as_ref(sizes), "from_dlpack");
  int64_t extent = numel == 0 ? 0 : 1;  // elements spanned from the first one
  for (int32_t d = 0; d < dl.ndim; ++d) {
    BP_CHECK(strides[static_cast<size_t>(d)] >= 0, ErrorCode::InvalidArgument,
             "from_dlpack: negative stride {} in dim {} is not supported",
             strides[static_cast<size_t>(d)], d);
    if (numel) extent += (sizes[static_cast<size_t>(d)] - 1) * strides[static_cast<size_t>(d)];
  }
  const size_t elsize = element_size(dtype);
  BP_CHECK(dl.byte_offset % elsize == 0, ErrorCode::InvalidArgument,
           "from_dlpack: byte_offset {} is not a multiple of the element size {}", dl.byte_offset,
           elsize);
  const Device device = host_device();
  const size_t nbytes = dl.byte_offset + static_cast<size_t>(extent) * elsize;
  DataPtr data(dl.data, managed, [](void* ctx, void*) {
    auto* m = static_cast<DLManagedTensor*>(ctx);
    if (m->deleter) m->deleter(m);
  });
  auto storage = std::make_shared<Storage>(std::move(data), nbytes, device, true);
  return Tensor(std::move(storage), std::move(sizes), std::move(strides),
                static_cast<int64_t>(dl.byte_offset / elsize), dtype);
}

}  // namespace bp
