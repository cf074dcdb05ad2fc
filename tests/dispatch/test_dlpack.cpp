// DLPack exchange: export and import share memory, keep strides and offsets, keep the
// storage alive until released, and reject what they cannot represent.
#include <backplane/backplane.hpp>

#include <dlpack/dlpack.h>
#include <doctest/doctest.h>

namespace {

struct DeleterProbe {
  DLManagedTensor* inner = nullptr;
  bool called = false;
};

}  // namespace

TEST_CASE("a tensor round-trips through DLPack without copying") {
  bp::Tensor m = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  bp::Tensor view = m.t().slice(0, 1, 3);  // [2, 2], strides [1, 3], offset 1
  DLManagedTensor* dl = bp::to_dlpack(view);
  CHECK(dl->dl_tensor.ndim == 2);
  CHECK(dl->dl_tensor.strides[0] == 1);
  CHECK(dl->dl_tensor.strides[1] == 3);
  CHECK(dl->dl_tensor.byte_offset == sizeof(float));
  CHECK(dl->dl_tensor.dtype.code == kDLFloat);
  CHECK(dl->dl_tensor.dtype.bits == 32);
  bp::Tensor back = bp::from_dlpack(dl);  // takes ownership
  CHECK(back.data_ptr() == view.data_ptr());
  CHECK(back.strides() == view.strides());
  CHECK(bp::to_vector<float>(back) == std::vector<float>{2, 5, 3, 6});
  bp::fill_(back, 0.0);  // writes through to m
  CHECK(bp::to_vector<float>(m) == std::vector<float>{1, 0, 0, 4, 0, 0});
}

TEST_CASE("the exported tensor keeps the storage alive until its deleter runs") {
  DLManagedTensor* dl = nullptr;
  {
    bp::Tensor t = bp::from_vector<int64_t>({7, 8}, {2});
    dl = bp::to_dlpack(t);
  }
  CHECK(static_cast<int64_t*>(dl->dl_tensor.data)[1] == 8);
  dl->deleter(dl);
}

TEST_CASE("an imported tensor calls the producer's deleter when the last view is gone") {
  DeleterProbe probe;
  probe.inner = bp::to_dlpack(bp::from_vector<bool>({true, false}, {2}));
  CHECK(probe.inner->dl_tensor.dtype.code == 6);  // kDLBool
  DLManagedTensor wrapper = *probe.inner;
  wrapper.manager_ctx = &probe;
  wrapper.deleter = [](DLManagedTensor* self) {
    auto* p = static_cast<DeleterProbe*>(self->manager_ctx);
    p->called = true;
    p->inner->deleter(p->inner);
  };
  {
    bp::Tensor t = bp::from_dlpack(&wrapper);
    bp::Tensor v = t.slice(0, 1, 2);
    t = bp::Tensor();
    CHECK_FALSE(probe.called);
    CHECK(bp::to_vector<bool>(v) == std::vector<bool>{false});
  }
  CHECK(probe.called);
}

TEST_CASE("DLPack tensors Backplane cannot represent are rejected with the reason") {
  int64_t shape[] = {2};
  int64_t negative[] = {-1};
  float data[2] = {1, 2};
  DLManagedTensor m{};
  m.dl_tensor.data = data;
  m.dl_tensor.ndim = 1;
  m.dl_tensor.shape = shape;
  m.dl_tensor.dtype = {kDLFloat, 32, 1};
  m.dl_tensor.device = {kDLCUDA, 0};
  CHECK_THROWS_WITH_AS(bp::from_dlpack(&m), doctest::Contains("device type 2"), bp::Error);
  m.dl_tensor.device = {kDLCPU, 0};
  m.dl_tensor.strides = negative;
  CHECK_THROWS_WITH_AS(bp::from_dlpack(&m), doctest::Contains("negative stride"), bp::Error);
  m.dl_tensor.strides = nullptr;
  m.dl_tensor.dtype = {kDLComplex, 64, 1};
  CHECK_THROWS_WITH_AS(bp::from_dlpack(&m), doctest::Contains("not supported"), bp::Error);
  m.dl_tensor.dtype = {kDLFloat, 32, 1};
  bp::Tensor ok = bp::from_dlpack(&m);  // no deleter: the memory stays the caller's
  CHECK(bp::to_vector<float>(ok) == std::vector<float>{1, 2});
}
