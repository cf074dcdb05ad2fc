// Tensor creation, transfer between devices and dtypes, and reading values back
// (tensor_api.hpp). Transfers between devices go through the plugins' device APIs, staging
// through host memory when neither side is host-accessible.
#include "backplane/tensor_api.hpp"

#include "calls_in_flight.hpp"
#include "runtime_impl.hpp"
#include "storage_pool.hpp"

#include "backplane/core/error.hpp"
#include "backplane/ops.hpp"

#include <cstring>
#include <vector>

namespace bp {

Device default_device() {
  return detail::Runtime::get().default_device();
}

namespace {

// empty, full, zeros and ones share one body; `op` is the function the user called, so
// that a bad size is reported as theirs ("zeros: shape [-1] has negative size ...").
Tensor empty_as(std::string_view op, IntArrayRef sizes, ScalarType dtype,
                std::optional<Device> device) {
  BP_CHECK(is_valid(dtype), ErrorCode::Type, "{}: invalid dtype code {}", op,
           static_cast<int>(dtype));
  const Device dev = device ? *device : default_device();
  const int64_t numel = checked_numel(sizes, op);
  const size_t elsize = element_size(dtype);
  BP_CHECK(numel <= static_cast<int64_t>(INT64_MAX / static_cast<int64_t>(elsize)),
           ErrorCode::OutOfMemory, "{}: {} elements of {} overflow the addressable size", op, numel,
           dtype_name(dtype));
  const size_t nbytes = static_cast<size_t>(numel) * elsize;
  detail::Backend& b = detail::Runtime::get().backend_for(dev, op);
  DataPtr data = b.allocators[static_cast<size_t>(dev.index)]->allocate(nbytes);
  auto storage = detail::make_storage(std::move(data), nbytes, dev, b.host_accessible(dev.index));
  return Tensor::contiguous_over(std::move(storage), sizes, dtype);
}

Tensor full_as(std::string_view op, IntArrayRef sizes, Scalar value, ScalarType dtype,
               std::optional<Device> device) {
  Tensor t = empty_as(op, sizes, dtype, device);
  fill_(t, value);
  return t;
}

}  // namespace

Tensor empty(IntArrayRef sizes, ScalarType dtype, std::optional<Device> device) {
  return empty_as("empty", sizes, dtype, device);
}

Tensor full(IntArrayRef sizes, Scalar value, ScalarType dtype, std::optional<Device> device) {
  return full_as("full", sizes, value, dtype, device);
}

Tensor zeros(IntArrayRef sizes, ScalarType dtype, std::optional<Device> device) {
  return full_as("zeros", sizes, Scalar(int64_t{0}), dtype, device);
}

Tensor ones(IntArrayRef sizes, ScalarType dtype, std::optional<Device> device) {
  return full_as("ones", sizes, Scalar(int64_t{1}), dtype, device);
}

Tensor scalar_tensor(Scalar value, ScalarType dtype, std::optional<Device> device,
                     bool wrapped_number) {
  Tensor t = full({}, value, dtype, device);
  t.set_wrapped_number(wrapped_number);
  return t;
}

namespace detail {

void transfer(const Tensor& dst, const Tensor& src, size_t bytes) {
  if (bytes == 0) return;
  detail::PluginCallScope in_flight;  // Note [Waiting for calls in flight]
  detail::Runtime& rt = detail::Runtime::get();
  const Device sd = src.device(), dd = dst.device();
  detail::Backend& sb = rt.backend_for(sd);
  detail::Backend& db = rt.backend_for(dd);
  void* dptr = dst.data_ptr();
  const void* sptr = src.data_ptr();
  auto check = [&](bp_status s, std::string_view what) {
    if (s != BP_OK) detail::throw_status(s, what);
  };
  if (sb.host_accessible(sd.index) && db.host_accessible(dd.index)) {
    std::memcpy(dptr, sptr, bytes);
  } else if (sd == dd) {
    check(sb.api->copy(sb.ctx, sd.index, BP_COPY_DEVICE_TO_DEVICE, dptr, sptr, bytes, nullptr),
          "device copy on " + sd.str());
  } else if (sb.host_accessible(sd.index)) {
    check(db.api->copy(db.ctx, dd.index, BP_COPY_HOST_TO_DEVICE, dptr, sptr, bytes, nullptr),
          "host-to-device copy to " + dd.str());
  } else if (db.host_accessible(dd.index)) {
    check(sb.api->copy(sb.ctx, sd.index, BP_COPY_DEVICE_TO_HOST, dptr, sptr, bytes, nullptr),
          "device-to-host copy from " + sd.str());
    if (sb.api->synchronize)
      check(sb.api->synchronize(sb.ctx, sd.index, nullptr), "synchronize " + sd.str());
  } else {
    std::vector<unsigned char> staging(bytes);
    check(sb.api->copy(sb.ctx, sd.index, BP_COPY_DEVICE_TO_HOST, staging.data(), sptr, bytes,
                       nullptr),
          "device-to-host copy from " + sd.str());
    if (sb.api->synchronize)
      check(sb.api->synchronize(sb.ctx, sd.index, nullptr), "synchronize " + sd.str());
    check(db.api->copy(db.ctx, dd.index, BP_COPY_HOST_TO_DEVICE, dptr, staging.data(), bytes,
                       nullptr),
          "host-to-device copy to " + dd.str());
    if (db.api->synchronize)
      check(db.api->synchronize(db.ctx, dd.index, nullptr), "synchronize " + dd.str());
  }
}

void check_value_count(size_t count, IntArrayRef shape, std::string_view op) {
  const int64_t n = checked_numel(shape, op);
  BP_CHECK(static_cast<uint64_t>(n) == count, ErrorCode::Shape,
           "{}: {} values given for shape {}, which has {} elements", op, count, shape_str(shape),
           n);
}
}  // namespace detail

Tensor from_data(const void* data, ScalarType dtype, IntArrayRef shape,
                 std::optional<Device> device) {
  Tensor t = empty(shape, dtype, device);
  const size_t bytes = t.nbytes();
  if (bytes == 0) return t;
  BP_CHECK(data != nullptr, ErrorCode::InvalidArgument, "from_data: data is NULL");
  detail::PluginCallScope in_flight;  // Note [Waiting for calls in flight]
  detail::Backend& b = detail::Runtime::get().backend_for(t.device());
  if (b.host_accessible(t.device().index)) {
    std::memcpy(t.data_ptr(), data, bytes);
  } else {
    bp_status s = b.api->copy(b.ctx, t.device().index, BP_COPY_HOST_TO_DEVICE, t.data_ptr(), data,
                              bytes, nullptr);
    if (s == BP_OK && b.api->synchronize) s = b.api->synchronize(b.ctx, t.device().index, nullptr);
    if (s != BP_OK) detail::throw_status(s, "host-to-device copy to " + t.device().str());
  }
  return t;
}

void copy_to_host(const Tensor& t, void* out, ScalarType dtype) {
  // Nothing to copy, and no kernel needed: an empty view need not be contiguous, and making
  // it so would ask the device for a copy_ kernel it may not have.
  if (t.numel() == 0) return;
  Tensor c = contiguous(to(t, dtype));
  const size_t bytes = c.nbytes();
  if (bytes == 0) return;
  detail::PluginCallScope in_flight;  // Note [Waiting for calls in flight]
  detail::Backend& b = detail::Runtime::get().backend_for(c.device());
  if (b.host_accessible(c.device().index)) {
    std::memcpy(out, c.data_ptr(), bytes);
    return;
  }
  bp_status s = b.api->copy(b.ctx, c.device().index, BP_COPY_DEVICE_TO_HOST, out, c.data_ptr(),
                            bytes, nullptr);
  if (s == BP_OK && b.api->synchronize) s = b.api->synchronize(b.ctx, c.device().index, nullptr);
  if (s != BP_OK) detail::throw_status(s, "device-to-host copy from " + c.device().str());
}

Scalar item(const Tensor& t) {
  BP_CHECK(t.numel() == 1, ErrorCode::InvalidArgument,
           "item: a tensor with {} elements cannot be converted to a Scalar", t.numel());
  if (is_floating(t.dtype())) return Scalar(to_vector<double>(t)[0]);
  if (t.dtype() == ScalarType::Bool) return Scalar(to_vector<bool>(t)[0]);
  return Scalar(to_vector<int64_t>(t)[0]);
}

Tensor contiguous(const Tensor& t) {
  if (t.is_contiguous()) return t;
  return clone(t);
}

Tensor clone(const Tensor& t) {
  Tensor out = empty(as_ref(t.sizes()), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor to(const Tensor& t, Device device) {
  if (t.device() == device) return t;
  Tensor src = contiguous(t);
  Tensor out = empty(as_ref(t.sizes()), t.dtype(), device);
  detail::transfer(out, src, src.nbytes());
  return out;
}

Tensor to(const Tensor& t, ScalarType dtype) {
  if (t.dtype() == dtype) return t;
  Tensor out = empty(as_ref(t.sizes()), dtype, t.device());
  copy_(out, t);
  return out;
}

Tensor reshape(const Tensor& t, IntArrayRef shape) {
  if (auto v = t.try_view(shape, "reshape")) return *v;
  return contiguous(t).view(shape);
}

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
  if (t.dim() == 0) return reshape(t, {1});
  const int64_t s = wrap_dim(start_dim, t.dim(), "flatten", "start_dim");
  const int64_t e = wrap_dim(end_dim, t.dim(), "flatten", "end_dim");
  BP_CHECK(s <= e, ErrorCode::InvalidArgument,
           "flatten: start_dim ({}) cannot come after end_dim ({})", start_dim, end_dim);
  Shape shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(t.size(d));
  int64_t merged = 1;
  // Sizes after a 0 may still overflow when multiplied together (the tensor is empty).
  for (int64_t d = s; d <= e; ++d)
    BP_CHECK(!__builtin_mul_overflow(merged, t.size(d), &merged), ErrorCode::InvalidArgument,
             "flatten: merging dims {}..{} of shape {} overflows int64", s, e,
             shape_str(as_ref(t.sizes())));
  shape.push_back(merged);
  for (int64_t d = e + 1; d < t.dim(); ++d) shape.push_back(t.size(d));
  return reshape(t, shape);
}

}  // namespace bp
