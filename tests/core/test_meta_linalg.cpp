// Tests for the meta rules of core/src/ops/linalg.cpp: matmul (shapes for 1-D, 2-D and
// batched operands, the canonical [*B, n, k] @ [*B, k, m] form kernels receive), addmm and
// linear. Result shapes and error cases were checked against PyTorch 1.13.
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
std::string message(const Error& e) {
  return e.what();
}
std::string arg_sizes(const test::MetaCall& c, size_t i) {
  return str(c.args[i].tensor().sizes());
}

TEST_CASE("matmul: 1-D operands are viewed as matrices and the output drops those dims") {
  struct Case {
    Shape a, b;
    const char *out, *kernel, *a_seen, *b_seen;
  };
  const Case cases[] = {
      {{2, 3}, {3}, "[2]", "[2, 1]", "[2, 3]", "[3, 1]"},
      {{3}, {3}, "[]", "[1, 1]", "[1, 3]", "[3, 1]"},
      {{3}, {3, 4}, "[4]", "[1, 4]", "[1, 3]", "[3, 4]"},
      {{5, 2, 3}, {3}, "[5, 2]", "[5, 2, 1]", "[5, 2, 3]", "[5, 3, 1]"},
      {{3}, {5, 3, 2}, "[5, 2]", "[5, 1, 2]", "[5, 1, 3]", "[5, 3, 2]"},
  };
  for (const Case& k : cases) {
    CAPTURE(str(k.a));
    CAPTURE(str(k.b));
    auto c = call_meta("matmul", {T(k.a), T(k.b)});
    CHECK(str(c.out().sizes) == k.out);
    CHECK(str(c.kernel_sizes()) == k.kernel);
    CHECK(arg_sizes(c, 0) == k.a_seen);
    CHECK(arg_sizes(c, 1) == k.b_seen);
  }
}

TEST_CASE("matmul: batch dims broadcast and both operands are expanded to them") {
  auto c = call_meta("matmul", {T({5, 1, 2, 3}), T({4, 3, 2})});
  CHECK(str(c.out().sizes) == "[5, 4, 2, 2]");
  CHECK_FALSE(c.out().kernel_sizes.has_value());
  CHECK(arg_sizes(c, 0) == "[5, 4, 2, 3]");
  CHECK(arg_sizes(c, 1) == "[5, 4, 3, 2]");
  CHECK(c.args[0].tensor().stride(1) == 0);
  CHECK(c.args[1].tensor().stride(0) == 0);

  auto m = call_meta("matmul", {T({5, 2, 3}), T({3, 4})});
  CHECK(str(m.out().sizes) == "[5, 2, 4]");
  CHECK(arg_sizes(m, 1) == "[5, 3, 4]");
  CHECK(m.args[1].tensor().stride(0) == 0);
  auto plain = call_meta("matmul", {T({2, 3}), T({3, 4})});
  CHECK(str(plain.out().sizes) == "[2, 4]");
  CHECK(arg_sizes(plain, 0) == "[2, 3]");
}

TEST_CASE("matmul: empty operands, integer dtypes") {
  CHECK(str(call_meta("matmul", {T({2, 0}), T({0, 4})}).out().sizes) == "[2, 4]");
  CHECK(str(call_meta("matmul", {T({0, 3}), T({3, 0})}).out().sizes) == "[0, 0]");
  auto c = call_meta("matmul", {T({2, 3}, ST::Int32), T({3, 2}, ST::Int32)});
  CHECK(str(c.out().dtype) == "i32");
  CHECK(str(c.result.compute_dtype) == "i32");
  CHECK(c.result.convert_mask == 0);
}

TEST_CASE("matmul: 0-d operands and mismatched sizes are shape errors") {
  Error z = meta_error("matmul", {T({}), T({2, 3})});
  CHECK(z.code() == ErrorCode::Shape);
  CHECK(message(z) ==
        "matmul: both arguments must have at least 1 dim, but 'self' has shape [] "
        "and 'other' has shape [2, 3]");
  Error k = meta_error("matmul", {T({2, 3}), T({2, 3})});
  CHECK(message(k) ==
        "matmul: argument 'other' has shape [2, 3] and 'self' has shape [2, 3]; "
        "the contracted sizes differ (3 in 'self''s last dim, 2 in 'other''s "
        "second-to-last dim)");
  Error v = meta_error("matmul", {T({3}), T({4})});
  CHECK(message(v) ==
        "matmul: argument 'other' has shape [4] and 'self' has shape [3]; the "
        "contracted sizes differ (3 in 'self''s last dim, 4 in 'other''s only "
        "dim)");
  CHECK(meta_error("matmul", {T({5, 2, 2, 3}), T({4, 3, 2})}).code() == ErrorCode::Shape);
}

