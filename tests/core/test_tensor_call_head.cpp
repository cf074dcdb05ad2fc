// Tests for core/src/tensor.cpp's call head and fast-path key (Note [Tensor call head] in
// core/include/backplane/core/tensor.hpp): every way to make or change a tensor keeps them
// current, and set_contiguous_like makes what set_contiguous makes.
#include "backplane/core/tensor.hpp"

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

namespace bp {
namespace {

using test::catch_error;
using test::check_geometry;
using test::contains;
using test::make_storage;
using test::make_tensor;
using V = std::vector<int64_t>;

// What call_head() and fast_key() must say of `t`, worked out from its other accessors.
void check_call_head(const Tensor& t) {
  const TensorCallHead& h = t.call_head();
  CHECK(h.data == t.storage()->data());
  CHECK(h.byte_offset == static_cast<uint64_t>(t.storage_offset()) * t.element_size());
  CHECK(h.device_type == t.device().type);
  CHECK(h.device_index == t.device().index);
  CHECK(h.dtype == static_cast<uint8_t>(t.dtype()));
  CHECK(h.ndim == t.dim());
  const uint32_t key = t.fast_key();
  CHECK((key & Tensor::kKeySignature) ==
        (static_cast<uint32_t>(t.dtype()) << 1 | (t.is_wrapped_number() ? 1u : 0u)));
  CHECK(((key & Tensor::kKeyZeroDim) != 0) == (t.dim() == 0));
  CHECK(((key & Tensor::kKeyEmpty) != 0) == (t.numel() == 0));
  bool zero_stride = false;
  for (const int64_t s : t.strides()) zero_stride |= s == 0;
  CHECK(((key & Tensor::kKeyZeroStride) != 0) == zero_stride);
  CHECK(((key & Tensor::kKeyContiguous) != 0) == t.is_contiguous());
}

TEST_CASE("every way to make or change a tensor keeps its call head and fast key current") {
  const Device dev1(device_types::Reference, 1);
  const Tensor base = make_tensor({4, 6}, ScalarType::Float64, dev1);
  check_call_head(base);
  check_call_head(base.view({6, 4}));
  check_call_head(base.transpose(0, 1));
  check_call_head(base.slice(1, 2, 5));                  // a byte offset
  check_call_head(base.select(0, 3).select(0, 5));       // 0-d, offset 23
  check_call_head(base.unsqueeze(1).expand({4, 3, 6}));  // stride 0
  check_call_head(base.slice(0, 1, 1));                  // empty
  check_call_head(base.as_strided({2, 2}, {1, 0}, 7));
  Tensor wrapped = make_tensor({}, ScalarType::Int64);
  wrapped.set_wrapped_number(true);
  check_call_head(wrapped);
  wrapped.set_wrapped_number(false);
  check_call_head(wrapped);
  Tensor copy = base.slice(1, 1, 3);
  check_call_head(copy);
  Tensor moved = std::move(copy);
  check_call_head(moved);
  // set_contiguous over an expanded, offset view's handle: every field is replaced.
  Tensor reused = base.unsqueeze(1).expand({4, 3, 6}).slice(2, 1, 4);
  reused.set_contiguous(make_storage(64, dev1), IntArrayRef(V{2, 0, 4}.data(), 3),
                        ScalarType::Int16);
  check_call_head(reused);
  reused.set_contiguous(make_storage(8), IntArrayRef(), ScalarType::Float32);
  check_call_head(reused);
  // A size-1 dim with any stride is still contiguous (is_contiguous ignores it).
  check_call_head(base.slice(0, 2, 3));
  check_call_head(base.as_strided({1, 6}, {100, 1}));
}

TEST_CASE("set_contiguous_like gives what set_contiguous gives for the like's sizes") {
  const Device dev1(device_types::Reference, 1);
  const Tensor base = make_tensor({4, 6}, ScalarType::Float64, dev1);
  // Likes that are transposed, 0-d, empty, with an odd stride on a size-1 dim, wrapped.
  Tensor wrapped = make_tensor({}, ScalarType::Int64, dev1);
  wrapped.set_wrapped_number(true);
  for (const Tensor& like : {base, base.transpose(0, 1), base.select(0, 1).select(0, 2),
                             base.slice(0, 1, 1), base.as_strided({1, 6}, {100, 1}), wrapped}) {
    CAPTURE(like.meta_str());
    const StoragePtr storage = make_storage(256, dev1);
    Tensor want = base.t();  // a handle with other metadata, as the fast path's results are not
    want.set_contiguous(storage, as_ref(like.sizes()), ScalarType::Int16);
    Tensor got = base.t();
    got.set_contiguous_like(storage, like, ScalarType::Int16);
    check_geometry(got, want.sizes(), want.strides(), 0);
    CHECK(got.numel() == want.numel());
    CHECK(got.dtype() == ScalarType::Int16);
    CHECK_FALSE(got.is_wrapped_number());
    CHECK(got.fast_key() == want.fast_key());
    check_call_head(got);
  }
  // Too small a storage is refused as set_contiguous refuses it, and the handle is unchanged.
  Tensor handle = base;
  CHECK(contains(catch_error([&] {
                   handle.set_contiguous_like(make_storage(40, dev1), base, ScalarType::Float32);
                 }).what(),
                 "24 elements of f32 do not fit the storage's 40 bytes"));
  check_geometry(handle, {4, 6}, {6, 1}, 0);
  CHECK(handle.dtype() == ScalarType::Float64);
}

}  // namespace
}  // namespace bp
