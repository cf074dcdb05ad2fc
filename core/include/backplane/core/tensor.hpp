// Tensor: a handle to a strided view of a Storage. The handle owns its metadata (sizes,
// strides, element offset, dtype) by value and shares the storage: copying a Tensor is
// cheap and aliases the same data, like torch.Tensor. The views below only compute new
// metadata; nothing here reads or writes element data (that is the dispatcher's job:
// bp::contiguous, bp::reshape, bp::to, every op). Not thread-safe for concurrent mutation
// of one handle; distinct handles may be used from distinct threads.
#pragma once

#include "backplane/core/dtype.hpp"
#include "backplane/core/shape.hpp"
#include "backplane/core/storage.hpp"

#include <optional>
#include <string>

namespace bp {

// What a kernel call needs of a tensor besides its shape and strides, kept ready in the
// Tensor (Note [Tensor call head]). Field for field the plugin ABI's bp_tensor from `data`
// to `ndim` (backplane/plugin.h; core does not include it, dispatch/src/boxing.hpp checks
// the match), so the dispatcher copies it into a kernel's descriptor in one piece.
struct TensorCallHead {
  void* data = nullptr;      // the storage's data (the allocation's base)
  uint64_t byte_offset = 0;  // storage_offset() * element_size()
  uint32_t device_type = 0;
  int32_t device_index = 0;
  uint8_t dtype = 0;
  int32_t ndim = 0;
};

class Tensor {
 public:
  Tensor() = default;  // undefined
  Tensor(StoragePtr storage, Shape sizes, Shape strides, int64_t storage_offset, ScalarType dtype);
  // A contiguous tensor over the start of `storage` (what bp::empty returns). Checks only
  // what a fresh allocation can get wrong (sizes, dtype, the storage's size), which costs a
  // fraction of the general constructor's geometry check: small-op latency pays for it.
  static Tensor contiguous_over(StoragePtr storage, IntArrayRef sizes, ScalarType dtype);
  // Makes this handle what contiguous_over returns, in place (no Tensor is moved: the
  // dispatcher's allocating fast path fills its result this way). Other handles of the old
  // storage are unaffected. Throws as contiguous_over, leaving this handle unchanged.
  void set_contiguous(StoragePtr storage, IntArrayRef sizes, ScalarType dtype);
  // set_contiguous(storage, like.sizes(), dtype) for a defined `like` of the storage's
  // device: its element count is known to be valid, so only the storage's size is checked
  // (the elementwise fast path makes each result so, from its first input).
  void set_contiguous_like(StoragePtr storage, const Tensor& like, ScalarType dtype);

  bool defined() const { return storage_ != nullptr; }

  const Shape& sizes() const { return sizes_; }
  const Shape& strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t size(int64_t dim) const;    // negative dims wrap
  int64_t stride(int64_t dim) const;  // negative dims wrap
  int64_t numel() const { return numel_; }
  ScalarType dtype() const { return dtype_; }
  size_t element_size() const { return bp::element_size(dtype_); }
  size_t nbytes() const { return static_cast<size_t>(numel_) * element_size(); }
  Device device() const;
  int64_t storage_offset() const { return offset_; }  // in elements
  const StoragePtr& storage() const { return storage_; }
  bool is_contiguous() const;
  // Address of the first element (may be device memory; do not dereference unless
  // storage()->host_accessible()).
  void* data_ptr() const;

  // A 0-d tensor made from a Scalar argument: it takes part in type promotion as a Python
  // number would (lowest priority). Views of it are ordinary tensors.
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) {
    wrapped_number_ = v;
    fast_key_ = (fast_key_ & ~kKeyWrapped) | (v ? kKeyWrapped : 0u);
  }