TEST_CASE("matmul: operands of different dtypes, and bool, are type errors") {
  Error e = meta_error("matmul", {T({2, 3}), T({3, 2}, ST::Float64)});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(message(e) ==
        "matmul: argument 'other' has dtype f64 but 'self' has dtype f32; matmul "
        "does not promote, so convert one of them first");
  Error b = meta_error("matmul", {T({2, 3}, ST::Bool), T({3, 2}, ST::Bool)});
  CHECK(message(b) ==
        "matmul: argument 'self' has dtype bool, which matmul does not support; "
        "convert it to an integer or floating dtype");
}

TEST_CASE("addmm: self broadcasts to [n, m] and is given expanded") {
  for (Shape s : {Shape{2, 4}, Shape{4}, Shape{1, 4}, Shape{2, 1}, Shape{}}) {
    CAPTURE(str(s));
    auto c = call_meta("addmm", {T(s), T({2, 3}), T({3, 4})});
    CHECK(str(c.out().sizes) == "[2, 4]");
    CHECK(str(c.out().dtype) == "f32");
    CHECK(arg_sizes(c, 0) == "[2, 4]");
  }
}

TEST_CASE("addmm: shape errors name the argument") {
  Error s = meta_error("addmm", {T({3, 4}), T({2, 3}), T({3, 4})});
  CHECK(s.code() == ErrorCode::Shape);
  CHECK(message(s) ==
        "addmm: argument 'self' has shape [3, 4], which does not broadcast to the "
        "product's shape [2, 4]");
  CHECK(meta_error("addmm", {T({1, 2, 4}), T({2, 3}), T({3, 4})}).code() == ErrorCode::Shape);
  Error m = meta_error("addmm", {T({4}), T({3}), T({3, 4})});
  CHECK(message(m) == "addmm: argument 'mat1' must be a matrix (2 dims), but has shape [3]");
  Error k = meta_error("addmm", {T({2, 4}), T({2, 3}), T({2, 4})});
  CHECK(message(k) ==
        "addmm: argument 'mat2' has shape [2, 4] and 'mat1' has shape [2, 3]; "
        "mat2's first dim must equal mat1's last dim");
}

TEST_CASE("addmm: all three tensors must share a dtype") {
  Error s = meta_error("addmm", {T({2, 4}, ST::Float64), T({2, 3}), T({3, 4})});
  CHECK(s.code() == ErrorCode::Type);
  CHECK(message(s) ==
        "addmm: argument 'self' has dtype f64 but 'mat1' has dtype f32; addmm "
        "does not promote, so convert one of them first");
  CHECK(meta_error("addmm", {T({2, 4}), T({2, 3}), T({3, 4}, ST::Float64)}).code() ==
        ErrorCode::Type);
}

TEST_CASE("addmm: integer tensors truncate beta and alpha, as PyTorch") {
  auto c = call_meta("addmm", {T({2, 4}, ST::Int32), T({2, 3}, ST::Int32), T({3, 4}, ST::Int32),
                               Scalar(1.7), Scalar(2.9)});
  CHECK(c.args[3].scalar().is_integral());
  CHECK(c.args[3].scalar().to_int() == 1);
  CHECK(c.args[4].scalar().to_int() == 2);
  auto b = call_meta("addmm", {T({2, 4}, ST::Int32), T({2, 3}, ST::Int32), T({3, 4}, ST::Int32),
                               Scalar(true), Scalar(0.5)});
  CHECK(b.args[3].scalar().to_int() == 1);
  CHECK(b.args[4].scalar().to_int() == 0);
  auto f = call_meta("addmm", {T({2, 4}), T({2, 3}), T({3, 4}), Scalar(0.5), Scalar(2.5)});
  CHECK(f.args[3].scalar().to_double() == 0.5);
  CHECK(f.args[4].scalar().to_double() == 2.5);
}

