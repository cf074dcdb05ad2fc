// Tensor's constructor checks and its views. Every view computes new sizes, strides and an
// element offset over the same Storage and goes through the checking constructor, so a
// Tensor that exists always lies inside its storage. Semantics follow PyTorch's view ops
// (aten/src/ATen/native/TensorShape.cpp); nothing here touches element data.
#include "backplane/core/tensor.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace bp {
namespace {

// Checks that sizes/strides/offset describe elements inside `storage`. `op` names the
// caller in messages (the constructor, or as_strided).
void check_geometry(std::string_view op, const StoragePtr& storage, IntArrayRef sizes,
                    IntArrayRef strides, int64_t offset, ScalarType dtype) {
  BP_CHECK(storage != nullptr, ErrorCode::InvalidArgument, "{}: storage is null", op);
  BP_CHECK(is_valid(dtype), ErrorCode::Type, "{}: invalid dtype {}", op, dtype_name(dtype));
  BP_CHECK(sizes.size() == strides.size(), ErrorCode::InvalidArgument,
           "{}: sizes {} and strides {} differ in length", op, shape_str(sizes),
           shape_str(strides));
  const int64_t numel = checked_numel(sizes, op);
  for (size_t i = 0; i < strides.size(); ++i) {
    BP_CHECK(strides[i] >= 0, ErrorCode::InvalidArgument,
             "{}: stride {} at dim {} is negative (strides {})", op, strides[i], i,
             shape_str(strides));
  }
  BP_CHECK(offset >= 0, ErrorCode::InvalidArgument, "{}: storage offset {} is negative", op,
           offset);
  // As PyTorch, an empty view may point anywhere (x[3:, 4:] of a 3x4 tensor has offset 16);
  // it is never read.
  if (numel == 0) return;
  const auto elsize = static_cast<int64_t>(element_size(dtype));
  int64_t last = offset;  // index of the farthest element, in elements
  bool overflow = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(sizes[i] - 1, strides[i], &span);
    overflow |= __builtin_add_overflow(last, span, &last);
  }
  int64_t end_bytes = 0;
  overflow |= __builtin_add_overflow(last, int64_t{1}, &end_bytes);
  overflow |= __builtin_mul_overflow(end_bytes, elsize, &end_bytes);
  BP_CHECK(!overflow && static_cast<uint64_t>(end_bytes) <= storage->nbytes(),
           ErrorCode::InvalidArgument,
           "{}: sizes {}, strides {} and offset {} of {} reach byte {} but the storage has {} "
           "bytes",
           op, shape_str(sizes), shape_str(strides), offset, dtype_name(dtype),
           overflow ? std::string("beyond int64") : fmt::format("{}", end_bytes),
           storage->nbytes());
}

// size * stride, the stride a contiguous layout gives the dim outside one. Only an empty
// tensor (whose strides may be anything, see check_geometry) can overflow it, and there the
// stride is never used: saturate rather than overflow (undefined behaviour).
int64_t outer_stride(int64_t size, int64_t stride) {
  int64_t out = 0;
  return __builtin_mul_overflow(size, stride, &out) ? std::numeric_limits<int64_t>::max() : out;
}

// Resolves a -1 in a view/reshape shape against `numel` (PyTorch's infer_size).
Shape infer_size(IntArrayRef shape, int64_t numel, std::string_view op) {
  Shape out(shape.begin(), shape.end());
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      BP_CHECK(!infer, ErrorCode::InvalidArgument,
               "{}: only one dimension can be inferred (-1) in shape {}", op, shape_str(shape));
      infer = i;
      continue;
    }
    BP_CHECK(shape[i] >= 0, ErrorCode::InvalidArgument, "{}: invalid size {} at dim {} of {}", op,
             shape[i], i, shape_str(shape));
  }
  if (infer) out[*infer] = 1;
  const int64_t known = checked_numel(as_ref(out), op);
  if (infer) {
    BP_CHECK(known != 0 || numel != 0, ErrorCode::InvalidArgument,
             "{}: cannot view a tensor of 0 elements as shape {}: the size of the -1 dim is "
             "ambiguous",
             op, shape_str(shape));
    BP_CHECK(known != 0 && numel % known == 0, ErrorCode::Shape,
             "{}: shape {} is invalid for a tensor of {} elements", op, shape_str(shape), numel);
    out[*infer] = numel / known;
  } else {
    BP_CHECK(numel == known, ErrorCode::Shape,
             "{}: shape {} is invalid for a tensor of {} elements", op, shape_str(shape), numel);
  }
  return out;
}

