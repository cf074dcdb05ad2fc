// The tensor basics every PrivateUse1 backend provides to PyTorch: allocation (empty,
// empty_strided), views (as_strided, view, _reshape_alias), resize_, copies between the
// host and the device and between devices (_copy_from, _copy_from_and_resize, copy_), fill_,
// zero_ and reading one element (_local_scalar_dense, behind .item() and print). The views
// are PyTorch's own metadata-only implementations; the rest call Backplane.
#include "device_map.hpp"
#include "storage_bridge.hpp"
#include "tensor_convert.hpp"
#include "torch_errors.hpp"

#include <backplane/backplane.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <ATen/EmptyTensor.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/view_native.h>
#include <c10/core/DeviceGuard.h>
#include <c10/core/SymIntArrayRef.h>
#include <torch/library.h>

namespace bp::torch_bridge {
namespace {

constexpr c10::DispatchKeySet kPrivateUse1Keys(c10::DispatchKey::PrivateUse1);

bool on_backplane(const at::Tensor& t) {
  return t.device().type() == c10::DeviceType::PrivateUse1;
}

c10::DeviceIndex index_of(const c10::optional<at::Device>& device) {
  if (!device || !device->has_index()) return current_index();
  TORCH_CHECK(device->type() == c10::DeviceType::PrivateUse1,
              "backplane.torch: a PrivateUse1 factory was given device ", device->str());
  return device->index();
}

void check_strided(const c10::optional<at::Layout>& layout, const char* op) {
  TORCH_CHECK(!layout || *layout == at::kStrided, "backplane.torch: aten::", op,
              " on privateuseone supports only the strided layout, not ", *layout);
}

at::Tensor empty_memory_format(c10::SymIntArrayRef size, c10::optional<at::ScalarType> dtype,
                               c10::optional<at::Layout> layout, c10::optional<at::Device> device,
                               c10::optional<bool> /*pin_memory*/,
                               c10::optional<at::MemoryFormat> memory_format) {
  check_strided(layout, "empty.memory_format");
  // The allocator allocates on the current index (device_guard.cpp's DeviceGuardImpl).
  const c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, index_of(device)));
  return with_torch_errors([&] {
    return at::Tensor(at::detail::empty_generic(c10::asIntArrayRefSlow(size), allocator(),
                                                kPrivateUse1Keys, c10::dtype_or_default(dtype),
                                                memory_format));
  });
}

at::Tensor empty_strided(c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                         c10::optional<at::ScalarType> dtype, c10::optional<at::Layout> layout,
                         c10::optional<at::Device> device, c10::optional<bool> /*pin_memory*/) {
  check_strided(layout, "empty_strided");
  // The allocator allocates on the current index (device_guard.cpp's DeviceGuardImpl).
  const c10::DeviceGuard guard(c10::Device(c10::DeviceType::PrivateUse1, index_of(device)));
  return with_torch_errors([&] {
    return at::Tensor(at::detail::empty_strided_generic(
        c10::asIntArrayRefSlow(size), c10::asIntArrayRefSlow(stride), allocator(), kPrivateUse1Keys,
        c10::dtype_or_default(dtype)));
  });
}

at::Tensor as_strided(const at::Tensor& self, c10::SymIntArrayRef size, c10::SymIntArrayRef stride,
                      c10::optional<c10::SymInt> storage_offset) {
  c10::optional<int64_t> offset;
  if (storage_offset) offset = storage_offset->expect_int();
  return at::native::as_strided_tensorimpl(self, c10::asIntArrayRefSlow(size),
                                           c10::asIntArrayRefSlow(stride), offset);
}

at::Tensor view(const at::Tensor& self, c10::SymIntArrayRef size) {
  return at::native::view(self, c10::asIntArrayRefSlow(size));
}

at::Tensor reshape_alias(const at::Tensor& self, c10::SymIntArrayRef size,
                         c10::SymIntArrayRef stride) {
  return at::native::_reshape_alias(self, c10::asIntArrayRefSlow(size),
                                    c10::asIntArrayRefSlow(stride));
}

// Grows `self`'s storage to `nbytes`, keeping its contents: a new caching-allocator block on
// the same device and a device-side copy of the old bytes.
void grow_storage(const at::Tensor& self, size_t nbytes) {
  const c10::DeviceIndex index = self.device().index();
  c10::StorageImpl* storage = self.storage().unsafeGetStorageImpl();
  TORCH_CHECK(storage->resizable(), "backplane.torch: aten::resize_: the storage of a ",
              self.device().str(), " tensor is not resizable");
  with_torch_errors([&] {
    Tensor block =
        bp::empty({static_cast<int64_t>(nbytes)}, ScalarType::UInt8, backplane_device(index));
    const StoragePtr* old = backplane_storage(storage->data_ptr());
    const auto old_bytes = static_cast<int64_t>(storage->nbytes());
    if (old != nullptr && old_bytes > 0) {
      Tensor old_view(*old, {old_bytes}, {1}, 0, ScalarType::UInt8);
      bp::call("copy_", {block.narrow(0, 0, old_bytes), old_view});
    }
    storage->set_data_ptr_noswap(wrap_storage(block.storage(), index));
    storage->set_nbytes(nbytes);
  });
}