TEST_CASE("linear: weight [out, in] or [in]; bias broadcast to the output") {
  struct Case {
    Shape input, weight;
    const char* out;
  };
  const Case cases[] = {
      {{2, 3}, {4, 3}, "[2, 4]"},
      {{2, 3}, {3}, "[2]"},
      {{3}, {4, 3}, "[4]"},
      {{3}, {3}, "[]"},
      {{5, 2, 3}, {4, 3}, "[5, 2, 4]"},
  };
  for (const Case& k : cases) {
    CHECK(str(call_meta("linear", {T(k.input), T(k.weight)}).out().sizes) == k.out);
  }
  for (Shape b : {Shape{4}, Shape{2, 4}, Shape{1}, Shape{}}) {
    CHECK(str(call_meta("linear", {T({2, 3}), T({4, 3}), T(b)}).out().sizes) == "[2, 4]");
  }
  CHECK(str(call_meta("linear", {T({5, 2, 3}), T({4, 3}), T({2, 4})}).out().sizes) == "[5, 2, 4]");
  CHECK(str(call_meta("linear", {T({2, 3}), T({3}), T({})}).out().sizes) == "[2]");
}

TEST_CASE("linear: shape and dtype errors name the argument") {
  Error b = meta_error("linear", {T({2, 3}), T({4, 3}), T({3, 4})});
  CHECK(b.code() == ErrorCode::Shape);
  CHECK(message(b) ==
        "linear: argument 'bias' has shape [3, 4], which does not broadcast to "
        "the output's shape [2, 4]");
  Error w = meta_error("linear", {T({2, 3}), T({4, 3, 1})});
  CHECK(message(w) ==
        "linear: argument 'weight' has shape [4, 3, 1], but it must have 1 or 2 "
        "dims");
  Error i = meta_error("linear", {T({}), T({4, 3})});
  CHECK(message(i) == "linear: argument 'input' has shape [], but it must have at least 1 dim");
  Error k = meta_error("linear", {T({2, 3}), T({4, 2})});
  CHECK(message(k) ==
        "linear: argument 'weight' has shape [4, 2] and 'input' has shape [2, 3]; "
        "their last dims (in_features) must be equal");
  Error wd = meta_error("linear", {T({2, 3}), T({4, 3}, ST::Float64)});
  CHECK(wd.code() == ErrorCode::Type);
  CHECK(message(wd) ==
        "linear: argument 'weight' has dtype f64 but 'input' has dtype f32; "
        "linear does not promote, so convert one of them first");
  Error bd = meta_error("linear", {T({2, 3}), T({4, 3}), T({4}, ST::Float16)});
  CHECK(message(bd) ==
        "linear: argument 'bias' has dtype f16 but 'input' has dtype f32; linear "
        "does not promote, so convert one of them first");
}

TEST_CASE("addmm decomposes into matmul, a scale by alpha and add with alpha=beta") {
  auto c = test::decompose_checked("addmm", {T({4}), T({2, 3}), T({3, 4})});
  CHECK(c.calls == std::vector<std::string>{"matmul", "add.Tensor"});
  CHECK(c.args_of("add.Tensor")[2].scalar().to_double() == 1.0);
  auto a =
      test::decompose_checked("addmm", {T({2, 4}), T({2, 3}), T({3, 4}), Scalar(0.5), Scalar(2.0)});
  CHECK(a.calls == std::vector<std::string>{"matmul", "mul.Tensor", "add.Tensor"});
  CHECK(a.args_of("add.Tensor")[2].scalar().to_double() == 0.5);
}

TEST_CASE("addmm with beta == 0 never reads self (its NaNs do not propagate)") {
  auto c = test::decompose_checked("addmm", {T({2, 4}), T({2, 3}), T({3, 4}), Scalar(0)});
  CHECK(c.calls == std::vector<std::string>{"matmul"});
  auto i = test::decompose_checked("addmm", {T({2, 4}, ST::Int64), T({2, 3}, ST::Int64),
                                             T({3, 4}, ST::Int64), Scalar(0.5), Scalar(2.9)});
  CHECK(i.calls == std::vector<std::string>{"matmul", "mul.Tensor"});
}

TEST_CASE("linear decomposes into matmul with the transposed weight, then add") {
  auto c = test::decompose_checked("linear", {T({5, 2, 3}), T({4, 3}), T({4})});
  CHECK(c.calls == std::vector<std::string>{"matmul", "add.Tensor"});
  CHECK(str(c.args_of("matmul")[1].tensor().sizes()) == "[3, 4]");
  auto v = test::decompose_checked("linear", {T({2, 3}), T({3})});
  CHECK(v.calls == std::vector<std::string>{"matmul"});
  test::decompose_checked("linear", {T({3}), T({4, 3}), T({})});
}

}  // namespace
}  // namespace bp