// Strides that let `new_shape` view the elements of (old_shape, old_strides) in row-major
// order without a copy, or nullopt (PyTorch's computeStride). The old dims split into
// chunks that are each contiguous in memory (each dim's stride = the next dim's stride *
// size); a view is possible when every new dim falls inside one chunk.
std::optional<Shape> compute_view_strides(IntArrayRef old_shape, IntArrayRef old_strides,
                                          IntArrayRef new_shape, int64_t numel) {
  if (old_shape.empty()) return Shape(new_shape.size(), 1);
  if (numel == 0) {
    if (std::equal(old_shape.begin(), old_shape.end(), new_shape.begin(), new_shape.end())) {
      return Shape(old_strides.begin(), old_strides.end());
    }
    return contiguous_strides(new_shape);
  }
  Shape new_strides(new_shape.size());
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_stride = old_strides.back();  // stride of the innermost dim of the chunk
  int64_t chunk_numel = 1;
  int64_t view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    chunk_numel *= old_shape[d];
    const bool chunk_ends =
        d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != chunk_numel * chunk_stride);
    if (!chunk_ends) continue;
    // Give the new dims that fit in this chunk their strides (size-1 dims ride along).
    while (view_d >= 0 && (view_numel < chunk_numel || new_shape[view_d] == 1)) {
      new_strides[view_d] = view_numel * chunk_stride;
      view_numel *= new_shape[view_d];
      --view_d;
    }
    if (view_numel != chunk_numel) return std::nullopt;
    if (d > 0) {
      chunk_stride = old_strides[d - 1];
      chunk_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

}  // namespace

void Tensor::set_call_head(bool zero_stride, bool contiguous) {
  // Only defined tensors come here (the constructor and set_contiguous check the storage),
  // so the dtype is valid.
  const Device device = storage_->device();
  call_head_ = TensorCallHead{storage_->data(),
                              static_cast<uint64_t>(offset_) * bp::element_size(dtype_),
                              device.type,
                              device.index,
                              static_cast<uint8_t>(dtype_),
                              static_cast<int32_t>(sizes_.size())};
  fast_key_ = static_cast<uint32_t>(dtype_) << 1 | (wrapped_number_ ? kKeyWrapped : 0u) |
              (sizes_.empty() ? kKeyZeroDim : 0u) | (numel_ == 0 ? kKeyEmpty : 0u) |
              (zero_stride ? kKeyZeroStride : 0u) | (contiguous ? kKeyContiguous : 0u);
}

Tensor::Tensor(StoragePtr storage, Shape sizes, Shape strides, int64_t storage_offset,
               ScalarType dtype)
    : storage_(std::move(storage)),
      sizes_(std::move(sizes)),
      strides_(std::move(strides)),
      offset_(storage_offset),
      dtype_(dtype) {
  check_geometry("Tensor", storage_, as_ref(sizes_), as_ref(strides_), offset_, dtype_);
  recompute_numel();
  refresh_call_head();
}

Tensor Tensor::contiguous_over(StoragePtr storage, IntArrayRef sizes, ScalarType dtype) {
  Tensor t;
  t.set_contiguous(std::move(storage), sizes, dtype);
  return t;
}

