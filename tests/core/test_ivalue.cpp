// Tests for core/src/ivalue.cpp: kinds, accessors and their errors.
#include "backplane/core/ivalue.hpp"

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <optional>

namespace bp {
namespace {

using test::catch_error;
using test::contains;

TEST_CASE("IValue holds each schema type and names its kind") {
  CHECK(IValue().is_none());
  CHECK(IValue(std::nullopt).kind_name() == "None");
  CHECK(IValue(test::make_tensor({2})).kind_name() == "Tensor");
  CHECK(IValue(TensorList{}).kind_name() == "Tensor[]");
  CHECK(IValue(Scalar(1.5)).kind_name() == "Scalar");
  CHECK(IValue(3).kind_name() == "int");
  CHECK(IValue(int64_t{3}).is_int());
  CHECK(IValue(Shape{1, 2}).kind_name() == "int[]");
  CHECK(IValue(2.5).kind_name() == "float");
  CHECK(IValue(true).kind_name() == "bool");
  CHECK(IValue(ScalarType::Int8).kind_name() == "ScalarType");
  CHECK(IValue("mean").kind_name() == "str");
  CHECK(IValue(Device(device_types::CPU)).kind_name() == "Device");
}

TEST_CASE("IValue accessors return the held value") {
  const Tensor t = test::make_tensor({2, 3});
  CHECK(IValue(t).tensor().is_same(t));
  CHECK(IValue(TensorList{t, t}).tensor_list().size() == 2);
  CHECK(IValue(7).to_int() == 7);
  const int64_t dims[] = {0, -1};
  CHECK(IValue(IntArrayRef(dims)).int_list() == Shape{0, -1});
  CHECK(IValue(0.25).to_double() == 0.25);
  CHECK(IValue(false).to_bool() == false);
  CHECK(IValue(ScalarType::BFloat16).dtype() == ScalarType::BFloat16);
  CHECK(IValue(std::string("sum")).string() == "sum");
  CHECK(IValue(Device(device_types::CUDA, 2)).device() == Device(device_types::CUDA, 2));
}

TEST_CASE("IValue from an optional is None when empty") {
  CHECK(IValue(std::optional<int64_t>()).is_none());
  CHECK(IValue(std::optional<int64_t>(4)).to_int() == 4);
  CHECK(IValue(std::optional<Tensor>()).is_none());
}

TEST_CASE("IValue::scalar accepts Scalar, int, float and bool") {
  CHECK(IValue(Scalar(2.5)).scalar().to_double() == 2.5);
  const Scalar from_int = IValue(3).scalar();
  CHECK(from_int.is_integral());
  CHECK(from_int.to_int() == 3);
  CHECK(IValue(1.5).scalar().is_floating());
  CHECK(IValue(true).scalar().is_bool());
  const Error e = catch_error([] { IValue("x").scalar(); });
  CHECK(std::string(e.what()) == "IValue: expected Scalar but got str");
}

TEST_CASE("IValue::to_double accepts an int") {
  CHECK(IValue(3).to_double() == 3.0);
  CHECK_THROWS_AS(IValue(true).to_double(), Error);
}

TEST_CASE("IValue accessors of the wrong kind name expected and actual kinds") {
  const IValue t(test::make_tensor({1}));
  Error e = catch_error([&] { t.to_int(); });
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(contains(e.what(), "expected int but got Tensor"));
  CHECK(contains(catch_error([] { IValue().tensor(); }).what(), "expected Tensor but got None"));
  CHECK(contains(catch_error([] { IValue(1).tensor_list(); }).what(),
                 "expected Tensor[] but got int"));
  CHECK(contains(catch_error([] { IValue(1).int_list(); }).what(), "expected int[] but got int"));
  CHECK(contains(catch_error([] { IValue(1).to_bool(); }).what(), "expected bool but got int"));
  CHECK(contains(catch_error([] { IValue(1).dtype(); }).what(), "expected ScalarType but got int"));
  CHECK(contains(catch_error([] { IValue(1).string(); }).what(), "expected str but got int"));
  CHECK(contains(catch_error([] { IValue(1).device(); }).what(), "expected Device but got int"));
  CHECK(contains(catch_error([] { IValue(1.0).to_int(); }).what(), "expected int but got float"));
}

}  // namespace
}  // namespace bp
