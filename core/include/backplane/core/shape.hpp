// Shapes and strides: small vectors with inline storage for up to 6 dims (no heap
// allocation for the common case), plus the helpers every meta rule uses: dim wrapping,
// element counts with overflow checks, contiguous strides and broadcasting.
// Pure functions over plain values: thread-safe.
#pragma once

// Included before the Shape alias on purpose: g++ 12 -Wshadow flags the enumerator
// ErrorCode::Shape when it is declared after bp::Shape.
#include "backplane/core/error.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

using Shape = boost::container::small_vector<int64_t, 6>;

// A borrowed list of ints (sizes, strides, dims): a std::span that also converts from a
// Shape, a std::vector and a braced list, so bp::zeros({2, 3}) and bp::zeros(t.sizes())
// both work. A braced list lives until the end of the full expression.
class IntArrayRef : public std::span<const int64_t> {
 public:
  using std::span<const int64_t>::span;
  IntArrayRef(std::span<const int64_t> s) : std::span<const int64_t>(s) {}
  IntArrayRef(const Shape& s) : std::span<const int64_t>(s.data(), s.size()) {}
  IntArrayRef(const std::vector<int64_t>& v) : std::span<const int64_t>(v.data(), v.size()) {}
  IntArrayRef(std::initializer_list<int64_t> l) : std::span<const int64_t>(l.begin(), l.size()) {}
};

inline IntArrayRef as_ref(const Shape& s) {
  return {s.data(), s.size()};
}

// "[2, 3, 4]"
std::string shape_str(IntArrayRef shape);
// Shape does not convert to std::span implicitly (its iterators are not raw pointers).
inline std::string shape_str(const Shape& shape) {
  return shape_str(as_ref(shape));
}

// Wraps a possibly negative dim into [0, ndim). A 0-d tensor accepts dims -1 and 0 (as
// PyTorch). Throws bp::Error naming the op, the argument and the valid range.
int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op = {}, std::string_view arg = "dim");

// Product of sizes; throws bp::Error on negative sizes or int64 overflow.
int64_t checked_numel(IntArrayRef shape, std::string_view op = {});

Shape contiguous_strides(IntArrayRef shape);
bool is_contiguous(IntArrayRef shape, IntArrayRef strides);

// Broadcast two shapes (numpy rules). Throws bp::Error(Shape) naming both shapes.
Shape broadcast_shapes(IntArrayRef a, IntArrayRef b, std::string_view op = {});

}  // namespace bp
