// DLPack export and import (dlpack.hpp). The exported DLManagedTensor owns a copy of the
// Tensor handle (keeping the storage alive) and the shape/stride arrays it points to.
#include "backplane/dlpack.hpp"

#include "runtime_impl.hpp"
#include "storage_pool.hpp"

#include "backplane/core/error.hpp"
#include "backplane/tensor_api.hpp"

#include <dlpack/dlpack.h>

#include <cstring>
#include <limits>
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

// What a DLPack view spans from its first element: elements, and bytes from `data` (the
// byte offset included).
struct Span {
  int64_t elements = 0;
  int64_t bytes = 0;
};

// The span of a view; negative strides and spans int64 cannot count are errors. Overflow
// checks: sizes and strides come from outside.
Span spanned(const DLTensor& dl, const Shape& sizes, const Shape& strides, int64_t numel,
             int64_t elsize) {
  int64_t extent = numel == 0 ? 0 : 1;  // elements spanned from the first one
  bool overflow = false;
  for (int32_t d = 0; d < dl.ndim; ++d) {
    const int64_t stride = strides[static_cast<size_t>(d)];
    BP_CHECK(stride >= 0, ErrorCode::InvalidArgument,
             "from_dlpack: negative stride {} in dim {} is not supported", stride, d);
    int64_t span = 0;
    if (numel) {
      overflow |= __builtin_mul_overflow(sizes[static_cast<size_t>(d)] - 1, stride, &span);
      overflow |= __builtin_add_overflow(extent, span, &extent);
    }
  }
  int64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(extent, elsize, &nbytes);
  overflow |= dl.byte_offset > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
              __builtin_add_overflow(nbytes, static_cast<int64_t>(dl.byte_offset), &nbytes);
  BP_CHECK(!overflow, ErrorCode::InvalidArgument,
           "from_dlpack: shape {}, strides {} and byte_offset {} span more bytes than int64 "
           "can count",
           shape_str(as_ref(sizes)), shape_str(as_ref(strides)), dl.byte_offset);
  return {extent, nbytes};
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
  // Read as the int32 it is in memory: a producer of another DLPack version (or a broken one)
  // may store a code the DLDeviceType enum of 0.6 has no enumerator for, and loading that
  // through the enum type is undefined behaviour (found by fuzzing,
  // tests/fuzz/corpus/dlpack/regress-*).
  int32_t device_type = 0;
  static_assert(sizeof device_type == sizeof dl.device.device_type);
  std::memcpy(&device_type, &dl.device.device_type, sizeof device_type);
  BP_CHECK(device_type == kDLCPU, ErrorCode::Device,
           "from_dlpack: DLPack device type {} is not supported yet (only kDLCPU = 1)",
           device_type);
  BP_CHECK(dl.ndim >= 0 && (dl.ndim == 0 || dl.shape), ErrorCode::InvalidArgument,
           "from_dlpack: ndim {} with shape {}", dl.ndim, dl.shape ? "set" : "NULL");
  // Refused before the shape is read: a broken producer's ndim of 2^31 would have us copy
  // 16 GiB of "shape" (found by fuzzing, tests/fuzz/corpus/dlpack/regress-*). 64 is NumPy 2's
  // limit (NPY_MAXDIMS); no framework that exports DLPack makes more dims.
  constexpr int32_t kMaxDims = 64;
  BP_CHECK(dl.ndim <= kMaxDims, ErrorCode::InvalidArgument,
           "from_dlpack: ndim {} is more than the {} dims Backplane imports", dl.ndim, kMaxDims);
  const ScalarType dtype = from_dl_dtype(dl.dtype);
  Shape sizes(dl.shape, dl.shape + dl.ndim);
  Shape strides =
      dl.strides ? Shape(dl.strides, dl.strides + dl.ndim) : contiguous_strides(as_ref(sizes));
  const int64_t numel = checked_numel(as_ref(sizes), "from_dlpack");
  const auto elsize = static_cast<int64_t>(element_size(dtype));
  BP_CHECK(dl.byte_offset % static_cast<uint64_t>(elsize) == 0, ErrorCode::InvalidArgument,
           "from_dlpack: byte_offset {} is not a multiple of the element size {}", dl.byte_offset,
           elsize);
  // Checked here: once the DataPtr below holds the deleter, a throw would run it, and the
  // caller, told it keeps ownership on error, would release the tensor a second time (found
  // by fuzzing, tests/fuzz/corpus/dlpack/regress-*).
  const Span span = spanned(dl, sizes, strides, numel, elsize);
  const int64_t nbytes = span.bytes;
  BP_CHECK(dl.data != nullptr || span.elements == 0, ErrorCode::InvalidArgument,
           "from_dlpack: data is NULL for a tensor of {} elements", numel);
  const Device device = host_device();
  DataPtr data(dl.data, managed, [](void* ctx, void*) {
    auto* m = static_cast<DLManagedTensor*>(ctx);
    if (m->deleter) m->deleter(m);
  });
  auto storage = detail::make_storage(std::move(data), static_cast<size_t>(nbytes), device, true);
  return Tensor(std::move(storage), std::move(sizes), std::move(strides),
                static_cast<int64_t>(dl.byte_offset / elsize), dtype);
}

}  // namespace bp