void Tensor::finish_contiguous(const int64_t* sizes, size_t n, int64_t numel, ScalarType dtype) {
  // Every element is written below: default_init skips the zero fill (a memset call). One
  // loop writes both (an assign of the sizes calls memmove).
  sizes_.resize(n, boost::container::default_init);
  strides_.resize(n, boost::container::default_init);
  // Dense strides, innermost first; a size-0 dim does not zero the strides before it (as
  // contiguous_strides and PyTorch). They can only overflow for an empty tensor, whose
  // strides are never used: wrapping arithmetic keeps that defined.
  uint64_t stride = 1;
  bool zero_stride = false;
  int64_t* out_sizes = sizes_.data();
  int64_t* strides = strides_.data();
  for (size_t i = n; i-- > 0;) {
    const int64_t size = sizes[i];  // read once: out_sizes may alias sizes
    out_sizes[i] = size;
    strides[i] = static_cast<int64_t>(stride);
    zero_stride |= stride == 0;
    stride *= static_cast<uint64_t>(std::max<int64_t>(size, 1));
  }
  offset_ = 0;
  numel_ = numel;
  dtype_ = dtype;
  wrapped_number_ = false;
  // refresh_call_head's work, but for the strides' scan, which the loop above did (this
  // runs on every allocating op).
  set_call_head(zero_stride, /*contiguous=*/true);
}

void Tensor::set_contiguous(StoragePtr storage, IntArrayRef sizes, ScalarType dtype) {
  BP_CHECK(storage != nullptr, ErrorCode::InvalidArgument, "Tensor: storage is null");
  const uint64_t elsize = bp::element_size(dtype);  // throws for an invalid dtype
  int64_t numel = 1;
  bool bad = false;
  for (const int64_t size : sizes) {
    bad |= size < 0;
    bad |= __builtin_mul_overflow(numel, size, &numel);
  }
  // Throws for negative sizes and overflow; a partial product may also overflow before a
  // size-0 dim empties the tensor, which is no error (checked_numel then returns 0).
  if (bad) [[unlikely]]
    numel = checked_numel(sizes, "Tensor");
  BP_CHECK(static_cast<uint64_t>(numel) <= storage->nbytes() / elsize, ErrorCode::InvalidArgument,
           "Tensor: {} elements of {} do not fit the storage's {} bytes", numel, dtype_name(dtype),
           storage->nbytes());
  // The checks have passed, so a refused call leaves the handle as it was (below, only a
  // shape of more than 6 dims allocates, and could throw std::bad_alloc).
  storage_ = std::move(storage);
  finish_contiguous(sizes.data(), sizes.size(), numel, dtype);
}

void Tensor::set_contiguous_like(StoragePtr storage, const Tensor& like, ScalarType dtype) {
  BP_CHECK(storage != nullptr, ErrorCode::InvalidArgument, "Tensor: storage is null");
  const uint64_t elsize = bp::element_size(dtype);  // throws for an invalid dtype
  const int64_t numel = like.numel_;
  // Element sizes are powers of two (never 0): a shift where set_contiguous divides.
  BP_CHECK(static_cast<uint64_t>(numel) <= storage->nbytes() >> __builtin_ctzll(elsize),
           ErrorCode::InvalidArgument,
           "Tensor: {} elements of {} do not fit the storage's {} bytes", numel, dtype_name(dtype),
           storage->nbytes());
  storage_ = std::move(storage);
  // (When `like` is this handle, its sizes are copied onto themselves.)
  finish_contiguous(like.sizes_.data(), like.sizes_.size(), numel, dtype);
}

void Tensor::recompute_numel() {
  numel_ = checked_numel(as_ref(sizes_));
}

void Tensor::refresh_call_head() {
  bool zero_stride = false;
  for (const int64_t stride : strides_) zero_stride |= stride == 0;
  set_call_head(zero_stride, bp::is_contiguous(as_ref(sizes_), as_ref(strides_)));
}

// Every accessor below that needs the storage says which call met an undefined tensor.
#define BP_CHECK_DEFINED(op) \
  BP_CHECK(defined(), ErrorCode::InvalidArgument, "{}: the tensor is undefined", op)

int64_t Tensor::size(int64_t d) const {
  BP_CHECK(dim() > 0, ErrorCode::InvalidArgument,
           "size: dim {} given but the tensor has no dimensions", d);
  return sizes_[static_cast<size_t>(wrap_dim(d, dim(), "size"))];
}

int64_t Tensor::stride(int64_t d) const {
  BP_CHECK(dim() > 0, ErrorCode::InvalidArgument,
           "stride: dim {} given but the tensor has no dimensions", d);
  return strides_[static_cast<size_t>(wrap_dim(d, dim(), "stride"))];
}

Device Tensor::device() const {
  BP_CHECK_DEFINED("device");
  return storage_->device();
}

