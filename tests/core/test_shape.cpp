// Tests for core/src/shape.cpp: shape_str, wrap_dim, checked_numel, strides, broadcasting.
#include "backplane/core/shape.hpp"

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <limits>
#include <vector>

namespace bp {
namespace {

using test::catch_error;
using test::contains;
using V = std::vector<int64_t>;

TEST_CASE("shape_str prints Python-list style") {
  CHECK(shape_str(V{2, 3, 4}) == "[2, 3, 4]");
  CHECK(shape_str(V{}) == "[]");
  CHECK(shape_str(Shape{7}) == "[7]");
}

TEST_CASE("wrap_dim wraps negative dims") {
  CHECK(wrap_dim(0, 3) == 0);
  CHECK(wrap_dim(2, 3) == 2);
  CHECK(wrap_dim(-1, 3) == 2);
  CHECK(wrap_dim(-3, 3) == 0);
}

TEST_CASE("wrap_dim on a 0-d tensor accepts -1 and 0 only") {
  CHECK(wrap_dim(0, 0) == 0);
  CHECK(wrap_dim(-1, 0) == 0);
  CHECK_THROWS_AS(wrap_dim(1, 0), Error);
  CHECK_THROWS_AS(wrap_dim(-2, 0), Error);
}

TEST_CASE("wrap_dim errors name the op, the argument and the valid range") {
  Error e = catch_error([] { wrap_dim(3, 2, "sum.dim_IntList"); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "sum.dim_IntList: argument 'dim' is 3 but must be in [-2, 1] for a 2-d tensor");
  e = catch_error([] { wrap_dim(-4, 3, "softmax.int", "dim"); });
  CHECK(contains(e.what(), "is -4 but must be in [-3, 2] for a 3-d tensor"));
  e = catch_error([] { wrap_dim(5, 1, {}, "start_dim"); });
  CHECK(std::string(e.what()) ==
        "argument 'start_dim' is 5 but must be in [-1, 0] for a 1-d tensor");
  CHECK(catch_error([] { wrap_dim(0, -1); }).code() == ErrorCode::Internal);
}

TEST_CASE("checked_numel multiplies sizes") {
  CHECK(checked_numel(V{}) == 1);
  CHECK(checked_numel(V{2, 3, 4}) == 24);
  CHECK(checked_numel(V{5, 0, 7}) == 0);
}

TEST_CASE("checked_numel rejects negative sizes and overflow") {
  Error e = catch_error([] { checked_numel(V{2, -1}, "empty"); });
  CHECK(contains(e.what(), "empty: shape [2, -1] has negative size -1 at dim 1"));
  const int64_t big = int64_t{1} << 32;
  e = catch_error([&] { checked_numel(V{big, big}); });
  CHECK(contains(e.what(), "more elements than int64"));
  CHECK(checked_numel(V{std::numeric_limits<int64_t>::max(), 1}) ==
        std::numeric_limits<int64_t>::max());
  // Zero elements however large the other sizes (torch.empty(0, 2**62, 2**62) works).
  CHECK(checked_numel(V{big, big, 0}) == 0);
}

TEST_CASE("contiguous_strides are row-major and treat size-0 dims as 1 like PyTorch") {
  CHECK(contiguous_strides(V{2, 3, 4}) == Shape{12, 4, 1});
  CHECK(contiguous_strides(V{}).empty());
  CHECK(contiguous_strides(V{2, 0, 3}) == Shape{3, 3, 1});  // torch.empty(2, 0, 3).stride()
  CHECK(contiguous_strides(V{5}) == Shape{1});
}

TEST_CASE("is_contiguous follows PyTorch") {
  CHECK(is_contiguous(V{2, 3}, V{3, 1}));
  CHECK_FALSE(is_contiguous(V{2, 3}, V{1, 2}));
  CHECK(is_contiguous(V{}, V{}));
  // Strides of size-1 dims are ignored.
  CHECK(is_contiguous(V{2, 1, 3}, V{3, 99, 1}));
  CHECK(is_contiguous(V{1, 1}, V{0, 0}));
  // Empty tensors are contiguous whatever their strides.
  CHECK(is_contiguous(V{2, 0, 3}, V{0, 7, 5}));
  // A broadcast (stride 0) dim of size > 1 is not.
  CHECK_FALSE(is_contiguous(V{4, 3}, V{0, 1}));
  // A sliced last dim is not.
  CHECK_FALSE(is_contiguous(V{3}, V{2}));
  CHECK_THROWS_AS(is_contiguous(V{2, 3}, V{1}), Error);
}

TEST_CASE("broadcast_shapes follows numpy rules") {
  CHECK(broadcast_shapes(V{2, 3}, V{3}) == Shape{2, 3});
  CHECK(broadcast_shapes(V{4, 1, 5}, V{3, 1}) == Shape{4, 3, 5});
  CHECK(broadcast_shapes(V{}, V{2, 2}) == Shape{2, 2});
  CHECK(broadcast_shapes(V{}, V{}).empty());
  CHECK(broadcast_shapes(V{1}, V{0}) == Shape{0});
  CHECK(broadcast_shapes(V{0, 1}, V{1, 7}) == Shape{0, 7});
}

TEST_CASE("broadcast_shapes errors name both shapes and the dim") {
  const Error e = catch_error([] { broadcast_shapes(V{2, 3}, V{4}, "add.Tensor"); });
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(std::string(e.what()) ==
        "add.Tensor: shape [2, 3] cannot broadcast with shape [4]: size 3 vs 4 at dim -1");
  CHECK_THROWS_AS(broadcast_shapes(V{2, 0}, V{2, 3}), Error);
}

}  // namespace
}  // namespace bp