  // Note [Tensor call head]
  // A small elementwise call costs a few hundred instructions (docs/performance.md), and
  // working out the same facts of each tensor on every call was a fifth of them. A Tensor
  // keeps them ready instead, refreshed wherever its metadata changes (the constructor,
  // set_contiguous, set_wrapped_number; a handle's metadata never changes otherwise):
  // call_head(), what a kernel's descriptor holds, and fast_key(), what the dispatcher's
  // elementwise fast path checks, in one word:
  //   bits 0-5  dtype << 1 | is_wrapped_number()  (the fast path's signature of a tensor)
  //   bit 6     0-d                  bit 8  some stride is 0 (an expanded tensor)
  //   bit 7     no elements          bit 9  contiguous (is_contiguous(): a dense kernel
  //                                         entry may take it, plugin.h's bp_dense_call)
  static constexpr uint32_t kKeyWrapped = 1u << 0;
  static constexpr uint32_t kKeySignature = 0x3fu;
  static constexpr uint32_t kKeyZeroDim = 1u << 6;
  static constexpr uint32_t kKeyEmpty = 1u << 7;
  static constexpr uint32_t kKeyZeroStride = 1u << 8;
  static constexpr uint32_t kKeyContiguous = 1u << 9;
  const TensorCallHead& call_head() const { return call_head_; }
  uint32_t fast_key() const { return fast_key_; }

  // ---- views: metadata only, sharing storage -------------------------------------------
  // New shape with the same elements; one size may be -1. Throws when the strides cannot
  // express it without a copy (use bp::reshape, which copies when needed).
  Tensor view(IntArrayRef shape) const;
  Tensor view(std::initializer_list<int64_t> shape) const {
    return view(IntArrayRef(shape.begin(), shape.size()));
  }
  // nullopt when the strides cannot express `shape` (a copy is needed); throws like view()
  // for a shape that is invalid for this tensor (wrong element count, two -1s); `op` names
  // the caller in those messages (bp::reshape passes "reshape").
  std::optional<Tensor> try_view(IntArrayRef shape, std::string_view op = "view") const;
  Tensor permute(IntArrayRef dims) const;
  Tensor permute(std::initializer_list<int64_t> dims) const {
    return permute(IntArrayRef(dims.begin(), dims.size()));
  }
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;  // 2-D transpose; 0-D and 1-D are returned as they are
  // Broadcast to `shape` (leading new dims; size-1 dims stretched with stride 0; -1 keeps
  // the size).
  Tensor expand(IntArrayRef shape) const;
  Tensor expand(std::initializer_list<int64_t> shape) const {
    return expand(IntArrayRef(shape.begin(), shape.size()));
  }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  // Python's t[start:end:step] along `dim`; start/end are clamped like Python slices and
  // may be negative; step must be positive.
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
               int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  // Merge dims start..end into one. A view; throws like view() when not expressible.
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  // Arbitrary metadata over the same storage; checked to stay inside the storage.
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;

  // Same storage, same metadata: whether two handles view the same elements.
  bool is_same(const Tensor& other) const;

  // "Tensor[f32, [2, 3], reference:0]" (no data: printing data is bp::to_string).
  std::string meta_str() const;

 private:
  void recompute_numel();
  // Recomputes call_head_ and fast_key_ from the rest (Note [Tensor call head]).
  void refresh_call_head();
  // The same, given whether some stride is 0 and whether the tensor is contiguous (a caller
  // that made the strides knows). Inline, defined and used in tensor.cpp only: set_contiguous
  // runs on every allocating op.
  [[gnu::always_inline]] inline void set_call_head(bool zero_stride, bool contiguous);
  // The rest of set_contiguous and set_contiguous_like once storage_ is set: the `n` sizes,
  // dense strides, the other fields and the call head.
  [[gnu::always_inline]] inline void finish_contiguous(const int64_t* sizes, size_t n,
                                                       int64_t numel, ScalarType dtype);

  StoragePtr storage_;
  Shape sizes_;
  Shape strides_;
  int64_t offset_ = 0;
  int64_t numel_ = 0;
  ScalarType dtype_ = ScalarType::Undefined;
  bool wrapped_number_ = false;
  uint32_t fast_key_ = 0;
  TensorCallHead call_head_;
};

using TensorList = std::vector<Tensor>;

}  // namespace bp