bool Tensor::is_contiguous() const {
  return bp::is_contiguous(as_ref(sizes_), as_ref(strides_));
}

void* Tensor::data_ptr() const {
  BP_CHECK_DEFINED("data_ptr");
  // Integer arithmetic: an empty view's offset may lie past the allocation (see
  // check_geometry), where pointer arithmetic would be undefined.
  const auto base = reinterpret_cast<uintptr_t>(storage_->data());
  return reinterpret_cast<void*>(base + static_cast<uintptr_t>(offset_) * element_size());
}

std::optional<Tensor> Tensor::try_view(IntArrayRef shape, std::string_view op) const {
  BP_CHECK_DEFINED(op);
  Shape new_sizes = infer_size(shape, numel_, op);
  std::optional<Shape> new_strides =
      compute_view_strides(as_ref(sizes_), as_ref(strides_), as_ref(new_sizes), numel_);
  if (!new_strides) return std::nullopt;
  return Tensor(storage_, std::move(new_sizes), std::move(*new_strides), offset_, dtype_);
}

Tensor Tensor::view(IntArrayRef shape) const {
  std::optional<Tensor> v = try_view(shape);
  BP_CHECK(v.has_value(), ErrorCode::Shape,
           "view: shape {} cannot view a tensor of shape {} and strides {} without a copy (a "
           "new dim would span memory that is not contiguous); use bp::reshape, which copies "
           "when needed",
           shape_str(shape), shape_str(sizes_), shape_str(strides_));
  return std::move(*v);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  BP_CHECK_DEFINED("permute");
  BP_CHECK(static_cast<int64_t>(dims.size()) == dim(), ErrorCode::InvalidArgument,
           "permute: argument 'dims' {} has {} entries but the tensor has {} dims", shape_str(dims),
           dims.size(), dim());
  Shape new_sizes(dims.size());
  Shape new_strides(dims.size());
  Shape seen(dims.size(), 0);
  for (size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<size_t>(wrap_dim(dims[i], dim(), "permute", "dims"));
    BP_CHECK(!seen[d], ErrorCode::InvalidArgument,
             "permute: argument 'dims' {} is not a permutation: dim {} appears twice",
             shape_str(dims), d);
    seen[d] = 1;
    new_sizes[i] = sizes_[d];
    new_strides[i] = strides_[d];
  }
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_, dtype_);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  BP_CHECK_DEFINED("transpose");
  const auto d0 = static_cast<size_t>(wrap_dim(dim0, dim(), "transpose", "dim0"));
  const auto d1 = static_cast<size_t>(wrap_dim(dim1, dim(), "transpose", "dim1"));
  Shape new_sizes = sizes_;
  Shape new_strides = strides_;
  if (dim() > 0) {  // a 0-d tensor accepts dims 0/-1 and stays as it is
    std::swap(new_sizes[d0], new_sizes[d1]);
    std::swap(new_strides[d0], new_strides[d1]);
  }
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_, dtype_);
}

Tensor Tensor::t() const {
  BP_CHECK_DEFINED("t");
  BP_CHECK(dim() <= 2, ErrorCode::InvalidArgument,
           "t: expects a tensor with <= 2 dimensions, but self is {}-d (shape {}); use "
           "transpose(dim0, dim1)",
           dim(), shape_str(sizes_));
  return dim() == 2 ? transpose(0, 1) : transpose(0, 0);
}

