// Tests for core/src/tensor.cpp: the checking constructor, accessors and every view, with
// sizes, strides and offsets taken from PyTorch 1.13 for the same calls.
#include "backplane/core/tensor.hpp"

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace bp {
namespace {

using test::catch_error;
using test::check_geometry;
using test::contains;
using test::make_storage;
using test::make_tensor;
using V = std::vector<int64_t>;

// A view shares the storage and the dtype of its base.
void check_aliases(const Tensor& view, const Tensor& base) {
  CHECK(view.storage() == base.storage());
  CHECK(view.dtype() == base.dtype());
}

std::string message_of(const Error& e) {
  return e.what();
}

// ---- construction ------------------------------------------------------------------------

TEST_CASE("a default Tensor is undefined") {
  const Tensor t;
  CHECK_FALSE(t.defined());
  CHECK(t.meta_str() == "Tensor[undefined]");
  CHECK(t.numel() == 0);
  CHECK(contains(catch_error([&] { t.device(); }).what(), "device: the tensor is undefined"));
  CHECK_THROWS_AS(t.data_ptr(), Error);
  CHECK_THROWS_AS(t.view({1}), Error);
  CHECK_THROWS_AS(t.select(0, 0), Error);
  CHECK(t.is_same(Tensor()));
}

TEST_CASE("the constructor records metadata") {
  const Tensor t = make_tensor({2, 3}, ScalarType::Int16);
  CHECK(t.defined());
  CHECK(t.dim() == 2);
  CHECK(t.numel() == 6);
  CHECK(t.element_size() == 2);
  CHECK(t.nbytes() == 12);
  CHECK(t.strides() == Shape{3, 1});
  CHECK(t.storage_offset() == 0);
  CHECK(t.is_contiguous());
  CHECK(t.device() == Device(device_types::Reference, 0));
  CHECK(t.data_ptr() == t.storage()->data());
  CHECK_FALSE(t.is_wrapped_number());
}

TEST_CASE("contiguous_over and set_contiguous: dense strides over a storage, checked cheaply") {
  const StoragePtr storage = make_storage(2 * 3 * 4 * sizeof(float));
  const Tensor t = Tensor::contiguous_over(storage, {2, 3, 4}, ScalarType::Float32);
  check_geometry(t, {2, 3, 4}, {12, 4, 1}, 0);
  CHECK(t.numel() == 24);
  // A size-0 dim empties the tensor without zeroing the strides before it (as PyTorch).
  check_geometry(Tensor::contiguous_over(storage, {2, 0, 3}, ScalarType::Float32), {2, 0, 3},
                 {3, 3, 1}, 0);
  // Too many elements for the storage, negative sizes, overflow and bad dtypes are refused.
  CHECK(contains(catch_error([&] {
                   Tensor::contiguous_over(storage, {5, 5}, ScalarType::Float32);
                 }).what(),
                 "25 elements of f32 do not fit the storage's 96 bytes"));
  CHECK(contains(catch_error([&] {
                   Tensor::contiguous_over(storage, {2, -1}, ScalarType::Float32);
                 }).what(),
                 "negative size"));
  CHECK_THROWS_AS(Tensor::contiguous_over(storage, {int64_t{1} << 62, 8}, ScalarType::Float32),
                  Error);
  CHECK_THROWS_AS(Tensor::contiguous_over(storage, {2}, static_cast<ScalarType>(42)), Error);

  // set_contiguous re-points one handle; another handle of the old view keeps its own.
  Tensor view = t.transpose(0, 2);
  const Tensor other = view;
  view.set_wrapped_number(true);
  view.set_contiguous(make_storage(6 * sizeof(int64_t)), {6}, ScalarType::Int64);
  check_geometry(view, {6}, {1}, 0);
  CHECK(view.dtype() == ScalarType::Int64);
  CHECK_FALSE(view.is_wrapped_number());
  check_geometry(other, {4, 3, 2}, {1, 4, 12}, 0);
  // A refused set_contiguous leaves the handle as it was.
  CHECK_THROWS_AS(view.set_contiguous(storage, {100}, ScalarType::Float32), Error);
  check_geometry(view, {6}, {1}, 0);
  CHECK(view.dtype() == ScalarType::Int64);
}

TEST_CASE("device() comes from the storage") {
  const Tensor t = make_tensor({1}, ScalarType::Float32, Device(device_types::CUDA, 3));
  CHECK(t.device() == Device(device_types::CUDA, 3));
  CHECK(t.meta_str() == "Tensor[f32, [1], cuda:3]");
}

TEST_CASE("meta_str names dtype, shape and device") {
  CHECK(make_tensor({2, 3}).meta_str() == "Tensor[f32, [2, 3], reference:0]");
  CHECK(make_tensor({}, ScalarType::Bool).meta_str() == "Tensor[bool, [], reference:0]");
}

TEST_CASE("data_ptr adds the storage offset in bytes") {
  const auto storage = make_storage(80);
  const Tensor t(storage, {3}, {2}, 4, ScalarType::Float64);
  CHECK(static_cast<char*>(t.data_ptr()) == static_cast<char*>(storage->data()) + 32);
}

TEST_CASE("the constructor accepts a view that exactly fits its storage") {
  const auto storage = make_storage(24);                                   // 6 floats
  CHECK_NOTHROW(Tensor(storage, {2, 2}, {3, 1}, 1, ScalarType::Float32));  // last element 5
  CHECK_NOTHROW(Tensor(storage, {3}, {0}, 5, ScalarType::Float32));
  CHECK_NOTHROW(Tensor(storage, {}, {}, 5, ScalarType::Float32));
}

TEST_CASE("the constructor rejects a view that leaves its storage") {
  const auto storage = make_storage(24);
  Error e = catch_error([&] { Tensor(storage, {2, 2}, {3, 1}, 2, ScalarType::Float32); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(contains(e.what(), "reach byte 28 but the storage has 24 bytes"));
  CHECK_THROWS_AS(Tensor(storage, {}, {}, 6, ScalarType::Float32), Error);
  CHECK_THROWS_AS(Tensor(storage, {4}, {1}, 0, ScalarType::Float64), Error);
  // Overflowing extents are caught, not wrapped around.
  const int64_t big = std::numeric_limits<int64_t>::max() / 2;
  e = catch_error([&] { Tensor(storage, {3}, {big}, 0, ScalarType::Float32); });
  CHECK(contains(e.what(), "beyond int64"));
}

TEST_CASE("the constructor rejects malformed metadata") {
  const auto storage = make_storage(64);
  const auto f32 = ScalarType::Float32;
  CHECK(
      contains(catch_error([&] { Tensor(nullptr, {1}, {1}, 0, f32); }).what(), "storage is null"));
  CHECK(catch_error([&] { Tensor(storage, {1}, {1}, 0, ScalarType::Undefined); }).code() ==
        ErrorCode::Type);
  CHECK(contains(catch_error([&] {
                   Tensor(storage, {2, 2}, {1}, 0, f32);
                 }).what(),
                 "sizes [2, 2] and strides [1] differ in length"));
  CHECK(contains(catch_error([&] {
                   Tensor(storage, {2, -1}, {1, 1}, 0, f32);
                 }).what(),
                 "negative size -1"));
  CHECK(contains(catch_error([&] { Tensor(storage, {2}, {-1}, 1, f32); }).what(),
                 "stride -1 at dim 0 is negative"));
  CHECK(contains(catch_error([&] { Tensor(storage, {1}, {1}, -1, f32); }).what(),
                 "storage offset -1 is negative"));
}

TEST_CASE("an empty view may have an offset past its storage, as in PyTorch") {
  // torch.zeros(3, 4)[3:, 4:].storage_offset() == 16
  const Tensor t = make_tensor({3, 4});
  const Tensor e = t.slice(0, 3, std::nullopt).slice(1, 4, std::nullopt);
  check_geometry(e, {0, 0}, {4, 1}, 16);
  CHECK(e.numel() == 0);
  CHECK_NOTHROW(e.data_ptr());
}

TEST_CASE("size and stride wrap negative dims") {
  const Tensor t = make_tensor({2, 3, 4});
  CHECK(t.size(0) == 2);
  CHECK(t.size(-1) == 4);
  CHECK(t.stride(-3) == 12);
  CHECK(t.stride(1) == 4);
  CHECK(contains(catch_error([&] { t.size(3); }).what(), "argument 'dim' is 3"));
  CHECK_THROWS_AS(t.stride(-4), Error);
}

TEST_CASE("size and stride of a 0-d tensor are errors") {
  const Tensor s = make_tensor({});
  CHECK(contains(catch_error([&] { s.size(0); }).what(), "has no dimensions"));
  CHECK_THROWS_AS(s.stride(-1), Error);
}

// ---- view ------------------------------------------------------------------------------

TEST_CASE("view of a contiguous tensor, with -1 inferred") {
  const Tensor t = make_tensor({2, 3, 4});
  const Tensor v = t.view({6, -1});
  check_geometry(v, {6, 4}, {4, 1}, 0);
  check_aliases(v, t);
  check_geometry(t.view({24}), {24}, {1}, 0);
  check_geometry(t.view({-1}), {24}, {1}, 0);
  check_geometry(t.view({1, 2, 1, 12}), {1, 2, 1, 12}, {24, 12, 12, 1}, 0);
}

TEST_CASE("view of a 0-d tensor and into a 0-d tensor") {
  const Tensor s = make_tensor({});
  check_geometry(s.view({1, 1, 1}), {1, 1, 1}, {1, 1, 1}, 0);
  check_geometry(s.view({-1}), {1}, {1}, 0);
  check_geometry(make_tensor({1, 1}).view(IntArrayRef{}), {}, {}, 0);
}

TEST_CASE("view of a transposed tensor splits dims where PyTorch can") {
  // torch.zeros(4, 6).t(): shape [6, 4], strides [1, 6]
  const Tensor x = make_tensor({4, 6}).t();
  check_geometry(x.view({3, 2, 4}), {3, 2, 4}, {2, 1, 6}, 0);
  check_geometry(x.view({6, 2, 2}), {6, 2, 2}, {1, 12, 6}, 0);
  check_geometry(x.view({2, 3, 4}), {2, 3, 4}, {3, 1, 6}, 0);
  CHECK_FALSE(x.try_view(V{24}).has_value());
}

TEST_CASE("view of a permuted tensor merges only contiguous chunks") {
  // torch.zeros(2, 3, 4).permute(1, 0, 2): shape [3, 2, 4], strides [4, 12, 1]
  const Tensor y = make_tensor({2, 3, 4}).permute({1, 0, 2});
  check_geometry(y.view({3, 2, 2, 2}), {3, 2, 2, 2}, {4, 12, 2, 1}, 0);
  CHECK_FALSE(y.try_view(V{3, 8}).has_value());
  CHECK_FALSE(y.try_view(V{6, 4}).has_value());
}

TEST_CASE("view of an expanded tensor keeps stride 0 dims apart") {
  // torch.zeros(2, 1, 3).expand(2, 5, 3)
  const Tensor z = make_tensor({2, 1, 3}).expand({2, 5, 3});
  check_geometry(z.view({2, 5, 3, 1}), {2, 5, 3, 1}, {3, 0, 1, 1}, 0);
  CHECK_FALSE(z.try_view(V{10, 3}).has_value());
  CHECK_FALSE(z.try_view(V{30}).has_value());
}

TEST_CASE("view of a strided slice") {
  // torch.zeros(6)[::2] is [3] with stride 2
  const Tensor z = make_tensor({6}).slice(0, std::nullopt, std::nullopt, 2);
  check_geometry(z.view({3, 1}), {3, 1}, {2, 2}, 0);
  check_geometry(z.view({1, 3}), {1, 3}, {6, 2}, 0);
  // torch.zeros(4, 1, 3)[::2]: shape [2, 1, 3], strides [6, 3, 1]
  const Tensor w = make_tensor({4, 1, 3}).slice(0, std::nullopt, std::nullopt, 2);
  check_geometry(w, {2, 1, 3}, {6, 3, 1}, 0);
  check_geometry(w.view({2, 3}), {2, 3}, {6, 1}, 0);
  CHECK_FALSE(w.try_view(V{6}).has_value());
}

TEST_CASE("view keeps the storage offset") {
  const Tensor t = make_tensor({4, 6}).select(0, 2);
  check_geometry(t.view({2, 3}), {2, 3}, {3, 1}, 12);
}

TEST_CASE("view of an empty tensor") {
  const Tensor e = make_tensor({0, 3});
  check_geometry(e.view({3, 0}), {3, 0}, {1, 1}, 0);
  check_geometry(e.view({-1, 3}), {0, 3}, {3, 1}, 0);
  check_geometry(e.view({0, 3}), {0, 3}, {3, 1}, 0);
  const Error amb = catch_error([&] { e.view({0, -1}); });
  CHECK(contains(amb.what(), "the size of the -1 dim is ambiguous"));
}

TEST_CASE("view errors name the shapes and suggest bp::reshape") {
  const Tensor x = make_tensor({4, 6}).t();
  Error e = catch_error([&] { x.view({24}); });
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(contains(e.what(),
                 "view: shape [24] cannot view a tensor of shape [6, 4] and strides "
                 "[1, 6]"));
  CHECK(contains(e.what(), "bp::reshape"));
  const Tensor t = make_tensor({2, 3});
  e = catch_error([&] { t.view({4}); });
  CHECK(message_of(e) == "view: shape [4] is invalid for a tensor of 6 elements");
  CHECK(contains(catch_error([&] { t.view({4, -1}); }).what(), "is invalid for a tensor of 6"));
  CHECK(contains(catch_error([&] { t.view({-1, -1}); }).what(), "only one dimension"));
  CHECK(contains(catch_error([&] { t.view({-2, 3}); }).what(), "invalid size -2 at dim 0"));
  CHECK(contains(catch_error([&] { t.view({0, -1}); }).what(), "is invalid for a tensor of 6"));
}

TEST_CASE("try_view throws for an invalid shape but returns nullopt when a copy is needed") {
  const Tensor x = make_tensor({4, 6}).t();
  CHECK_FALSE(x.try_view(V{24}).has_value());
  CHECK_THROWS_AS(x.try_view(V{25}), Error);
  CHECK(x.try_view(V{6, 4}).has_value());
}

// ---- permute / transpose / t -------------------------------------------------------------

TEST_CASE("permute reorders sizes and strides") {
  const Tensor t = make_tensor({2, 3, 4});
  const Tensor p = t.permute({2, 0, 1});
  check_geometry(p, {4, 2, 3}, {1, 12, 4}, 0);
  check_aliases(p, t);
  CHECK_FALSE(p.is_contiguous());
  check_geometry(t.permute({-1, -3, -2}), {4, 2, 3}, {1, 12, 4}, 0);
  check_geometry(make_tensor({}).permute(IntArrayRef{}), {}, {}, 0);
}

TEST_CASE("permute requires a permutation of all dims") {
  const Tensor t = make_tensor({2, 3, 4});
  Error e = catch_error([&] { t.permute({0, 1}); });
  CHECK(message_of(e) == "permute: argument 'dims' [0, 1] has 2 entries but the tensor has 3 dims");
  e = catch_error([&] { t.permute({0, 1, -3}); });
  CHECK(contains(e.what(), "is not a permutation: dim 0 appears twice"));
  e = catch_error([&] { t.permute({0, 1, 3}); });
  CHECK(contains(e.what(), "permute: argument 'dims' is 3 but must be in [-3, 2]"));
}

TEST_CASE("transpose swaps two dims") {
  const Tensor t = make_tensor({2, 3, 4});
  check_geometry(t.transpose(0, 2), {4, 3, 2}, {1, 4, 12}, 0);
  check_geometry(t.transpose(-1, 1), {2, 4, 3}, {12, 1, 4}, 0);
  check_geometry(t.transpose(1, 1), {2, 3, 4}, {12, 4, 1}, 0);
  check_geometry(make_tensor({}).transpose(0, -1), {}, {}, 0);
  CHECK(contains(catch_error([&] { t.transpose(0, 3); }).what(), "transpose: argument 'dim1'"));
}

TEST_CASE("t transposes 2-D and leaves 0-D and 1-D as they are") {
  check_geometry(make_tensor({2, 3}).t(), {3, 2}, {1, 3}, 0);
  check_geometry(make_tensor({5}).t(), {5}, {1}, 0);
  check_geometry(make_tensor({}).t(), {}, {}, 0);
  const Error e = catch_error([] { make_tensor({2, 3, 4}).t(); });
  CHECK(contains(e.what(), "t: expects a tensor with <= 2 dimensions, but self is 3-d"));
}

// ---- expand ------------------------------------------------------------------------------

TEST_CASE("expand stretches size-1 dims with stride 0 and adds leading dims") {
  const Tensor v = make_tensor({3});
  check_geometry(v.expand({2, 3}), {2, 3}, {0, 1}, 0);
  check_geometry(v.expand({1, 3}), {1, 3}, {3, 1}, 0);  // as torch: a size-1 new dim
  const Tensor c = make_tensor({3, 1});
  check_geometry(c.expand({2, -1, 4}), {2, 3, 4}, {0, 1, 0}, 0);
  check_geometry(make_tensor({}).expand({2, 2}), {2, 2}, {0, 0}, 0);
  // torch.zeros(2, 1).expand(3, 2, 0).stride() == (0, 1, 0)
  check_geometry(make_tensor({2, 1}).expand({3, 2, 0}), {3, 2, 0}, {0, 1, 0}, 0);
  check_aliases(v.expand({4, 3}), v);
  CHECK_FALSE(v.expand({4, 3}).is_contiguous());
}

TEST_CASE("expand errors name both shapes") {
  const Tensor t = make_tensor({2, 3});
  Error e = catch_error([&] { t.expand({3}); });
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(contains(e.what(), "target shape [3] has fewer dims than the tensor's shape [2, 3]"));
  e = catch_error([&] { t.expand({4, 3}); });
  CHECK(contains(e.what(), "shape [2, 3] cannot expand to [4, 3]: size 2 at dim 0"));
  e = catch_error([&] { t.expand({-1, 2, 3}); });
  CHECK(contains(e.what(), "size -1 at dim 0 of the target shape [-1, 2, 3]"));
  e = catch_error([&] { make_tensor({1}).expand({-2}); });
  CHECK(contains(e.what(), "negative size -2 at dim 0"));
}

// ---- squeeze / unsqueeze -----------------------------------------------------------------

TEST_CASE("squeeze removes size-1 dims") {
  const Tensor t = make_tensor({3, 1, 4});
  check_geometry(t.squeeze(), {3, 4}, {4, 1}, 0);
  check_geometry(t.squeeze(1), {3, 4}, {4, 1}, 0);
  check_geometry(t.squeeze(-2), {3, 4}, {4, 1}, 0);
  check_geometry(t.squeeze(0), {3, 1, 4}, {4, 4, 1}, 0);  // size 3: unchanged
  check_geometry(make_tensor({1, 1}).squeeze(), {}, {}, 0);
  check_geometry(make_tensor({}).squeeze(0), {}, {}, 0);
  CHECK_THROWS_AS(t.squeeze(3), Error);
  CHECK_THROWS_AS(make_tensor({}).squeeze(1), Error);
}

TEST_CASE("unsqueeze inserts a size-1 dim with PyTorch's stride") {
  const Tensor t = make_tensor({3, 1, 4});
  check_geometry(t.unsqueeze(0), {1, 3, 1, 4}, {12, 4, 4, 1}, 0);
  check_geometry(t.unsqueeze(1), {3, 1, 1, 4}, {4, 4, 4, 1}, 0);
  check_geometry(t.unsqueeze(3), {3, 1, 4, 1}, {4, 4, 1, 1}, 0);
  check_geometry(t.unsqueeze(-1), {3, 1, 4, 1}, {4, 4, 1, 1}, 0);
  check_geometry(t.unsqueeze(-4), {1, 3, 1, 4}, {12, 4, 4, 1}, 0);
  check_geometry(make_tensor({}).unsqueeze(-1), {1}, {1}, 0);
  const Error e = catch_error([&] { t.unsqueeze(4); });
  CHECK(contains(e.what(), "unsqueeze: argument 'dim' is 4 but must be in [-4, 3]"));
  CHECK_THROWS_AS(t.unsqueeze(-5), Error);
}

// ---- slice / narrow / select -------------------------------------------------------------

TEST_CASE("slice follows Python slicing") {
  const Tensor y = make_tensor({10});
  auto check = [&](std::optional<int64_t> lo, std::optional<int64_t> hi, int64_t step, int64_t size,
                   int64_t stride, int64_t offset) {
    check_geometry(y.slice(0, lo, hi, step), {size}, {stride}, offset);
  };
  // Expected values from torch.zeros(10)[lo:hi:step]
  check(-3, std::nullopt, 1, 3, 1, 7);
  check(std::nullopt, -3, 1, 7, 1, 0);
  check(-100, 100, 1, 10, 1, 0);
  check(5, 2, 1, 0, 1, 5);
  check(2, 9, 3, 3, 3, 2);
  check(20, 30, 1, 0, 1, 10);
  check(-1, std::nullopt, 5, 1, 5, 9);
  check(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), 1, 10, 1, 0);
}

TEST_CASE("slice of an inner dim") {
  // torch.zeros(2, 3, 4)[:, 1:3, ::3]: shape [2, 2, 2], strides [12, 4, 3], offset 4
  const Tensor x = make_tensor({2, 3, 4});
  const Tensor s = x.slice(1, 1, 3).slice(-1, std::nullopt, std::nullopt, 3);
  check_geometry(s, {2, 2, 2}, {12, 4, 3}, 4);
  check_aliases(s, x);
}

TEST_CASE("slice with a huge step keeps one element without overflow") {
  const Tensor y = make_tensor({4, 10});
  const Tensor s = y.slice(1, 1, std::nullopt, std::numeric_limits<int64_t>::max());
  CHECK(s.sizes() == Shape{4, 1});
  CHECK(s.storage_offset() == 1);
}

TEST_CASE("slice rejects a non-positive step and 0-d tensors") {
  const Tensor y = make_tensor({10});
  CHECK(message_of(catch_error([&] { y.slice(0, 0, 5, 0); })) ==
        "slice: argument 'step' is 0 but must be > 0");
  CHECK_THROWS_AS(y.slice(0, 0, 5, -1), Error);
  CHECK(contains(catch_error([] { make_tensor({}).slice(0, 0, 1); }).what(), "0-d"));
  CHECK_THROWS_AS(y.slice(1, 0, 1), Error);
}

TEST_CASE("narrow takes a range and accepts a negative start") {
  const Tensor x = make_tensor({2, 3, 4});
  check_geometry(x.narrow(1, -2, 2), {2, 2, 4}, {12, 4, 1}, 4);
  check_geometry(x.narrow(2, 1, 3), {2, 3, 3}, {12, 4, 1}, 1);
  check_geometry(x.narrow(2, 4, 0), {2, 3, 0}, {12, 4, 1}, 4);
}

TEST_CASE("narrow checks start and length") {
  const Tensor x = make_tensor({2, 3, 4});
  Error e = catch_error([&] { x.narrow(1, 4, 0); });
  CHECK(e.code() == ErrorCode::Index);
  CHECK(contains(e.what(), "argument 'start' is 4 but must be in [-3, 3]"));
  e = catch_error([&] { x.narrow(1, 2, 2); });
  CHECK(contains(e.what(), "start 2 + length 2 exceeds the size 3 of dim 1"));
  CHECK(contains(catch_error([&] { x.narrow(1, 0, -1); }).what(), "'length' is -1"));
  CHECK_THROWS_AS(make_tensor({}).narrow(0, 0, 1), Error);
  CHECK_THROWS_AS(x.narrow(3, 0, 1), Error);
}

TEST_CASE("select removes a dim and moves the offset") {
  const Tensor x = make_tensor({2, 3, 4});
  // torch.zeros(2, 3, 4).select(2, -1): shape [2, 3], strides [12, 4], offset 3
  check_geometry(x.select(2, -1), {2, 3}, {12, 4}, 3);
  check_geometry(x.select(0, 1), {3, 4}, {4, 1}, 12);
  check_geometry(x.select(1, 2).select(0, 1), {4}, {1}, 20);
  check_geometry(make_tensor({5}).select(0, 4), {}, {}, 4);
  check_aliases(x.select(0, 1), x);
}

TEST_CASE("select checks the index and the dim") {
  const Tensor x = make_tensor({2, 3});
  Error e = catch_error([&] { x.select(1, 3); });
  CHECK(e.code() == ErrorCode::Index);
  CHECK(message_of(e) ==
        "select: argument 'index' is 3 but must be in [-3, 3) for dim 1 of size 3");
  CHECK_THROWS_AS(x.select(1, -4), Error);
  CHECK_THROWS_AS(x.select(2, 0), Error);
  CHECK_THROWS_AS(make_tensor({0}).select(0, 0), Error);
  CHECK(contains(catch_error([] { make_tensor({}).select(0, 0); }).what(), "0-d"));
}

// ---- flatten / as_strided ----------------------------------------------------------------

TEST_CASE("flatten merges a range of dims") {
  const Tensor x = make_tensor({2, 3, 4});
  check_geometry(x.flatten(), {24}, {1}, 0);
  check_geometry(x.flatten(1), {2, 12}, {12, 1}, 0);
  check_geometry(x.flatten(0, 1), {6, 4}, {4, 1}, 0);
  check_geometry(x.flatten(-2, -2), {2, 3, 4}, {12, 4, 1}, 0);
  check_geometry(make_tensor({}).flatten(), {1}, {1}, 0);
  // torch.zeros(2, 3, 4).permute(2, 0, 1).flatten(1).stride() == (1, 4)
  check_geometry(x.permute({2, 0, 1}).flatten(1), {4, 6}, {1, 4}, 0);
}

TEST_CASE("flatten errors") {
  const Tensor x = make_tensor({2, 3, 4});
  CHECK(
      contains(catch_error([&] { x.flatten(2, 1); }).what(), "start_dim 2 comes after end_dim 1"));
  CHECK(contains(catch_error([&] { x.flatten(0, 3); }).what(), "argument 'end_dim' is 3"));
  CHECK_THROWS_AS(make_tensor({}).flatten(1), Error);
  // PyTorch copies here (flatten is reshape); a core view cannot.
  const Error e = catch_error([&] { x.permute({2, 0, 1}).flatten(0, 1); });
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(contains(e.what(), "bp::reshape"));
}

TEST_CASE("as_strided builds any in-bounds geometry over the same storage") {
  const Tensor x = make_tensor({2, 3});
  const Tensor a = x.as_strided(V{3, 2}, V{1, 3});
  check_geometry(a, {3, 2}, {1, 3}, 0);
  check_aliases(a, x);
  check_geometry(x.select(0, 1).as_strided(V{2}, V{1}), {2}, {1}, 3);  // keeps the offset
  check_geometry(x.as_strided(V{2, 2}, V{1, 1}, 3), {2, 2}, {1, 1}, 3);
  check_geometry(x.as_strided(V{4}, V{0}, 5), {4}, {0}, 5);
}

TEST_CASE("as_strided rejects geometry outside the storage") {
  const Tensor x = make_tensor({2, 3});
  Error e = catch_error([&] { x.as_strided(V{2, 2}, V{1, 1}, 4); });
  CHECK(contains(e.what(),
                 "as_strided: sizes [2, 2], strides [1, 1] and offset 4 of f32 reach "
                 "byte 28 but the storage has 24 bytes"));
  CHECK_THROWS_AS(x.as_strided(V{2}, V{-1}, 3), Error);
  CHECK_THROWS_AS(x.as_strided(V{2}, V{1, 1}), Error);
  CHECK_THROWS_AS(x.as_strided(V{1}, V{1}, -1), Error);
}

// ---- aliasing and ownership --------------------------------------------------------------

TEST_CASE("is_same compares storage and metadata") {
  const Tensor x = make_tensor({2, 3});
  const Tensor copy = x;  // NOLINT: the handle copy is the point
  CHECK(copy.is_same(x));
  CHECK(x.view({2, 3}).is_same(x));
  CHECK_FALSE(x.view({3, 2}).is_same(x));
  CHECK_FALSE(x.t().is_same(x));
  CHECK_FALSE(x.select(0, 1).is_same(x.select(0, 0)));
  CHECK_FALSE(make_tensor({2, 3}).is_same(x));  // same metadata, other storage
  CHECK_FALSE(x.as_strided(V{2, 3}, V{3, 1}).is_same(x.view({2, 3}).as_strided(V{2, 3}, V{1, 2})));
}

TEST_CASE("views keep the storage alive after the base is gone") {
  test::MallocAllocator alloc;
  Tensor view;
  {
    const Tensor base(test::make_storage(24, Device(), alloc), {2, 3}, {3, 1}, 0,
                      ScalarType::Float32);
    view = base.t().select(0, 1);
    CHECK(alloc.live() == 1);
  }
  CHECK(alloc.live() == 1);
  CHECK(view.storage().use_count() == 1);
  view = Tensor();
  CHECK(alloc.live() == 0);
}

TEST_CASE("views are not wrapped numbers") {
  Tensor s = make_tensor({}, ScalarType::Float64);
  s.set_wrapped_number(true);
  CHECK(s.is_wrapped_number());
  CHECK(Tensor(s).is_wrapped_number());  // a handle copy is the same tensor
  CHECK_FALSE(s.view({1}).is_wrapped_number());
  CHECK_FALSE(s.unsqueeze(0).is_wrapped_number());
  CHECK_FALSE(s.t().is_wrapped_number());
  CHECK_FALSE(s.expand({3}).is_wrapped_number());
  CHECK_FALSE(s.as_strided(V{}, V{}).is_wrapped_number());
}

}  // namespace
}  // namespace bp
