// Tests for core/src/ops/reductions.cpp: the meta rules of sum, mean, prod, amax, amin,
// argmax, argmin, all and any. Expected shapes and dtypes were checked against PyTorch 1.13;
// kernel_sizes and the canonicalised arguments are the contract of docs/ops.md.
#include "backplane/core/catalog.hpp"

#include "meta_call.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

namespace bp {
namespace {

using test::call_meta;
using test::make_tensor;
using test::meta_error;
using test::str;
using ST = ScalarType;

Tensor T(Shape shape, ST dtype = ST::Float32) {
  return make_tensor(std::move(shape), dtype);
}
IValue dims(std::initializer_list<int64_t> d) {
  return IValue(Shape(d));
}

TEST_CASE("sum: None and [] reduce every dim and are made explicit") {
  for (const IValue& dim : {IValue(), dims({})}) {
    auto c = call_meta("sum.dim_IntList", {T({2, 3}), dim});
    CHECK(str(c.out().sizes) == "[]");
    CHECK(str(c.kernel_sizes()) == "[1, 1]");
    CHECK(str(c.out().dtype) == "f32");
    CHECK(str(c.args[1].int_list()) == "[0, 1]");
  }
  auto kept = call_meta("sum.dim_IntList", {T({2, 3}), IValue(), true});
  CHECK(str(kept.out().sizes) == "[1, 1]");
  CHECK_FALSE(kept.out().kernel_sizes.has_value());
}

TEST_CASE("sum: dims are wrapped and sorted; the kernel sees the keepdim shape") {
  auto c = call_meta("sum.dim_IntList", {T({4, 5, 6}), dims({-1, 0})});
  CHECK(str(c.args[1].int_list()) == "[0, 2]");
  CHECK(str(c.out().sizes) == "[5]");
  CHECK(str(c.kernel_sizes()) == "[1, 5, 1]");
  auto k = call_meta("sum.dim_IntList", {T({4, 5, 6}), dims({1}), true});
  CHECK(str(k.out().sizes) == "[4, 1, 6]");
  CHECK_FALSE(k.out().kernel_sizes.has_value());
}

TEST_CASE("sum: integers and bool sum to i64 without converting self; floats keep dtype") {
  for (ST t : {ST::Bool, ST::Int8, ST::UInt8, ST::Int16, ST::Int32, ST::Int64}) {
    auto c = call_meta("sum.dim_IntList", {T({2, 3}, t), dims({1})});
    CHECK(str(c.out().dtype) == "i64");
    CHECK(str(c.result.compute_dtype) == str(t));
    CHECK(c.result.convert_mask == 0);
  }
  for (ST t : {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64}) {
    auto c = call_meta("sum.dim_IntList", {T({2, 3}, t), dims({1})});
    CHECK(str(c.out().dtype) == str(t));
    CHECK(c.result.convert_mask == 0);
  }
}

TEST_CASE("sum: a dtype argument converts self and gives the result that dtype") {
  auto c = call_meta("sum.dim_IntList", {T({2, 3}), dims({1}), false, ST::Int32});
  CHECK(str(c.out().dtype) == "i32");
  CHECK(str(c.result.compute_dtype) == "i32");
  CHECK(c.result.convert_mask == 1u);
  auto b = call_meta("sum.dim_IntList", {T({2, 3}, ST::Int32), dims({1}), false, ST::Bool});
  CHECK(str(b.out().dtype) == "bool");
  // Already that dtype: nothing to convert.
  auto same = call_meta("sum.dim_IntList", {T({2, 3}), dims({1}), false, ST::Float32});
  CHECK(same.result.convert_mask == 0);
}

TEST_CASE("sum: a 0-d tensor accepts dim 0 and -1 and reduces nothing") {
  for (int64_t d : {0, -1}) {
    auto c = call_meta("sum.dim_IntList", {T({}), dims({d}), true});
    CHECK(str(c.out().sizes) == "[]");
    CHECK(c.args[1].int_list().empty());
  }
  Error e = meta_error("sum.dim_IntList", {T({}), dims({1})});
  CHECK(e.code() == ErrorCode::InvalidArgument);
}

TEST_CASE("sum: an empty reduced dim is fine (the sum of nothing is 0)") {
  auto c = call_meta("sum.dim_IntList", {T({0, 3}), dims({0})});
  CHECK(str(c.out().sizes) == "[3]");
}

TEST_CASE("sum: bad dims are errors naming the op, the argument and the value") {
  Error range = meta_error("sum.dim_IntList", {T({2, 3}), dims({2})});
  CHECK(range.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(range.what()).find("sum.dim_IntList") != std::string::npos);
  CHECK(std::string(range.what()).find("'dim'") != std::string::npos);
  CHECK(std::string(range.what()).find("2") != std::string::npos);
  Error dup = meta_error("sum.dim_IntList", {T({2, 3}), dims({0, -2})});
  CHECK(std::string(dup.what()) ==
        "sum.dim_IntList: dim 0 appears more than once in argument 'dim' [0, -2]");
}

TEST_CASE("mean: floating inputs keep their dtype; dims as sum") {
  for (ST t : {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64}) {
    auto c = call_meta("mean.dim", {T({2, 3}, t), dims({-1})});
    CHECK(str(c.out().dtype) == str(t));
    CHECK(str(c.result.compute_dtype) == str(t));
    CHECK(c.result.convert_mask == 0);
    CHECK(str(c.out().sizes) == "[2]");
    CHECK(str(c.kernel_sizes()) == "[2, 1]");
    CHECK(str(c.args[1].int_list()) == "[1]");
  }
  auto all = call_meta("mean.dim", {T({2, 3}), IValue(), true});
  CHECK(str(all.out().sizes) == "[1, 1]");
  CHECK(str(all.args[1].int_list()) == "[0, 1]");
}

TEST_CASE("mean: integer and bool inputs need a floating dtype argument") {
  for (ST t : {ST::Int32, ST::Bool}) {
    Error e = meta_error("mean.dim", {T({2, 3}, t), dims({1})});
    CHECK(e.code() == ErrorCode::Type);
    CHECK(std::string(e.what()) ==
          fmt::format("mean.dim: argument 'self' has dtype {}, but mean needs a floating dtype; "
                      "pass dtype=f32 (or another floating dtype) to average an integer or "
                      "bool tensor",
                      dtype_name(t)));
  }
  auto c = call_meta("mean.dim", {T({2, 3}, ST::Int32), dims({1}), false, ST::Float32});
  CHECK(str(c.out().dtype) == "f32");
  CHECK(str(c.result.compute_dtype) == "f32");
  CHECK(c.result.convert_mask == 1u);
  auto h = call_meta("mean.dim", {T({2, 3}, ST::Float16), dims({1}), false, ST::Float32});
  CHECK(str(h.out().dtype) == "f32");
  CHECK(h.result.convert_mask == 1u);
}

TEST_CASE("mean: an integer dtype argument is an error") {
  Error e = meta_error("mean.dim", {T({2, 3}), dims({1}), false, ST::Int32});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(std::string(e.what()) ==
        "mean.dim: argument 'dtype' is i32, but mean needs a floating result dtype");
}

TEST_CASE("prod: one dim, wrapped; dtype rules as sum") {
  auto c = call_meta("prod.dim_int", {T({2, 3}), int64_t{-1}});
  CHECK(c.args[1].to_int() == 1);
  CHECK(str(c.out().sizes) == "[2]");
  CHECK(str(c.kernel_sizes()) == "[2, 1]");
  CHECK(str(c.out().dtype) == "f32");
  for (ST t : {ST::Bool, ST::UInt8, ST::Int32}) {
    CHECK(str(call_meta("prod.dim_int", {T({2, 3}, t), int64_t{1}}).out().dtype) == "i64");
  }
  auto d = call_meta("prod.dim_int", {T({2, 3}), int64_t{0}, true, ST::Int32});
  CHECK(str(d.out().sizes) == "[1, 3]");
  CHECK(str(d.out().dtype) == "i32");
  CHECK(d.result.convert_mask == 1u);
}

TEST_CASE("prod: a 0-d tensor takes dim 0 or -1, which becomes 0") {
  auto c = call_meta("prod.dim_int", {T({}), int64_t{-1}, true});
  CHECK(c.args[1].to_int() == 0);
  CHECK(str(c.out().sizes) == "[]");
  CHECK(str(c.kernel_sizes()) == "[]");
}

TEST_CASE("prod: a dim out of range is an error") {
  Error e = meta_error("prod.dim_int", {T({2, 3}), int64_t{5}});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "prod.dim_int: argument 'dim' is 5 but must be in [-2, 1] for a 2-d tensor");
}

TEST_CASE("amax/amin: [] means every dim; the dtype is kept, bool included") {
  for (const char* op : {"amax", "amin"}) {
    auto c = call_meta(op, {T({2, 3})});
    CHECK(str(c.args[1].int_list()) == "[0, 1]");
    CHECK(str(c.out().sizes) == "[]");
    CHECK(str(c.kernel_sizes()) == "[1, 1]");
    auto k = call_meta(op, {T({2, 3}), dims({}), true});
    CHECK(str(k.out().sizes) == "[1, 1]");
    for (ST t : {ST::Bool, ST::Int32, ST::Float16}) {
      auto d = call_meta(op, {T({2, 3}, t), dims({1})});
      CHECK(str(d.out().dtype) == str(t));
      CHECK(str(d.out().sizes) == "[2]");
    }
  }
}

TEST_CASE("amax/amin: reducing a dim of size 0 is an error; other dims may be empty") {
  for (const char* op : {"amax", "amin"}) {
    Error e = meta_error(op, {T({0, 3}), dims({0})});
    CHECK(e.code() == ErrorCode::InvalidArgument);
    CHECK(std::string(e.what()) ==
          fmt::format("{}: cannot reduce dim 0 of 'self', which has size 0 (shape [0, 3]); the "
                      "result of reducing no elements is undefined",
                      op));
    CHECK(meta_error(op, {T({0, 3}), dims({})}).code() == ErrorCode::InvalidArgument);
    auto ok = call_meta(op, {T({0, 3}), dims({1}), true});
    CHECK(str(ok.out().sizes) == "[0, 1]");
  }
}

TEST_CASE("amax: a dim listed twice is an error") {
  Error e = meta_error("amax", {T({2, 3}), dims({1, -1})});
  CHECK(std::string(e.what()) == "amax: dim 1 appears more than once in argument 'dim' [1, -1]");
}

TEST_CASE("amax: a 0-d tensor reduces to itself") {
  auto c = call_meta("amax", {T({}), dims({0})});
  CHECK(str(c.out().sizes) == "[]");
  CHECK(c.args[1].int_list().empty());
}

TEST_CASE("argmax/argmin: dim=None gives a flat index seen as all-ones of self's rank") {
  for (const char* op : {"argmax", "argmin"}) {
    auto c = call_meta(op, {T({2, 3})});
    CHECK(c.args[1].is_none());
    CHECK(str(c.out().dtype) == "i64");
    CHECK(str(c.out().sizes) == "[]");
    CHECK(str(c.kernel_sizes()) == "[1, 1]");
    auto k = call_meta(op, {T({2, 3}), IValue(), true});
    CHECK(str(k.out().sizes) == "[1, 1]");
  }
}

TEST_CASE("argmax/argmin: a dim is wrapped; integer dtypes are allowed") {
  for (const char* op : {"argmax", "argmin"}) {
    auto c = call_meta(op, {T({2, 3}, ST::Int32), int64_t{-1}});
    CHECK(c.args[1].to_int() == 1);
    CHECK(str(c.out().dtype) == "i64");
    CHECK(str(c.out().sizes) == "[2]");
    CHECK(str(c.kernel_sizes()) == "[2, 1]");
    auto k = call_meta(op, {T({2, 3}, ST::UInt8), int64_t{0}, true});
    CHECK(str(k.out().sizes) == "[1, 3]");
  }
}

TEST_CASE("argmax: a 0-d tensor gives a 0-d index") {
  CHECK(str(call_meta("argmax", {T({})}).out().sizes) == "[]");
  auto c = call_meta("argmax", {T({}), int64_t{-1}, true});
  CHECK(c.args[1].to_int() == 0);
  CHECK(str(c.out().sizes) == "[]");
}

TEST_CASE("argmax/argmin: bool input and empty reductions are errors") {
  Error b = meta_error("argmax", {T({2, 3}, ST::Bool)});
  CHECK(b.code() == ErrorCode::Type);
  CHECK(std::string(b.what()) ==
        "argmax: bool tensors are not supported (input 'self' is bool); convert it to an "
        "integer dtype first");
  Error flat = meta_error("argmin", {T({0, 3})});
  CHECK(std::string(flat.what()) ==
        "argmin: argument 'self' is empty (shape [0, 3]) and 'dim' is None; the index over no "
        "elements is undefined");
  Error dim = meta_error("argmax", {T({0, 3}), int64_t{0}});
  CHECK(std::string(dim.what()).find("cannot reduce dim 0 of 'self', which has size 0") !=
        std::string::npos);
  CHECK(str(call_meta("argmax", {T({0, 3}), int64_t{1}}).out().sizes) == "[0]");
}

TEST_CASE("all/any: bool result, except uint8 input gives uint8") {
  for (const char* op : {"all.dim", "any.dim"}) {
    for (ST t : {ST::Float32, ST::Int32, ST::Bool, ST::Float16}) {
      auto c = call_meta(op, {T({2, 3}, t), int64_t{-1}});
      CHECK(str(c.out().dtype) == "bool");
      CHECK(str(c.result.compute_dtype) == str(t));
      CHECK(c.args[1].to_int() == 1);
      CHECK(str(c.out().sizes) == "[2]");
      CHECK(str(c.kernel_sizes()) == "[2, 1]");
    }
    CHECK(str(call_meta(op, {T({2, 3}, ST::UInt8), int64_t{1}}).out().dtype) == "u8");
    CHECK(str(call_meta(op, {T({2, 3}), int64_t{1}, true}).out().sizes) == "[2, 1]");
  }
}

TEST_CASE("all/any: empty dims reduce fine; 0-d takes dim 0; bad dims are errors") {
  CHECK(str(call_meta("all.dim", {T({0, 3}), int64_t{0}}).out().sizes) == "[3]");
  CHECK(str(call_meta("any.dim", {T({}), int64_t{0}}).out().sizes) == "[]");
  Error e = meta_error("all.dim", {T({2, 3}), int64_t{2}});
  CHECK(std::string(e.what()) ==
        "all.dim: argument 'dim' is 2 but must be in [-2, 1] for a 2-d tensor");
}

TEST_CASE("mean decomposes into sum and a division by the number of reduced elements") {
  auto ctx = test::decompose_checked("mean.dim", {T({2, 3}), dims({-1})});
  CHECK(ctx.calls == std::vector<std::string>{"sum.dim_IntList", "div.Tensor"});
  CHECK(str(ctx.args_of("sum.dim_IntList")[3].dtype()) == "f32");
  test::decompose_checked("mean.dim", {T({2, 3}, ST::Float64), IValue(), true});
  test::decompose_checked("mean.dim", {T({}), dims({0})});
  test::decompose_checked("mean.dim", {T({0, 3}), dims({0})});
}

TEST_CASE("mean of f16/bf16 sums in f32 and converts the result once") {
  for (ST t : {ST::Float16, ST::BFloat16}) {
    auto ctx = test::decompose_checked("mean.dim", {T({4, 5}, t), dims({0})});
    CHECK(str(ctx.args_of("sum.dim_IntList")[3].dtype()) == "f32");
    CHECK(ctx.calls.back() == "copy_");
    CHECK(ctx.count("copy_") == 1);
  }
}

TEST_CASE("mean with a dtype converts through sum's dtype argument") {
  auto ctx =
      test::decompose_checked("mean.dim", {T({2, 3}, ST::Int32), dims({1}), false, ST::Float64});
  CHECK(str(ctx.args_of("sum.dim_IntList")[3].dtype()) == "f64");
  CHECK(ctx.count("copy_") == 0);
}

}  // namespace
}  // namespace bp