Tensor Tensor::expand(IntArrayRef shape) const {
  BP_CHECK_DEFINED("expand");
  const auto ndim = static_cast<int64_t>(shape.size());
  BP_CHECK(ndim >= dim(), ErrorCode::Shape,
           "expand: the target shape {} has fewer dims than the tensor's shape {}",
           shape_str(shape), shape_str(sizes_));
  Shape new_sizes(shape.size());
  Shape new_strides(shape.size());
  for (int64_t i = ndim - 1; i >= 0; --i) {
    const int64_t src = dim() - (ndim - i);  // matching dim of self, < 0 for a new dim
    int64_t size = src >= 0 ? sizes_[src] : 1;
    // A new leading dim of size 1 gets the stride a contiguous layout would give it.
    int64_t stride = src >= 0
                         ? strides_[src]
                         : (i + 1 < ndim ? outer_stride(new_sizes[i + 1], new_strides[i + 1]) : 1);
    int64_t target = shape[i];
    if (target == -1) {
      BP_CHECK(src >= 0, ErrorCode::Shape,
               "expand: size -1 at dim {} of the target shape {} is not allowed in a new "
               "leading dim (tensor shape {})",
               i, shape_str(shape), shape_str(sizes_));
      target = size;
    }
    BP_CHECK(target >= 0, ErrorCode::InvalidArgument,
             "expand: the target shape {} has negative size {} at dim {}", shape_str(shape), target,
             i);
    if (size != target) {
      BP_CHECK(size == 1, ErrorCode::Shape,
               "expand: the tensor's shape {} cannot expand to {}: size {} at dim {} must "
               "match the target size {} (only size-1 dims stretch)",
               shape_str(sizes_), shape_str(shape), size, i, target);
      size = target;
      stride = 0;
    }
    new_sizes[i] = size;
    new_strides[i] = stride;
  }
  (void)checked_numel(as_ref(new_sizes), "expand");  // named here, not by the constructor
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_, dtype_);
}

Tensor Tensor::squeeze() const {
  BP_CHECK_DEFINED("squeeze");
  Shape new_sizes;
  Shape new_strides;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (sizes_[i] == 1) continue;
    new_sizes.push_back(sizes_[i]);
    new_strides.push_back(strides_[i]);
  }
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_, dtype_);
}

Tensor Tensor::squeeze(int64_t d) const {
  BP_CHECK_DEFINED("squeeze");
  const auto w = static_cast<size_t>(wrap_dim(d, dim(), "squeeze"));
  Shape new_sizes = sizes_;
  Shape new_strides = strides_;
  if (dim() > 0 && sizes_[w] == 1) {  // other sizes are left as they are, as PyTorch
    new_sizes.erase(new_sizes.begin() + static_cast<ptrdiff_t>(w));
    new_strides.erase(new_strides.begin() + static_cast<ptrdiff_t>(w));
  }
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_, dtype_);
}

