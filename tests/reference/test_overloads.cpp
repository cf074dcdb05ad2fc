// The typed API of the overloads that decompose into another overload of the same op
// (core/src/ops: pow.Scalar, clamp.Tensor, where.Scalar/ScalarSelf/ScalarOther,
// fill_.Tensor, prod/all/any of every element), end to end on the reference backend.
// Expected values are PyTorch 1.13 output pasted as data; the differential test
// (tests/differential/) checks the same ops against PyTorch over every dtype.
#include "reference_checks.hpp"

namespace bp::test {
namespace {

using ST = ScalarType;

TEST_CASE("pow.Scalar: a number to tensor powers, promoted as a wrapped number") {
  // torch.pow(2, torch.tensor([1, 2, 3], dtype=torch.int32)) -> int32 [2, 4, 8]
  check_values(pow(Scalar(int64_t{2}), make<int32_t>({1, 2, 3}, {3})), ST::Int32, {3}, {2, 4, 8});
  // torch.pow(2.5, int32 [1, 2]) -> float32 [2.5, 6.25]
  check_values(pow(Scalar(2.5), make<int32_t>({1, 2}, {2})), ST::Float32, {2}, {2.5, 6.25});
  // torch.pow(2, int32 [-1, -2]) -> [0, 0]: integer powers with negative exponents
  check_values(pow(Scalar(int64_t{2}), make<int32_t>({-1, -2}, {2})), ST::Int32, {2}, {0, 0});
  // torch.pow(2, bool [True, False]) -> int64 [2, 1]
  check_i64(pow(Scalar(int64_t{2}), make<bool>({1, 0}, {2})), {2}, {2, 1});
  check_error([] { pow(Scalar(true), make<bool>({1, 0}, {2})); }, ErrorCode::Type, "bool");
}

TEST_CASE("pow.Tensor_Scalar: the exponent must fit an integral or half result") {
  // torch.pow(int8 tensor, 300): "value cannot be converted to type int8_t without overflow"
  check_error(
      [] {
        pow(make<int8_t>({1, 2}, {2}), Scalar(int64_t{300}));
      },
      ErrorCode::InvalidArgument, "without overflow");
  check_error(
      [] {
        pow(make<Half>({1, 2}, {2}), Scalar(1e10));
      },
      ErrorCode::InvalidArgument, "without overflow");
  // f32 reads the exponent as a double: torch.pow(f32 [1, 2], 1e300) -> [1, inf]
  check_values(pow(make<float>({1, 2}, {2}), Scalar(1e300)), ST::Float32, {2}, {1, kInf});
}

TEST_CASE("clamp.Tensor: bounds broadcast and promote; NaN bounds propagate") {
  const Tensor x = make<float>({-2, 0, kNaN, 5}, {4});
  // torch.clamp(x, torch.tensor(-1.), torch.tensor([1., 2., 3., nan])) -> [-1, 0, nan, nan]
  check_values(clamp(x, std::optional<Tensor>(make<float>({-1}, {})),
                     std::optional<Tensor>(make<float>({1, 2, 3, kNaN}, {4}))),
               ST::Float32, {4}, {-1, 0, kNaN, kNaN});
  // min > max gives max: torch.clamp([1., 5., 9.], [3.], [2.]) -> [2, 2, 2]
  check_values(clamp(make<float>({1, 5, 9}, {3}), std::optional<Tensor>(make<float>({3}, {1})),
                     std::optional<Tensor>(make<float>({2}, {1}))),
               ST::Float32, {3}, {2, 2, 2});
  // int8 [1, 2] with an int64 [10] bound -> int64 [10, 10] (a dimensioned bound promotes)
  check_i64(clamp(make<int8_t>({1, 2}, {2}), std::optional<Tensor>(make<int64_t>({10}, {1}))), {2},
            {10, 10});
  // ... and a 0-d one does not: int8 with torch.tensor(10) stays int8
  check_values(clamp(make<int8_t>({1, 2}, {2}), std::optional<Tensor>(make<int64_t>({10}, {}))),
               ST::Int8, {2}, {10, 10});
  check_error([] { clamp(make<float>({1}, {1}), std::optional<Tensor>(), std::nullopt); },
              ErrorCode::InvalidArgument, "at least one of");
  check_error(
      [] {
        clamp(make<bool>({1, 0}, {2}), std::optional<Tensor>(make<bool>({1}, {1})));
      },
      ErrorCode::Type, "bool");
}

TEST_CASE("where with numbers: promoted as wrapped numbers, checked against the result") {
  const Tensor c = make<bool>({1, 0}, {2});
  // torch.where(c, 1, 0) -> int64 [1, 0]; torch.where(c, 1., 0) -> float32 [1, 0]
  check_i64(where(c, Scalar(int64_t{1}), Scalar(int64_t{0})), {2}, {1, 0});
  check_values(where(c, Scalar(1.0), Scalar(int64_t{0})), ST::Float32, {2}, {1, 0});
  // where.ScalarSelf(c, 1.5, int32 [1, 2]) -> float32 [1.5, 2]
  check_values(where(c, Scalar(1.5), make<int32_t>({1, 2}, {2})), ST::Float32, {2}, {1.5, 2});
  // where.ScalarOther(c, int8 [1, 2], 100) -> int8 [1, 100]; 300 does not fit int8
  check_values(where(c, make<int8_t>({1, 2}, {2}), Scalar(int64_t{100})), ST::Int8, {2}, {1, 100});
  check_error(
      [&] {
        where(c, make<int8_t>({1, 2}, {2}), Scalar(int64_t{300}));
      },
      ErrorCode::InvalidArgument, "without overflow");
  check_error(
      [] {
        where(make<uint8_t>({1, 0}, {2}), Scalar(1.0), Scalar(2.0));
      },
      ErrorCode::Type, "must be a bool tensor");
}

TEST_CASE("fill_.Tensor: a 0-d value, converted as copy_ converts") {
  Tensor t = make<int32_t>({0, 0, 0}, {3});
  fill_(t, make<float>({2.7}, {}));  // torch: zeros(3, int32).fill_(tensor(2.7)) -> [2, 2, 2]
  check_values(t, ST::Int32, {3}, {2, 2, 2});
  // A value that is an element of self is read before self is written.
  Tensor u = make<float>({1, 2, 3}, {3});
  fill_(u, u.as_strided({}, {}, 2));
  check_values(u, ST::Float32, {3}, {3, 3, 3});
  // A self whose stride-0 dim makes its elements one location is filled (as fill_.Scalar).
  Tensor base = make<float>({0, 0}, {2});
  Tensor expanded = base.as_strided({3, 2}, {0, 1});
  fill_(expanded, make<float>({4}, {}));
  check_values(base, ST::Float32, {2}, {4, 4});
  check_error(
      [&] {
        fill_(t, make<float>({1, 2}, {2}));
      },
      ErrorCode::Shape, "must be a 0-d tensor");
}

TEST_CASE("prod, all and any of every element") {
  const Tensor x = make<int8_t>({2, 3, -1, 4}, {2, 2});
  check_i64(prod(x), {}, {-24});  // ints give int64, as prod.dim_int
  check_values(prod(make<float>({2, 3}, {2}), ST::Float64), ST::Float64, {}, {6});
  check_values(prod(make<float>({}, {0})), ST::Float32, {}, {1});  // empty: 1
  check_values(all(make<float>({1, 0, 2}, {3})), ST::Bool, {}, {0});
  check_values(any(make<float>({0, 0, kNaN}, {3})), ST::Bool, {}, {1});  // NaN is true
  check_values(all(make<uint8_t>({1, 2}, {2})), ST::UInt8, {}, {1});     // u8 stays u8
  check_values(all(make<bool>({}, {0})), ST::Bool, {}, {1});
  check_values(any(make<bool>({}, {0})), ST::Bool, {}, {0});
  // A transposed input that cannot be flattened as a view.
  const Tensor t = make<float>({1, 2, 3, 4, 5, 6}, {2, 3}).as_strided({3, 2}, {1, 3});
  check_values(prod(t), ST::Float32, {}, {720});
}

}  // namespace
}  // namespace bp::test
