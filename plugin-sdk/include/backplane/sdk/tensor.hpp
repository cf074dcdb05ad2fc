// TensorArg: a typed, read-only handle on a bp_tensor that a kernel received (borrowed for
// the call). Sizes and strides are in elements; strides may be 0 (broadcast) or anything
// else a view produces, so kernels either handle strides or take the contiguous fast path
// when is_contiguous(). Also for_each_index(), the plain strided loop a first kernel needs.
// Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/error.hpp>

#include <cstdint>
#include <span>
#include <string>

namespace bp::sdk {

class TensorArg {
 public:
  explicit TensorArg(const bp_tensor* t) : t_(t) {}

  const bp_tensor* raw() const { return t_; }
  bp_dtype dtype() const { return t_->dtype; }
  int32_t dim() const { return t_->ndim; }
  int32_t device_index() const { return t_->device_index; }
  std::span<const int64_t> sizes() const { return {t_->shape, static_cast<size_t>(t_->ndim)}; }
  std::span<const int64_t> strides() const { return {t_->strides, static_cast<size_t>(t_->ndim)}; }
  int64_t size(int32_t d) const { return t_->shape[d]; }
  int64_t stride(int32_t d) const { return t_->strides[d]; }

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < t_->ndim; ++d) n *= t_->shape[d];
    return n;
  }
  // Row-major dense (size-1 dimensions may have any stride).
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int32_t d = t_->ndim - 1; d >= 0; --d) {
      if (t_->shape[d] == 1) continue;
      if (t_->strides[d] != expected) return false;
      expected *= t_->shape[d];
    }
    return true;
  }

  // The first element (data + byte_offset), untyped.
  void* data() const { return static_cast<char*>(t_->data) + t_->byte_offset; }
  // The first element as T*; throws when T is not the tensor's element type.
  template <typename T>
  T* data_as() const {
    if (dtype_of<T>() != t_->dtype)
      throw Error(BP_ERR_INTERNAL, std::string("tensor holds ") + dtype_name(t_->dtype) +
                                       ", the kernel reads it as " + dtype_name(dtype_of<T>()));
    return static_cast<T*>(data());
  }
  // Offset in elements of a multi-index (dim() entries).
  int64_t offset_of(const int64_t* index) const {
    int64_t off = 0;
    for (int32_t d = 0; d < t_->ndim; ++d) off += index[d] * t_->strides[d];
    return off;
  }

 private:
  const bp_tensor* t_;
};

// Calls f(index) for every multi-index of `sizes` in row-major order: once for a 0-d shape,
// never when a size is 0. `index` points at sizes.size() entries.
template <typename F>
void for_each_index(std::span<const int64_t> sizes, F&& f) {
  constexpr size_t kMaxDims = 64;
  if (sizes.size() > kMaxDims) throw Error(BP_ERR_INVALID_ARGUMENT, "more than 64 dimensions");
  for (int64_t s : sizes)
    if (s == 0) return;
  int64_t index[kMaxDims] = {};
  const auto ndim = static_cast<int64_t>(sizes.size());
  while (true) {
    f(static_cast<const int64_t*>(index));
    int64_t d = ndim - 1;
    for (; d >= 0; --d) {
      if (++index[d] < sizes[static_cast<size_t>(d)]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// out[i] = f(in[i]...) for tensors of one element type T and the shape of `out` (the
// runtime hands elementwise kernels inputs already broadcast to the output's shape).
// A contiguous fast path, else a strided loop. The simplest correct elementwise kernel:
//   sdk::map<float>(out, [](float a, float b) { return a + b; }, self, other);
template <typename T, typename F, typename... In>
void map(TensorArg out, F&& f, In... in) {
  T* o = out.data_as<T>();
  auto run = [&](const auto*... src) {
    if ((out.is_contiguous() && ... && in.is_contiguous())) {
      const int64_t n = out.numel();
      for (int64_t i = 0; i < n; ++i) o[i] = f(src[i]...);
      return;
    }
    for_each_index(out.sizes(), [&](const int64_t* idx) {
      o[out.offset_of(idx)] = f(src[in.offset_of(idx)]...);
    });
  };
  run(in.template data_as<T>()...);
}

}  // namespace bp::sdk
