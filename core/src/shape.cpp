// Shape helpers shared by the views and every meta rule: printing, dim wrapping, checked
// element counts, contiguity and broadcasting, with PyTorch's semantics.
#include "backplane/core/shape.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace bp {
namespace {

// "add.Tensor: " or "" so messages read the same with and without an op name.
std::string prefix(std::string_view op) {
  return op.empty() ? std::string() : fmt::format("{}: ", op);
}

}  // namespace

std::string shape_str(IntArrayRef shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op, std::string_view arg) {
  BP_CHECK(ndim >= 0, ErrorCode::Internal, "{}wrap_dim called with ndim {}", prefix(op), ndim);
  // A 0-d tensor behaves as 1-d for dim arguments (t.sum(0), t.sum(-1) work in PyTorch).
  const int64_t n = std::max<int64_t>(ndim, 1);
  BP_CHECK(dim >= -n && dim < n, ErrorCode::InvalidArgument,
           "{}argument '{}' is {} but must be in [{}, {}] for a {}-d tensor", prefix(op), arg, dim,
           -n, n - 1, ndim);
  return dim < 0 ? dim + n : dim;
}

int64_t checked_numel(IntArrayRef shape, std::string_view op) {
  for (size_t i = 0; i < shape.size(); ++i) {
    BP_CHECK(shape[i] >= 0, ErrorCode::InvalidArgument, "{}shape {} has negative size {} at dim {}",
             prefix(op), shape_str(shape), shape[i], i);
  }
  // An empty shape has no elements however large its other sizes are.
  if (std::find(shape.begin(), shape.end(), int64_t{0}) != shape.end()) return 0;
  int64_t n = 1;
  for (int64_t s : shape) {
    BP_CHECK(!__builtin_mul_overflow(n, s, &n), ErrorCode::InvalidArgument,
             "{}shape {} has more elements than int64 can count", prefix(op), shape_str(shape));
  }
  return n;
}

Shape contiguous_strides(IntArrayRef shape) {
  Shape strides(shape.size());
  // Unsigned, so wrapping is defined: the product overflows only for a shape whose element
  // count does not fit int64 (which callers refuse) or an empty one (whose strides are never
  // used), as in Tensor::set_contiguous. Signed overflow here was found by fuzzing
  // (tests/fuzz/corpus/dlpack/regress-*).
  uint64_t z = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = static_cast<int64_t>(z);
    // As PyTorch: a size-0 dim does not zero the strides of the dims before it.
    z *= static_cast<uint64_t>(std::max<int64_t>(shape[i], 1));
  }
  return strides;
}

bool is_contiguous(IntArrayRef shape, IntArrayRef strides) {
  BP_CHECK(shape.size() == strides.size(), ErrorCode::Internal,
           "is_contiguous: shape {} and strides {} differ in length", shape_str(shape),
           shape_str(strides));
  // Empty tensors are contiguous, and the stride of a size-1 dim is never used.
  if (std::find(shape.begin(), shape.end(), int64_t{0}) != shape.end()) return true;
  int64_t expected = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

Shape broadcast_shapes(IntArrayRef a, IntArrayRef b, std::string_view op) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    // Align from the right; missing leading dims are 1.
    const int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    BP_CHECK(sa == sb || sa == 1 || sb == 1, ErrorCode::Shape,
             "{}shape {} cannot broadcast with shape {}: size {} vs {} at dim {}", prefix(op),
             shape_str(a), shape_str(b), sa, sb, static_cast<int64_t>(i) - static_cast<int64_t>(n));
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

}  // namespace bp