const at::Tensor& resize(const at::Tensor& self, c10::SymIntArrayRef size,
                         c10::optional<at::MemoryFormat> memory_format) {
  TORCH_CHECK(!memory_format || *memory_format == at::MemoryFormat::Contiguous ||
                  *memory_format == at::MemoryFormat::Preserve,
              "backplane.torch: aten::resize_ on privateuseone supports only the contiguous "
              "memory format, not ",
              *memory_format);
  c10::TensorImpl* impl = self.unsafeGetTensorImpl();
  impl->set_sizes_contiguous(c10::asIntArrayRefSlow(size));
  const int64_t numel = impl->numel();
  const size_t needed =
      numel == 0 ? 0 : static_cast<size_t>(impl->storage_offset() + numel) * self.itemsize();
  if (needed > self.storage().nbytes()) grow_storage(self, needed);
  return self;
}

// dst <- src for every combination of host and device, strided, broadcasting and
// converting dtypes as copy_ does.
void copy_between(const at::Tensor& dst, const at::Tensor& src) {
  if (dst.numel() == 0) return;
  with_torch_errors([&] {
    if (on_backplane(dst) && on_backplane(src)) {
      const Tensor target = backplane_view(dst, "the destination of copy_");
      Tensor source = backplane_view(src, "the source of copy_");
      // Another Backplane device: its bytes move through the two device APIs first.
      if (source.device() != target.device()) source = bp::to(source, target.device());
      bp::call("copy_", {target, source});
    } else if (on_backplane(dst)) {
      TORCH_CHECK(src.is_cpu(), "backplane.torch: copy_ from ", src.device().str(), " to ",
                  dst.device().str(), " is not supported; copy through the CPU");
      TORCH_CHECK(has_backplane_dtype(dst), "backplane.torch: the destination of copy_ on ",
                  dst.device().str(), " has dtype ", dst.scalar_type(),
                  ", which Backplane does not support");
      // Element types Backplane lacks are converted on the host first.
      at::Tensor host = has_backplane_dtype(src) ? src : src.to(dst.scalar_type());
      host = host.contiguous();
      const Tensor staged =
          bp::from_data(host.data_ptr(), *backplane_dtype(host.scalar_type()),
                        backplane_shape(host.sizes()), backplane_device(dst.device().index()));
      bp::call("copy_", {backplane_view(dst, "the destination of copy_"), staged});
    } else {
      TORCH_CHECK(dst.is_cpu(), "backplane.torch: copy_ from ", src.device().str(), " to ",
                  dst.device().str(), " is not supported; copy through the CPU");
      const Tensor source = backplane_view(src, "the source of copy_");
      if (dst.is_contiguous() && dst.sizes() == src.sizes() && has_backplane_dtype(dst)) {
        bp::copy_to_host(source, dst.data_ptr(), *backplane_dtype(dst.scalar_type()));
      } else {
        at::Tensor staged = at::empty(src.sizes(), src.options().device(at::kCPU));
        bp::copy_to_host(source, staged.data_ptr(), *backplane_dtype(src.scalar_type()));
        dst.copy_(staged);
      }
    }
  });
}

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool /*non_blocking*/) {
  copy_between(dst, self);
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  if (dst.sizes() != self.sizes()) dst.resize_(self.sizes());
  copy_between(dst, self);
  return dst;
}

at::Tensor& copy(at::Tensor& self, const at::Tensor& src, bool /*non_blocking*/) {
  copy_between(self, src);
  return self;
}

at::Tensor& fill_scalar(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  with_torch_errors([&] {
    bp::call("fill_.Scalar", {backplane_view(self, "self of aten::fill_.Scalar"),
                              backplane_scalar(value, "value of aten::fill_.Scalar")});
  });
  return self;
}

at::Tensor& zero(at::Tensor& self) {
  return fill_scalar(self, 0);
}

at::Scalar local_scalar_dense(const at::Tensor& self) {
  return with_torch_errors(
      [&] { return torch_scalar(bp::item(backplane_view(self, "the tensor of .item()"))); });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(empty_memory_format));
  m.impl("empty_strided", TORCH_FN(empty_strided));
  m.impl("as_strided", TORCH_FN(as_strided));
  m.impl("view", TORCH_FN(view));
  m.impl("_reshape_alias", TORCH_FN(reshape_alias));
  m.impl("resize_", TORCH_FN(resize));
  m.impl("_copy_from", TORCH_FN(copy_from));
  m.impl("_copy_from_and_resize", TORCH_FN(copy_from_and_resize));
  m.impl("copy_", TORCH_FN(copy));
  m.impl("fill_.Scalar", TORCH_FN(fill_scalar));
  m.impl("zero_", TORCH_FN(zero));
  m.impl("_local_scalar_dense", TORCH_FN(local_scalar_dense));
}

}  // namespace bp::torch_bridge
