// Tests for the meta rules of core/src/ops/nn.cpp: softmax, log_softmax, layer_norm,
// rms_norm and scaled_dot_product_attention. Shapes, dtypes and which calls are errors were
// checked against PyTorch (1.13 for softmax and layer_norm; the documented semantics of 2.x
// for rms_norm and scaled_dot_product_attention, which 1.13 lacks).
#include "backplane/core/catalog.hpp"

#include "meta_call.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <limits>

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
IValue shape(std::initializer_list<int64_t> d) {
  return IValue(Shape(d));
}
std::string message(const Error& e) {
  return e.what();
}

TEST_CASE("softmax/log_softmax: same shape and dtype; dim wrapped") {
  for (const char* op : {"softmax.int", "log_softmax.int"}) {
    for (ST t : {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64}) {
      auto c = call_meta(op, {T({2, 3}, t), int64_t{-1}});
      CHECK(c.args[1].to_int() == 1);
      CHECK(str(c.out().sizes) == "[2, 3]");
      CHECK(str(c.out().dtype) == str(t));
      CHECK(str(c.result.compute_dtype) == str(t));
      CHECK(c.result.convert_mask == 0);
      CHECK_FALSE(c.out().kernel_sizes.has_value());
    }
  }
}

TEST_CASE("softmax: a dtype argument converts self and sets the result dtype") {
  auto c = call_meta("softmax.int", {T({2, 3}, ST::Int32), int64_t{1}, ST::Float32});
  CHECK(str(c.out().dtype) == "f32");
  CHECK(str(c.result.compute_dtype) == "f32");
  CHECK(c.result.convert_mask == 1u);
  auto h = call_meta("log_softmax.int", {T({2, 3}), int64_t{0}, ST::Float16});
  CHECK(str(h.out().dtype) == "f16");
  CHECK(h.result.convert_mask == 1u);
}

TEST_CASE("softmax: integer inputs without a floating dtype are errors") {
  Error e = meta_error("softmax.int", {T({2, 3}, ST::Int32), int64_t{1}});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(message(e) ==
        "softmax.int: argument 'self' has dtype i32, but softmax.int needs a floating dtype; "
        "pass dtype=f32 (or another floating dtype) to convert it");
  CHECK(meta_error("log_softmax.int", {T({2, 3}, ST::Bool), int64_t{1}}).code() == ErrorCode::Type);
  Error d = meta_error("softmax.int", {T({2, 3}), int64_t{1}, ST::Int32});
  CHECK(message(d) ==
        "softmax.int: argument 'dtype' is i32, but softmax.int needs a floating dtype");
}

TEST_CASE("softmax: 0-d and empty inputs; a bad dim is an error") {
  auto z = call_meta("softmax.int", {T({}), int64_t{-1}});
  CHECK(z.args[1].to_int() == 0);
  CHECK(str(z.out().sizes) == "[]");
  CHECK(str(call_meta("softmax.int", {T({2, 0}), int64_t{1}}).out().sizes) == "[2, 0]");
  Error e = meta_error("softmax.int", {T({2, 3}), int64_t{2}});
  CHECK(message(e) == "softmax.int: argument 'dim' is 2 but must be in [-2, 1] for a 2-d tensor");
}

TEST_CASE("layer_norm: normalized_shape names input's trailing dims") {
  auto c = call_meta("layer_norm", {T({2, 3}), shape({3}), T({3}), T({3})});
  CHECK(str(c.out().sizes) == "[2, 3]");
  CHECK(str(c.out().dtype) == "f32");
  CHECK(c.result.convert_mask == 0);
  CHECK(str(call_meta("layer_norm", {T({4, 2, 3}, ST::Float16), shape({2, 3})}).out().dtype) ==
        "f16");
  CHECK(str(call_meta("layer_norm", {T({0, 3}), shape({3})}).out().sizes) == "[0, 3]");
  CHECK(str(call_meta("layer_norm", {T({2, 0}), shape({0})}).out().sizes) == "[2, 0]");
}