Tensor Tensor::unsqueeze(int64_t d) const {
  BP_CHECK_DEFINED("unsqueeze");
  const auto w = static_cast<size_t>(wrap_dim(d, dim() + 1, "unsqueeze"));
  // The new size-1 dim gets the stride a contiguous layout would give it (as PyTorch).
  const int64_t stride = w < sizes_.size() ? outer_stride(sizes_[w], strides_[w]) : 1;
  Shape new_sizes = sizes_;
  Shape new_strides = strides_;
  new_sizes.insert(new_sizes.begin() + static_cast<ptrdiff_t>(w), 1);
  new_strides.insert(new_strides.begin() + static_cast<ptrdiff_t>(w), stride);
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_, dtype_);
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step) const {
  BP_CHECK_DEFINED("slice");
  BP_CHECK(dim() > 0, ErrorCode::InvalidArgument, "slice: cannot slice a 0-d tensor");
  const auto w = static_cast<size_t>(wrap_dim(d, dim(), "slice"));
  BP_CHECK(step > 0, ErrorCode::InvalidArgument, "slice: argument 'step' is {} but must be > 0",
           step);
  const int64_t size = sizes_[w];
  // Python's clamping: negative bounds count from the end, then clamp into [0, size].
  int64_t lo = start.value_or(0);
  int64_t hi = end.value_or(std::numeric_limits<int64_t>::max());
  if (lo < 0) lo += size;
  if (hi < 0) hi += size;
  lo = std::clamp<int64_t>(lo, 0, size);
  hi = std::clamp<int64_t>(hi, lo, size);
  const int64_t len = hi - lo;
  Shape new_sizes = sizes_;
  Shape new_strides = strides_;
  new_sizes[w] = len == 0 ? 0 : 1 + (len - 1) / step;
  int64_t stepped = 0;
  // A huge step can overflow the stride; then at most one element is kept and its
  // stride is never used.
  if (!__builtin_mul_overflow(strides_[w], step, &stepped)) new_strides[w] = stepped;
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset_ + lo * strides_[w],
                dtype_);
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  BP_CHECK_DEFINED("narrow");
  BP_CHECK(dim() > 0, ErrorCode::InvalidArgument, "narrow: cannot narrow a 0-d tensor");
  const auto w = static_cast<size_t>(wrap_dim(d, dim(), "narrow"));
  const int64_t size = sizes_[w];
  BP_CHECK(length >= 0, ErrorCode::InvalidArgument,
           "narrow: argument 'length' is {} but must be >= 0", length);
  BP_CHECK(start >= -size && start <= size, ErrorCode::Index,
           "narrow: argument 'start' is {} but must be in [{}, {}] for dim {} of size {}", start,
           -size, size, w, size);
  if (start < 0) start += size;
  BP_CHECK(length <= size - start, ErrorCode::Index,
           "narrow: start {} + length {} exceeds the size {} of dim {}", start, length, size, w);
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  BP_CHECK_DEFINED("select");
  BP_CHECK(dim() > 0, ErrorCode::InvalidArgument, "select: cannot select from a 0-d tensor");
  const auto w = static_cast<size_t>(wrap_dim(d, dim(), "select"));
  const int64_t size = sizes_[w];
  BP_CHECK(index >= -size && index < size, ErrorCode::Index,
           "select: argument 'index' is {} but must be in [{}, {}) for dim {} of size {}", index,
           -size, size, w, size);
  if (index < 0) index += size;
  const int64_t offset = offset_ + index * strides_[w];
  Shape new_sizes = sizes_;
  Shape new_strides = strides_;
  new_sizes.erase(new_sizes.begin() + static_cast<ptrdiff_t>(w));
  new_strides.erase(new_strides.begin() + static_cast<ptrdiff_t>(w));
  return Tensor(storage_, std::move(new_sizes), std::move(new_strides), offset, dtype_);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  BP_CHECK_DEFINED("flatten");
  if (dim() == 0) {
    wrap_dim(start_dim, 0, "flatten", "start_dim");
    wrap_dim(end_dim, 0, "flatten", "end_dim");
    return Tensor(storage_, Shape{1}, Shape{1}, offset_, dtype_);
  }
  const int64_t s = wrap_dim(start_dim, dim(), "flatten", "start_dim");
  const int64_t e = wrap_dim(end_dim, dim(), "flatten", "end_dim");
  BP_CHECK(s <= e, ErrorCode::InvalidArgument,
           "flatten: start_dim {} comes after end_dim {} (a {}-d tensor)", s, e, dim());
  Shape shape;
  for (int64_t i = 0; i < dim(); ++i) {
    if (i <= s || i > e) {
      shape.push_back(sizes_[i]);
    } else {
      // Sizes after a 0 may still overflow when multiplied together.
      BP_CHECK(!__builtin_mul_overflow(shape.back(), sizes_[i], &shape.back()),
               ErrorCode::InvalidArgument,
               "flatten: merging dims {}..{} of shape {} overflows int64", s, e, shape_str(sizes_));
    }
  }
  std::optional<Tensor> v = try_view(as_ref(shape));
  BP_CHECK(v.has_value(), ErrorCode::Shape,
           "flatten: dims {}..{} of a tensor of shape {} and strides {} cannot be merged "
           "without a copy; use bp::reshape, which copies when needed",
           s, e, shape_str(sizes_), shape_str(strides_));
  return std::move(*v);
}

Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides,
                          std::optional<int64_t> storage_offset) const {
  BP_CHECK_DEFINED("as_strided");
  const int64_t offset = storage_offset.value_or(offset_);
  check_geometry("as_strided", storage_, sizes, strides, offset, dtype_);
  return Tensor(storage_, Shape(sizes.begin(), sizes.end()), Shape(strides.begin(), strides.end()),
                offset, dtype_);
}

bool Tensor::is_same(const Tensor& other) const {
  return storage_ == other.storage_ && sizes_ == other.sizes_ && strides_ == other.strides_ &&
         offset_ == other.offset_ && dtype_ == other.dtype_;
}

std::string Tensor::meta_str() const {
  if (!defined()) return "Tensor[undefined]";
  return fmt::format("Tensor[{}, {}, {}]", dtype_name(dtype_), shape_str(as_ref(sizes_)),
                     device().str());
}

}  // namespace bp
