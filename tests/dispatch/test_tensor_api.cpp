// Creating tensors, moving them between dtypes and devices, reading them back, reshape
// (view or copy) and printing (tensor_api.hpp).
#include <backplane/backplane.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <string>

TEST_CASE("factories allocate contiguous tensors on the default device") {
  bp::Tensor z = bp::zeros({2, 3}, bp::ScalarType::Int32);
  CHECK(z.sizes() == bp::Shape{2, 3});
  CHECK(z.strides() == bp::Shape{3, 1});
  CHECK(z.dtype() == bp::ScalarType::Int32);
  CHECK(z.device() == bp::default_device());
  CHECK(bp::to_vector<int32_t>(z) == std::vector<int32_t>(6, 0));
  CHECK(bp::to_vector<float>(bp::ones({2})) == std::vector<float>{1, 1});
  CHECK(bp::to_vector<double>(bp::full({3}, 2.5, bp::ScalarType::Float64)) ==
        std::vector<double>{2.5, 2.5, 2.5});
  CHECK(bp::empty({0, 4}).numel() == 0);
}

TEST_CASE("bad factory arguments are errors that name the problem") {
  CHECK_THROWS_AS(bp::empty({-1}), bp::Error);
  CHECK_THROWS_AS(bp::empty({int64_t{1} << 40, int64_t{1} << 40}), bp::Error);
  CHECK_THROWS_AS(bp::empty({2}, bp::ScalarType::Float32, bp::Device::parse("reference:3")),
                  bp::Error);
}

TEST_CASE("values round-trip through every dtype") {
  std::vector<float> v{-2.5f, 0.f, 1.f, 3.75f};
  bp::Tensor t = bp::from_vector(v, {4});
  CHECK(bp::to_vector<double>(t) == std::vector<double>{-2.5, 0, 1, 3.75});
  CHECK(bp::to_vector<int64_t>(t) == std::vector<int64_t>{-2, 0, 1, 3});  // truncation
  CHECK(bp::to_vector<bool>(t) == std::vector<bool>{true, false, true, true});
  CHECK(bp::to_vector<float>(bp::to(t, bp::ScalarType::Float16)) == v);
  CHECK(bp::to_vector<float>(bp::to(t, bp::ScalarType::BFloat16)) == v);
  bp::Tensor b = bp::from_vector<bool>({true, false}, {2});
  CHECK(b.dtype() == bp::ScalarType::Bool);
  CHECK(bp::to_vector<int32_t>(b) == std::vector<int32_t>{1, 0});
}

TEST_CASE("to() on the same dtype or device returns the tensor itself") {
  bp::Tensor t = bp::ones({2});
  CHECK(bp::to(t, t.dtype()).is_same(t));
  CHECK(bp::to(t, t.device()).is_same(t));
}

TEST_CASE("contiguous copies only what is not contiguous") {
  bp::Tensor m = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(bp::contiguous(m).is_same(m));
  bp::Tensor t = m.t();
  bp::Tensor c = bp::contiguous(t);
  CHECK(c.is_contiguous());
  CHECK(c.storage() != m.storage());
  CHECK(bp::to_vector<float>(c) == std::vector<float>{1, 4, 2, 5, 3, 6});
}

TEST_CASE("reshape views when it can and copies when it must") {
  bp::Tensor m = bp::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  bp::Tensor v = bp::reshape(m, {3, 2});
  CHECK(v.storage() == m.storage());
  bp::Tensor t = bp::reshape(m.t(), {6});
  CHECK(t.storage() != m.storage());
  CHECK(bp::to_vector<float>(t) == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK(bp::flatten(m).sizes() == bp::Shape{6});
  CHECK_THROWS_AS(bp::reshape(m, {4}), bp::Error);
}

TEST_CASE("item reads the one element of a tensor") {
  CHECK(bp::item(bp::full({1, 1}, 3.5)).to_double() == 3.5);
  CHECK(bp::item(bp::full({}, 7, bp::ScalarType::Int64)).to_int() == 7);
  CHECK(bp::item(bp::full({}, true, bp::ScalarType::Bool)).to_bool());
  CHECK_THROWS_AS(bp::item(bp::ones({2})), bp::Error);
}

TEST_CASE("copy_ converts dtype and layout, and broadcasts its source") {
  bp::Tensor dst = bp::zeros({2, 3}, bp::ScalarType::Int16);
  bp::copy_(dst, bp::from_vector<double>({1.9, -2.9, 3.0}, {3}));
  CHECK(bp::to_vector<int16_t>(dst) == std::vector<int16_t>{1, -2, 3, 1, -2, 3});
  bp::Tensor wrong = bp::ones({4});
  CHECK_THROWS_AS(bp::copy_(dst, wrong), bp::Error);
}

TEST_CASE("to_string prints like PyTorch") {
  CHECK(bp::to_string(bp::from_vector<float>({1, 2, 3, 4}, {2, 2})) ==
        "tensor([[1., 2.],\n        [3., 4.]])");
  CHECK(bp::to_string(bp::from_vector<float>({1.5f, -2.f}, {2})) == "tensor([ 1.5000, -2.0000])");
  CHECK(bp::to_string(bp::from_vector<int64_t>({1, 20}, {2})) == "tensor([ 1, 20])");
  CHECK(bp::to_string(bp::from_vector<bool>({true, false}, {2})) == "tensor([ True, False])");
  CHECK(bp::to_string(bp::to(bp::ones({1}), bp::ScalarType::Float16)) == "tensor([1.], dtype=f16)");
  CHECK(bp::to_string(bp::full({}, 2.0)) == "tensor(2.)");
  CHECK(bp::to_string(bp::from_vector<float>({NAN, INFINITY}, {2})) == "tensor([nan, inf])");
}