TEST_CASE("layer_norm: a normalized_shape that does not match input is an error") {
  Error e = meta_error("layer_norm", {T({2, 3}), shape({2})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(message(e) ==
        "layer_norm: argument 'normalized_shape' is [2], but 'input' has shape [2, 3]; its "
        "last 1 dims must equal normalized_shape");
  CHECK(meta_error("layer_norm", {T({2, 3}), shape({4, 2, 3})}).code() == ErrorCode::Shape);
  CHECK(meta_error("layer_norm", {T({2, 3}), shape({-3})}).code() == ErrorCode::Shape);
  Error empty = meta_error("layer_norm", {T({2, 3}), shape({})});
  CHECK(message(empty) ==
        "layer_norm: argument 'normalized_shape' is [], but it must name at least one dim");
}

TEST_CASE("layer_norm: weight and bias must have normalized_shape and input's dtype") {
  Error w = meta_error("layer_norm", {T({2, 3}), shape({3}), T({4})});
  CHECK(message(w) ==
        "layer_norm: argument 'weight' has shape [4], but it must equal normalized_shape [3]");
  CHECK(meta_error("layer_norm", {T({2, 3}), shape({3}), T({1, 3})}).code() == ErrorCode::Shape);
  Error b = meta_error("layer_norm", {T({2, 3}), shape({3}), IValue(), T({3}, ST::Float64)});
  CHECK(b.code() == ErrorCode::Type);
  CHECK(message(b) ==
        "layer_norm: argument 'bias' has dtype f64, but 'input' has f32; they must match");
  CHECK(meta_error("layer_norm", {T({2, 3}, ST::BFloat16), shape({3}), T({3})}).code() ==
        ErrorCode::Type);
}

TEST_CASE("layer_norm: integer input is an error") {
  Error e = meta_error("layer_norm", {T({2, 3}, ST::Int32), shape({3})});
  CHECK(message(e) ==
        "layer_norm: argument 'input' has dtype i32, but layer_norm needs a "
        "floating dtype");
}

TEST_CASE("rms_norm: eps=None becomes the dtype's machine epsilon (torch.finfo(dtype).eps)") {
  const std::pair<ST, double> cases[] = {
      {ST::Float16, 0.0009765625},
      {ST::BFloat16, 0.0078125},
      {ST::Float32, 1.1920928955078125e-07},
      {ST::Float64, 2.220446049250313e-16},
  };
  for (auto [t, eps] : cases) {
    auto c = call_meta("rms_norm", {T({2, 3}, t), shape({3})});
    CHECK(c.args[3].to_double() == eps);
    CHECK(str(c.out().dtype) == str(t));
    CHECK(str(c.out().sizes) == "[2, 3]");
  }
  auto given = call_meta("rms_norm", {T({2, 3}), shape({3}), T({3}), 1e-6});
  CHECK(given.args[3].to_double() == 1e-6);
}

TEST_CASE("rms_norm: shape and dtype checks as layer_norm") {
  Error e = meta_error("rms_norm", {T({2, 3}), shape({2, 2})});
  CHECK(message(e) ==
        "rms_norm: argument 'normalized_shape' is [2, 2], but 'input' has shape [2, 3]; its "
        "last 2 dims must equal normalized_shape");
  Error w = meta_error("rms_norm", {T({2, 3}, ST::Float16), shape({3}), T({3})});
  CHECK(message(w) ==
        "rms_norm: argument 'weight' has dtype f32, but 'input' has f16; they must match");
  CHECK(meta_error("rms_norm", {T({2, 3}, ST::Int64), shape({3})}).code() == ErrorCode::Type);
}

TEST_CASE("sdpa: output is [*, L, Ev] with broadcast batch dims") {
  const char* op = "scaled_dot_product_attention";
  auto c = call_meta(op, {T({2, 4, 5, 8}), T({2, 4, 6, 8}), T({2, 4, 6, 7})});
  CHECK(str(c.out().sizes) == "[2, 4, 5, 7]");
  CHECK(str(c.out().dtype) == "f32");
  CHECK(c.result.convert_mask == 0);
  CHECK(str(call_meta(op, {T({2, 1, 5, 8}), T({3, 6, 8}), T({6, 7})}).out().sizes) ==
        "[2, 3, 5, 7]");
  CHECK(str(call_meta(op, {T({5, 8}, ST::Float16), T({6, 8}, ST::Float16), T({6, 7}, ST::Float16)})
                .out()
                .sizes) == "[5, 7]");
}

TEST_CASE("sdpa: bool and float masks broadcastable to the scores are accepted") {
  const char* op = "scaled_dot_product_attention";
  const Tensor q = T({2, 4, 5, 8}), k = T({2, 4, 6, 8}), v = T({2, 4, 6, 8});
  for (Shape m : {Shape{5, 6}, Shape{2, 1, 1, 6}, Shape{2, 4, 5, 6}}) {
    CHECK(str(call_meta(op, {q, k, v, T(m, ST::Bool)}).out().sizes) == "[2, 4, 5, 8]");
    CHECK(str(call_meta(op, {q, k, v, T(m)}).out().sizes) == "[2, 4, 5, 8]");
  }
  CHECK(str(call_meta(op, {q, k, v, IValue(), 0.0, true, 0.5}).out().sizes) == "[2, 4, 5, 8]");
}

TEST_CASE("sdpa: bad shapes are errors naming the argument") {
  const char* op = "scaled_dot_product_attention";
  Error rank = meta_error(op, {T({8}), T({6, 8}), T({6, 8})});
  CHECK(message(rank) ==
        "scaled_dot_product_attention: argument 'query' has shape [8], but it "
        "must have at least 2 dims");
  Error e = meta_error(op, {T({5, 8}), T({6, 4}), T({6, 8})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(message(e) ==
        "scaled_dot_product_attention: argument 'key' has embedding size 4 in its last dim, "
        "but 'query' has 8 (query [5, 8], key [6, 4], value [6, 8])");
  Error s = meta_error(op, {T({5, 8}), T({6, 8}), T({7, 8})});
  CHECK(message(s) ==
        "scaled_dot_product_attention: argument 'value' has sequence length 7 in dim -2, but "
        "'key' has 6 (query [5, 8], key [6, 8], value [7, 8])");
  CHECK(meta_error(op, {T({2, 5, 8}), T({3, 6, 8}), T({6, 8})}).code() == ErrorCode::Shape);
}

TEST_CASE("sdpa: dtypes must match and be floating") {
  const char* op = "scaled_dot_product_attention";
  Error i = meta_error(op, {T({5, 8}, ST::Int32), T({6, 8}, ST::Int32), T({6, 8}, ST::Int32)});
  CHECK(message(i) ==
        "scaled_dot_product_attention: argument 'query' has dtype i32, but "
        "attention needs a floating dtype");
  Error v = meta_error(op, {T({5, 8}), T({6, 8}), T({6, 8}, ST::Float16)});
  CHECK(v.code() == ErrorCode::Type);
  CHECK(message(v) ==
        "scaled_dot_product_attention: argument 'value' has dtype f16, but "
        "'query' has f32; they must match");
}

TEST_CASE(
    "sdpa: a mask of another dtype, a mask that grows the scores, is_causal with a "
    "mask and dropout are errors") {
  const char* op = "scaled_dot_product_attention";
  const Tensor q = T({4, 5, 8}), k = T({4, 6, 8}), v = T({4, 6, 8});
  Error dt = meta_error(op, {q, k, v, T({5, 6}, ST::Float16)});
  CHECK(message(dt) ==
        "scaled_dot_product_attention: argument 'attn_mask' has dtype f16, but "
        "it must be bool (True = attend) or query's dtype f32 (added to the "
        "scores)");
  Error grow = meta_error(op, {q, k, v, T({3, 4, 5, 6}, ST::Bool)});
  CHECK(message(grow) ==
        "scaled_dot_product_attention: argument 'attn_mask' has shape "
        "[3, 4, 5, 6], which does not broadcast to the attention scores' "
        "shape [4, 5, 6]");
  CHECK(meta_error(op, {q, k, v, T({5, 5}, ST::Bool)}).code() == ErrorCode::Shape);
  Error both = meta_error(op, {q, k, v, T({5, 6}, ST::Bool), 0.0, true});
  CHECK(message(both) ==
        "scaled_dot_product_attention: argument 'is_causal' is True and "
        "'attn_mask' is given; pass one of them");
  Error drop = meta_error(op, {q, k, v, IValue(), 0.1});
  CHECK(message(drop) ==
        "scaled_dot_product_attention: argument 'dropout_p' is 0.1, but only "
        "0 is supported (v1 has no random dropout); apply dropout separately");
}

TEST_CASE("softmax decomposes as exp(x - amax) / sum; log_softmax subtracts the log-sum") {
  auto s = test::decompose_checked("softmax.int", {T({2, 3}), int64_t{-1}});
  CHECK(s.calls ==
        std::vector<std::string>{"amax", "sub.Tensor", "exp", "sum.dim_IntList", "div.Tensor"});
  CHECK(str(s.args_of("amax")[1].int_list()) == "[-1]");
  CHECK(s.args_of("amax")[2].to_bool());
  auto l = test::decompose_checked("log_softmax.int", {T({2, 3}, ST::Float64), int64_t{0}});
  CHECK(l.calls == std::vector<std::string>{"amax", "sub.Tensor", "exp", "sum.dim_IntList", "log",
                                            "sub.Tensor"});
}

TEST_CASE("softmax of f16/bf16 computes in f32; a dtype argument converts first") {
  for (const char* op : {"softmax.int", "log_softmax.int"}) {
    auto h = test::decompose_checked(op, {T({2, 3}, ST::BFloat16), int64_t{1}});
    CHECK(h.count("copy_") == 2);  // in to f32, out to bf16
    CHECK(str(h.args_of("amax")[0].tensor().dtype()) == "f32");
    auto i = test::decompose_checked(op, {T({2, 3}, ST::Int32), int64_t{1}, ST::Float32});
    CHECK(i.calls.front() == "copy_");
    CHECK(i.count("copy_") == 1);
    test::decompose_checked(op, {T({}), int64_t{0}});
  }
}

TEST_CASE("softmax of an empty tensor computes nothing") {
  auto c = test::decompose_checked("softmax.int", {T({2, 0}), int64_t{1}});
  CHECK(c.calls.empty());
}

TEST_CASE("layer_norm decomposes with mean and biased variance, in f32 for halves") {
  auto c =
      test::decompose_checked("layer_norm", {T({4, 2, 3}), shape({2, 3}), T({2, 3}), T({2, 3})});
  CHECK(c.count("mean.dim") == 2);
  CHECK(str(c.args_of("mean.dim")[1].int_list()) == "[1, 2]");
  CHECK(c.count("rsqrt") == 1);
  CHECK(c.count("copy_") == 0);
  auto h = test::decompose_checked(
      "layer_norm", {T({4, 3}, ST::Float16), shape({3}), T({3}, ST::Float16), T({3}, ST::Float16)});
  CHECK(str(h.args_of("mean.dim")[0].tensor().dtype()) == "f32");
  CHECK(h.calls.back() == "copy_");
  auto plain = test::decompose_checked("layer_norm", {T({4, 3}), shape({3})});
  CHECK(plain.count("add.Tensor") == 1);  // eps only: no weight, no bias
  CHECK(test::decompose_checked("layer_norm", {T({0, 3}), shape({3})}).calls.empty());
}

TEST_CASE("rms_norm decomposes as x * rsqrt(mean(x^2) + eps) [* weight]") {
  auto c = test::decompose_checked("rms_norm", {T({4, 3}), shape({3}), T({3})});
  CHECK(c.count("mean.dim") == 1);
  CHECK(c.count("mul.Tensor") == 3);  // x*x, x*rrms, *weight
  auto h = test::decompose_checked("rms_norm", {T({2, 4, 3}, ST::BFloat16), shape({4, 3})});
  CHECK(str(h.args_of("mean.dim")[1].int_list()) == "[1, 2]");
  CHECK(h.count("copy_") == 2);
}

TEST_CASE("sdpa decomposes into matmul, scale, softmax and matmul") {
  const char* op = "scaled_dot_product_attention";
  auto c = test::decompose_checked(op, {T({2, 1, 5, 8}), T({3, 6, 8}), T({6, 7})});
  CHECK(c.count("matmul") == 2);
  CHECK(c.count("softmax.int") == 1);
  CHECK(c.count("where.self") == 0);
  CHECK(str(c.args_of("matmul")[1].tensor().sizes()) == "[3, 8, 6]");  // key transposed
  auto b =
      test::decompose_checked(op, {T({4, 5, 8}), T({4, 6, 8}), T({4, 6, 8}), T({5, 6}, ST::Bool)});
  CHECK(b.count("where.self") == 1);
  auto f = test::decompose_checked(op, {T({4, 5, 8}), T({4, 6, 8}), T({4, 6, 8}), T({4, 5, 6})});
  CHECK(f.count("add.Tensor") == 1);
  auto h = test::decompose_checked(
      op, {T({5, 8}, ST::Float16), T({6, 8}, ST::Float16), T({6, 8}, ST::Float16)});
  CHECK(h.count("copy_") == 4);  // q, k, v in; the result out
}

TEST_CASE("sdpa with is_causal builds its mask on the device from arange and ge") {
  auto c = test::decompose_checked("scaled_dot_product_attention",
                                   {T({2, 5, 8}), T({2, 6, 8}), T({2, 6, 8}), IValue(), 0.0, true});
  CHECK(c.count("arange.start_step") == 2);
  CHECK(c.args_of("arange.start_step")[1].scalar().to_int() == 5);
  CHECK(c.count("ge.Tensor") == 1);
  CHECK(str(c.args_of("ge.Tensor")[0].tensor().sizes()) == "[5, 1]");
  CHECK(str(c.args_of("ge.Tensor")[1].tensor().sizes()) == "[1, 6]");
  CHECK(c.count("where.self") == 1);
}

}  // namespace
}  // namespace bp
