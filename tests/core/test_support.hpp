// Helpers for core tests: a malloc-backed Allocator and tensor factories, so core can be
// tested without the dispatcher. Tensors made here are metadata plus uninitialised memory.
#pragma once

#include "backplane/core/error.hpp"
#include "backplane/core/storage.hpp"
#include "backplane/core/tensor.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <new>
#include <string>

namespace bp::test {

// Counts live allocations so tests can check that views share, and release, one storage.
class MallocAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t bytes) override {
    void* p = std::malloc(bytes == 0 ? 1 : bytes);  // malloc(0) may return null
    if (p == nullptr) throw std::bad_alloc();
    ++live_;
    return DataPtr(p, this, [](void* ctx, void* ptr) {
      std::free(ptr);
      --static_cast<MallocAllocator*>(ctx)->live_;
    });
  }
  int live() const { return live_; }

 private:
  int live_ = 0;
};

inline MallocAllocator& test_allocator() {
  static MallocAllocator a;
  return a;
}

inline StoragePtr make_storage(size_t nbytes, Device device = Device(device_types::Reference),
                               MallocAllocator& alloc = test_allocator()) {
  return std::make_shared<Storage>(alloc.allocate(nbytes), nbytes, device,
                                   /*host_accessible=*/true);
}

// A contiguous tensor over a fresh storage of exactly its size.
inline Tensor make_tensor(Shape shape, ScalarType dtype = ScalarType::Float32,
                          Device device = Device(device_types::Reference)) {
  const int64_t n = checked_numel(as_ref(shape));
  Shape strides = contiguous_strides(as_ref(shape));
  return Tensor(make_storage(static_cast<size_t>(n) * element_size(dtype), device),
                std::move(shape), std::move(strides), 0, dtype);
}

// Runs f, which must throw bp::Error, and returns the error for checks on code and message.
// Messages are checked by substring so wording can improve without breaking tests.
template <typename F>
Error catch_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  FAIL("expected a bp::Error");
  return Error(ErrorCode::Internal, "unreachable");
}

inline bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Expected geometry of a tensor (a view's, or a new tensor's).
inline void check_geometry(const Tensor& t, const Shape& sizes, const Shape& strides,
                           int64_t offset) {
  CHECK(t.sizes() == sizes);
  CHECK(t.strides() == strides);
  CHECK(t.storage_offset() == offset);
}

}  // namespace bp::test
