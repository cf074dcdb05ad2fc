// Tests for core/src/dtype.cpp: names, sizes, promote_types, result_type and can_cast.
// The expected tables were produced once with PyTorch 1.13 (torch.promote_types,
// torch.result_type, torch.can_cast) and pasted here as data.
#include "backplane/core/dtype.hpp"

#include "backplane/core/error.hpp"

#include <doctest/doctest.h>

#include <array>

namespace bp {
namespace {

using ST = ScalarType;
constexpr ST b1 = ST::Bool, i1 = ST::Int8, u1 = ST::UInt8, i2 = ST::Int16, i4 = ST::Int32,
             i8 = ST::Int64, f2 = ST::Float16, bf = ST::BFloat16, f4 = ST::Float32,
             f8 = ST::Float64;
// Row/column order of every table below.
constexpr std::array<ST, kNumScalarTypes> kAll = {b1, i1, u1, i2, i4, i8, f2, bf, f4, f8};
using Table = std::array<std::array<ST, kNumScalarTypes>, kNumScalarTypes>;

// torch.promote_types(kAll[row], kAll[col])
constexpr Table kPromote = {{
    {b1, i1, u1, i2, i4, i8, f2, bf, f4, f8},
    {i1, i1, i2, i2, i4, i8, f2, bf, f4, f8},
    {u1, i2, u1, i2, i4, i8, f2, bf, f4, f8},
    {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8},
    {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8},
    {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
    {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8},
    {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8},
    {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8},
    {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
}};

// torch.result_type(ones(2, dtype=kAll[row]), ones((), dtype=kAll[col]))
constexpr Table kDimWithZeroDim = {{
    {b1, i1, u1, i2, i4, i8, f2, bf, f4, f8},
    {i1, i1, i1, i1, i1, i1, f2, bf, f4, f8},
    {u1, u1, u1, u1, u1, u1, f2, bf, f4, f8},
    {i2, i2, i2, i2, i2, i2, f2, bf, f4, f8},
    {i4, i4, i4, i4, i4, i4, f2, bf, f4, f8},
    {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8},
    {f2, f2, f2, f2, f2, f2, f2, f2, f2, f2},
    {bf, bf, bf, bf, bf, bf, bf, bf, bf, bf},
    {f4, f4, f4, f4, f4, f4, f4, f4, f4, f4},
    {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8},
}};

// torch.result_type(t, s) for s in (True, 2, 2.5), where t has dtype kAll[row]; PyTorch gives
// the same rows for a 1-d and a 0-d t.
constexpr std::array<std::array<ST, 3>, kNumScalarTypes> kWithWrapped = {{
    {b1, i8, f4},
    {i1, i1, f4},
    {u1, u1, f4},
    {i2, i2, f4},
    {i4, i4, f4},
    {i8, i8, f4},
    {f2, f2, f2},
    {bf, bf, bf},
    {f4, f4, f4},
    {f8, f8, f8},
}};
constexpr std::array<ST, 3> kScalarKinds = {b1, i8, f8};

// torch.can_cast(kAll[row], kAll[col])
constexpr std::array<std::array<bool, kNumScalarTypes>, kNumScalarTypes> kCanCast = {{
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 1, 1, 1, 1, 1, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
    {0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
}};

TEST_CASE("dtype names round-trip through parse_dtype") {
  for (ST t : kAll) CHECK(parse_dtype(dtype_name(t)) == t);
  CHECK(dtype_name(f4) == "f32");
  CHECK(dtype_name(bf) == "bf16");
  CHECK(dtype_name(b1) == "bool");
  CHECK(dtype_name(ST::Undefined) == "undefined");
  CHECK(dtype_name(static_cast<ST>(42)) == "invalid");
}

TEST_CASE("parse_dtype accepts PyTorch's names and rejects others") {
  CHECK(parse_dtype("float32") == f4);
  CHECK(parse_dtype("float") == f4);
  CHECK(parse_dtype("torch.float32") == f4);
  CHECK(parse_dtype("half") == f2);
  CHECK(parse_dtype("float16") == f2);
  CHECK(parse_dtype("bfloat16") == bf);
  CHECK(parse_dtype("float64") == f8);
  CHECK(parse_dtype("double") == f8);
  CHECK(parse_dtype("int8") == i1);
  CHECK(parse_dtype("uint8") == u1);
  CHECK(parse_dtype("int16") == i2);
  CHECK(parse_dtype("short") == i2);
  CHECK(parse_dtype("int32") == i4);
  CHECK(parse_dtype("int") == i4);
  CHECK(parse_dtype("int64") == i8);
  CHECK(parse_dtype("long") == i8);
  CHECK(parse_dtype("bool") == b1);
  CHECK_FALSE(parse_dtype("f33").has_value());
  CHECK_FALSE(parse_dtype("").has_value());
  CHECK_FALSE(parse_dtype("Float32").has_value());
  CHECK_FALSE(parse_dtype("complex64").has_value());
}

TEST_CASE("element_size matches each dtype and rejects Undefined") {
  constexpr std::array<size_t, kNumScalarTypes> sizes = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8};
  for (size_t i = 0; i < kAll.size(); ++i) CHECK(element_size(kAll[i]) == sizes[i]);
  CHECK_THROWS_AS(element_size(ST::Undefined), Error);
}

TEST_CASE("dtype categories") {
  CHECK(is_floating(bf));
  CHECK_FALSE(is_floating(i8));
  CHECK(is_integral(u1));
  CHECK_FALSE(is_integral(b1));
  CHECK(is_integral(b1, /*include_bool=*/true));
  CHECK_FALSE(is_valid(ST::Undefined));
}

TEST_CASE("promote_types matches torch.promote_types for every pair") {
  for (size_t r = 0; r < kAll.size(); ++r) {
    for (size_t c = 0; c < kAll.size(); ++c) {
      CAPTURE(dtype_name(kAll[r]));
      CAPTURE(dtype_name(kAll[c]));
      CHECK(promote_types(kAll[r], kAll[c]) == kPromote[r][c]);
    }
  }
}

TEST_CASE("promote_types rejects an undefined dtype") {
  CHECK_THROWS_AS(promote_types(ST::Undefined, f4), Error);
}

TEST_CASE("result_type of two tensors of one priority is promote_types") {
  for (size_t r = 0; r < kAll.size(); ++r) {
    for (size_t c = 0; c < kAll.size(); ++c) {
      ResultTypeState dims;
      dims.add_tensor(kAll[r], 1, false);
      dims.add_tensor(kAll[c], 3, false);
      CHECK(dims.result() == kPromote[r][c]);
      ResultTypeState zeros;
      zeros.add_tensor(kAll[r], 0, false);
      zeros.add_tensor(kAll[c], 0, false);
      CHECK(zeros.result() == kPromote[r][c]);
    }
  }
}

TEST_CASE("result_type of a dimensioned tensor and a 0-d tensor matches torch") {
  for (size_t r = 0; r < kAll.size(); ++r) {
    for (size_t c = 0; c < kAll.size(); ++c) {
      CAPTURE(dtype_name(kAll[r]));
      CAPTURE(dtype_name(kAll[c]));
      ResultTypeState s;
      s.add_tensor(kAll[c], 0, false);  // order of adding does not matter
      s.add_tensor(kAll[r], 2, false);
      CHECK(s.result() == kDimWithZeroDim[r][c]);
    }
  }
}

TEST_CASE("result_type of a tensor and a Python scalar matches torch for 1-d and 0-d") {
  for (size_t r = 0; r < kAll.size(); ++r) {
    for (size_t k = 0; k < kScalarKinds.size(); ++k) {
      CAPTURE(dtype_name(kAll[r]));
      CAPTURE(dtype_name(kScalarKinds[k]));
      for (int64_t dim : {0, 1}) {
        ResultTypeState via_scalar;
        via_scalar.add_tensor(kAll[r], dim, false);
        via_scalar.add_scalar(kScalarKinds[k]);
        CHECK(via_scalar.result() == kWithWrapped[r][k]);
        // A wrapped-number tensor (a Scalar argument made into a 0-d tensor) is the same.
        ResultTypeState via_wrapped;
        via_wrapped.add_tensor(kAll[r], dim, false);
        via_wrapped.add_tensor(kScalarKinds[k], 0, true);
        CHECK(via_wrapped.result() == kWithWrapped[r][k]);
      }
    }
  }
}

TEST_CASE("result_type over three priorities matches torch") {
  struct Case {
    ST dim, zero, third;
    int64_t third_dim;
    ST expected;
  };
  // torch.addcmul(ones(2, dtype=dim), ones((), dtype=zero), third).dtype
  const Case cases[] = {
      {i4, f8, i1, 0, f8}, {b1, i1, u1, 0, i2}, {i1, f8, u1, 1, f8}, {u1, i2, f4, 0, f4},
      {b1, b1, i1, 0, i1}, {b1, u1, i1, 0, i2}, {f4, f8, i8, 0, f4},
  };
  for (const Case& c : cases) {
    ResultTypeState s;
    s.add_tensor(c.dim, 2, false);
    s.add_tensor(c.zero, 0, false);
    s.add_tensor(c.third, c.third_dim, false);
    CHECK(s.result() == c.expected);
  }
  // The lowest priority still raises the category of the higher two:
  // ones(2, i32) with ones((), i64) and 2.5 gives f32 (PyTorch's combine_categories).
  ResultTypeState s;
  s.add_tensor(i4, 1, false);
  s.add_tensor(i8, 0, false);
  s.add_scalar(f8);
  CHECK(s.result() == f4);
}

TEST_CASE("result_type examples from the PyTorch docs") {
  auto rt = [](auto&&... add) {
    ResultTypeState s;
    (add(s), ...);
    return s.result();
  };
  auto tensor = [](ST t, int64_t dim) {
    return [=](ResultTypeState& s) { s.add_tensor(t, dim, false); };
  };
  auto scalar = [](ST t) { return [=](ResultTypeState& s) { s.add_scalar(t); }; };
  CHECK(rt(tensor(i8, 1), tensor(f8, 0)) == f8);  // int tensor + f64 0-d tensor
  CHECK(rt(tensor(i4, 1), scalar(f8)) == f4);     // int tensor + 2.5
  CHECK(rt(tensor(f2, 1), tensor(f8, 0)) == f2);  // f16 tensor + f64 0-d tensor
  CHECK(rt(tensor(f2, 0), scalar(f8)) == f2);     // 0-d f16 + 2.5
  CHECK(rt(tensor(u1, 1), scalar(i8)) == u1);     // u8 tensor + 1000
  CHECK(rt(tensor(b1, 1), scalar(i8)) == i8);     // bool tensor + 1
  CHECK(rt(scalar(i8), scalar(f8)) == f4);        // two Python numbers
  CHECK(rt(scalar(b1)) == b1);
}

TEST_CASE("result_type ignores undefined tensors and is Undefined with no operands") {
  ResultTypeState s;
  CHECK(s.result() == ST::Undefined);
  s.add_tensor(ST::Undefined, 2, false);
  CHECK(s.result() == ST::Undefined);
  s.add_tensor(i2, 2, false);
  CHECK(s.result() == i2);
}

TEST_CASE("can_cast matches torch.can_cast for every pair") {
  for (size_t r = 0; r < kAll.size(); ++r) {
    for (size_t c = 0; c < kAll.size(); ++c) {
      CAPTURE(dtype_name(kAll[r]));
      CAPTURE(dtype_name(kAll[c]));
      CHECK(can_cast(kAll[r], kAll[c]) == kCanCast[r][c]);
    }
  }
}

}  // namespace
}  // namespace bp
