// StridedView: a kernel argument (bp_tensor) as plain fields, for kernels that address
// elements themselves: the first element's address, sizes and strides (in elements), dtype
// and element size. Unlike TensorArg it reads elements as any type of the element's size
// (indexing kernels move them as opaque words). Borrowed for the call; owns nothing.
// A typed kernel may take it as a parameter in place of TensorArg. Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

namespace bp::sdk {

struct StridedView {
  char* base = nullptr;  // the first element (data + byte_offset)
  int32_t ndim = 0;
  const int64_t* shape = nullptr;
  const int64_t* strides = nullptr;  // in elements
  bp_dtype dtype = BP_DTYPE_F32;
  size_t itemsize = 0;

  explicit StridedView(const bp_tensor* t)
      : base(static_cast<char*>(t->data) + t->byte_offset),
        ndim(t->ndim),
        shape(t->shape),
        strides(t->strides),
        dtype(t->dtype),
        itemsize(dtype_size(t->dtype)) {}
  // The same tensor, the other view of it (a kernel may take either).
  StridedView(const TensorArg& t) : StridedView(t.raw()) {}  // NOLINT(google-explicit-constructor)

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }
  // Row-major dense (size-1 dimensions may have any stride).
  bool is_contiguous() const {
    int64_t expected = 1;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      if (shape[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= shape[d];
    }
    return true;
  }
  // Offset in elements of a multi-index (ndim entries).
  int64_t offset_of(const int64_t* index) const {
    int64_t off = 0;
    for (int32_t d = 0; d < ndim; ++d) off += index[d] * strides[d];
    return off;
  }
  // The first element as T*, unchecked: T may be any type of itemsize bytes.
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(base);
  }
  template <typename T>
  T& at_offset(int64_t element_offset) const {
    return *reinterpret_cast<T*>(base + element_offset * static_cast<int64_t>(itemsize));
  }
  template <typename T>
  T& at(const int64_t* index) const {
    return at_offset<T>(offset_of(index));
  }
};

// The offset (in elements) of line `line` of a view along `dim`: the multi-index of the
// other dims, counted row-major, with dim at 0 (the sort and scatter kernels' lines).
inline int64_t line_offset(const StridedView& v, int64_t dim, int64_t line) {
  int64_t offset = 0;
  for (int32_t d = v.ndim - 1; d >= 0; --d) {
    if (d == dim) continue;
    offset += (line % v.shape[d]) * v.strides[d];
    line /= v.shape[d];
  }
  return offset;
}

// The element (a, b, c, d) of a 4-D view as T (the convolution and pooling loops' access).
template <typename T>
T& at4(const StridedView& v, int64_t a, int64_t b, int64_t c, int64_t d) {
  return v.at_offset<T>(a * v.strides[0] + b * v.strides[1] + c * v.strides[2] + d * v.strides[3]);
}

// "[2, 3]": a view's shape, for messages.
inline std::string shape_text(const StridedView& v) {
  std::string s = "[";
  for (int32_t d = 0; d < v.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
  return s + "]";
}

}  // namespace bp::sdk
