// Tests for core/src/ops/unary.cpp and core/src/ops/binary.cpp: output shapes and dtypes,
// compute dtypes and conversions, broadcasting (inputs expanded in place), every error, and
// that each composite's meta rule agrees with its decomposition. The dtype tables were
// printed by PyTorch 1.13 (CPU; "ERR" = PyTorch raises).
#include "backplane/core/catalog.hpp"

#include "meta_call.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

namespace bp {
namespace {

using test::call_meta;
using test::contains;
using test::make_tensor;
using test::meta_error;
using test::str;
using ST = ScalarType;

const ST kAll[] = {ST::Bool,  ST::Int8,    ST::UInt8,    ST::Int16,   ST::Int32,
                   ST::Int64, ST::Float16, ST::BFloat16, ST::Float32, ST::Float64};

Tensor T(Shape shape, ST dtype = ST::Float32) {
  return make_tensor(std::move(shape), dtype);
}
Tensor wrapped(ST dtype) {
  Tensor t = make_tensor({}, dtype);
  t.set_wrapped_number(true);
  return t;
}

// "ERR" -> Undefined, else a dtype name.
ST parse(const std::string& s) {
  if (s == "ERR") return ST::Undefined;
  auto t = parse_dtype(s);
  REQUIRE_MESSAGE(t.has_value(), "bad dtype in table: ", s);
  return *t;
}

// The dtype the meta rule gives op(args), or Undefined when it throws bp::Error.
ST out_dtype(std::string_view op, std::vector<IValue> args) {
  try {
    return call_meta(op, std::move(args)).out().dtype;
  } catch (const Error&) {
    return ST::Undefined;
  }
}

// Runs decompositions on metadata only: each call runs the callee's meta rule and returns
// fresh tensors of its output metadata. Records what was called, with which arguments.
class MetaOnlyContext final : public OpContext {
 public:
  std::vector<std::string> calls;
  std::vector<std::vector<IValue>> call_args;

  std::vector<Tensor> call(OpId id, std::vector<IValue> args) override {
    const OpDef& op = Catalog::get().at(id);
    calls.push_back(op.name);
    call_args.push_back(args);
    auto c = call_meta(op.name, std::move(args));
    std::vector<Tensor> out;
    for (const TensorMeta& m : c.result.outputs) out.push_back(make_tensor(m.sizes, m.dtype));
    return out;
  }
  Tensor empty(IntArrayRef sizes, ST dtype) override {
    return make_tensor(Shape(sizes.begin(), sizes.end()), dtype);
  }
  Tensor scalar_tensor(Scalar, ST dtype) override { return wrapped(dtype); }
  // Metadata only: no values to read (a composite reading one is not meta-testable).
  Scalar item(const Tensor&) override {
    FAIL("a composite read a value in a metadata-only test");
    return Scalar(int64_t{0});
  }
};

std::vector<Tensor> decompose(std::string_view name, std::vector<IValue> args,
                              MetaOnlyContext& ctx) {
  const OpDef& op = Catalog::get().at(name);
  REQUIRE((op.decompose != nullptr));
  return op.decompose(ctx, args);
}

// ---- unary ---------------------------------------------------------------------------

// Output dtype for each input dtype, in kAll's order.
const char* const kUnaryTable[][2] = {
    {"neg", "ERR i8 u8 i16 i32 i64 f16 bf16 f32 f64"},
    {"abs", "ERR i8 u8 i16 i32 i64 f16 bf16 f32 f64"},
    {"sign", "bool i8 u8 i16 i32 i64 f16 bf16 f32 f64"},
    {"exp", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"log", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"sqrt", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"rsqrt", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"reciprocal", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"sin", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"cos", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"tanh", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"sigmoid", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"erf", "f32 f32 f32 f32 f32 f32 f16 bf16 f32 f64"},
    {"relu", "ERR i8 u8 i16 i32 i64 f16 bf16 f32 f64"},
    {"floor", "ERR i8 u8 i16 i32 i64 f16 bf16 f32 f64"},
    {"ceil", "ERR i8 u8 i16 i32 i64 f16 bf16 f32 f64"},
    {"logical_not", "bool bool bool bool bool bool bool bool bool bool"},
    {"gelu", "ERR ERR ERR ERR ERR ERR f16 bf16 f32 f64"},
    {"silu", "ERR ERR ERR ERR ERR ERR f16 bf16 f32 f64"},
};

TEST_CASE("unary ops: output dtype of every input dtype matches PyTorch") {
  for (const auto& row : kUnaryTable) {
    std::istringstream expected(row[1]);
    for (ST in : kAll) {
      std::string want;
      expected >> want;
      CAPTURE(row[0]);
      CAPTURE(str(in));
      CHECK(str(out_dtype(row[0], {T({2, 3}, in)})) == str(parse(want)));
    }
  }
}

TEST_CASE("unary ops: integral inputs of float ops are converted, others are not") {
  auto c = call_meta("exp", {T({2, 3}, ST::Int32)});
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(c.result.convert_mask == 1u);
  c = call_meta("sqrt", {T({2}, ST::Float16)});
  CHECK(c.result.compute_dtype == ST::Float16);
  CHECK(c.result.convert_mask == 0u);
  // logical_not reads any dtype as is and writes bool.
  c = call_meta("logical_not", {T({2}, ST::Float64)});
  CHECK(c.result.compute_dtype == ST::Float64);
  CHECK(c.result.convert_mask == 0u);
  CHECK(c.out().dtype == ST::Bool);
  c = call_meta("floor", {T({2}, ST::Int16)});
  CHECK(c.result.compute_dtype == ST::Int16);
  CHECK(c.out().dtype == ST::Int16);
}

TEST_CASE("unary ops keep the input's shape, including 0-d, empty and strided inputs") {
  CHECK(str(call_meta("neg", {T({})}).out().sizes) == "[]");
  CHECK(str(call_meta("tanh", {T({4, 0, 2})}).out().sizes) == "[4, 0, 2]");
  auto c = call_meta("abs", {T({2, 5}).t()});
  CHECK(str(c.out().sizes) == "[5, 2]");
  CHECK_FALSE(c.out().kernel_sizes.has_value());
  CHECK(c.args[0].tensor().strides()[0] == 1);  // the input is passed as given
}

TEST_CASE("unary errors name the op, the input and its dtype") {
  Error e = meta_error("neg", {T({2}, ST::Bool)});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(contains(e.what(), "neg: bool tensors are not supported (input 'self' is bool)"));
  CHECK(contains(e.what(), "logical_not()"));
  e = meta_error("relu", {T({2}, ST::Bool)});
  CHECK(std::string(e.what()) == "relu: bool tensors are not supported (input 'self' is bool)");
  e = meta_error("gelu", {T({2}, ST::Int64)});
  CHECK(std::string(e.what()) ==
        "gelu: only floating-point tensors are supported (input 'self' is i64)");
  e = meta_error("silu", {T({2}, ST::Bool)});
  CHECK(contains(e.what(), "silu: only floating-point tensors are supported"));
  e = meta_error("exp", {Tensor()});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) == "exp: argument 'self' is an undefined tensor");
}

TEST_CASE("gelu: approximate is 'none' or 'tanh'") {
  CHECK(call_meta("gelu", {T({2})}).out().dtype == ST::Float32);  // default 'none'
  CHECK(call_meta("gelu", {T({2}), "tanh"}).out().dtype == ST::Float32);
  Error e = meta_error("gelu", {T({2}), "erf"});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "gelu: argument 'approximate' must be 'none' or 'tanh', got 'erf'");
}

TEST_CASE("silu decomposes into sigmoid and mul with the meta rule's output") {
  for (ST dt : {ST::Float16, ST::BFloat16, ST::Float32, ST::Float64}) {
    MetaOnlyContext ctx;
    auto meta = call_meta("silu", {T({3, 4}, dt)});
    auto outs = decompose("silu", {T({3, 4}, dt)}, ctx);
    CHECK(ctx.calls == std::vector<std::string>{"sigmoid", "mul.Tensor"});
    REQUIRE(outs.size() == 1);
    CHECK(outs[0].dtype() == meta.out().dtype);
    CHECK(str(outs[0].sizes()) == str(meta.out().sizes));
  }
}

// ---- binary: dtype rules over every pair ---------------------------------------------

// What PyTorch gives for op(a, b) with two 1-D tensors, in terms of promote_types (which
// test_dtype.cpp pins to PyTorch's table); Undefined = error. The spot checks below pin
// a few results to PyTorch's printed values.
ST expected_binary(std::string_view op, std::string_view mode, ST a, ST b) {
  const ST p = promote_types(a, b);
  const bool any_bool = a == ST::Bool || b == ST::Bool;
  if (op == "sub.Tensor") return any_bool ? ST::Undefined : p;
  if (op == "div.Tensor" || (op == "div.Tensor_mode" && mode.empty())) {
    return is_floating(p) ? p : ST::Float32;
  }
  if (op == "div.Tensor_mode" || op == "pow.Tensor_Tensor") {
    return p == ST::Bool ? ST::Undefined : p;
  }
  for (std::string_view bool_out : {"eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor",
                                    "ge.Tensor", "logical_and", "logical_or"}) {
    if (op == bool_out) return ST::Bool;
  }
  return p;  // add mul maximum minimum
}

TEST_CASE("binary ops: output dtype of every dtype pair follows PyTorch") {
  const std::vector<std::pair<const char*, const char*>> ops = {{"add.Tensor", ""},
                                                                {"sub.Tensor", ""},
                                                                {"mul.Tensor", ""},
                                                                {"div.Tensor", ""},
                                                                {"div.Tensor_mode", ""},
                                                                {"div.Tensor_mode", "trunc"},
                                                                {"div.Tensor_mode", "floor"},
                                                                {"pow.Tensor_Tensor", ""},
                                                                {"maximum", ""},
                                                                {"minimum", ""},
                                                                {"eq.Tensor", ""},
                                                                {"ne.Tensor", ""},
                                                                {"lt.Tensor", ""},
                                                                {"le.Tensor", ""},
                                                                {"gt.Tensor", ""},
                                                                {"ge.Tensor", ""},
                                                                {"logical_and", ""},
                                                                {"logical_or", ""}};
  for (const auto& entry : ops) {
    const char* const op = entry.first;
    const char* const mode = entry.second;
    for (ST a : kAll) {
      for (ST b : kAll) {
        std::vector<IValue> args = {T({2}, a), T({2}, b)};
        if (std::string_view(op) == "div.Tensor_mode") {
          args.push_back(*mode ? IValue(mode) : IValue());
        }
        CAPTURE(op);
        CAPTURE(mode);
        CAPTURE(str(a));
        CAPTURE(str(b));
        CHECK(str(out_dtype(op, args)) == str(expected_binary(op, mode, a, b)));
      }
    }
  }
}

TEST_CASE("binary ops: spot checks against PyTorch's printed dtypes") {
  CHECK(out_dtype("add.Tensor", {T({2}, ST::UInt8), T({2}, ST::Int8)}) == ST::Int16);
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Float16), T({2}, ST::BFloat16)}) == ST::Float32);
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Bool), T({2}, ST::Bool)}) == ST::Bool);
  CHECK(out_dtype("mul.Tensor", {T({2}, ST::Bool), T({2}, ST::Bool)}) == ST::Bool);
  CHECK(out_dtype("div.Tensor", {T({2}, ST::Int64), T({2}, ST::Int64)}) == ST::Float32);
  CHECK(out_dtype("div.Tensor_mode", {T({2}, ST::Int8), T({2}, ST::Int8), "floor"}) == ST::Int8);
  CHECK(out_dtype("div.Tensor_mode", {T({2}, ST::Bool), T({2}, ST::Int8), "trunc"}) == ST::Int8);
  CHECK(out_dtype("pow.Tensor_Tensor", {T({2}, ST::Bool), T({2}, ST::Int8)}) == ST::Int8);
  CHECK(out_dtype("maximum", {T({2}, ST::Int8), T({2}, ST::Float32)}) == ST::Float32);
}

TEST_CASE("binary ops: 0-d tensors and wrapped numbers promote with lower priority") {
  // torch: i64[2] + f64 0-d tensor -> f64 (a higher category wins), f16[2] + f64 0-d -> f16.
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Int64), T({}, ST::Float64)}) == ST::Float64);
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Float16), T({}, ST::Float64)}) == ST::Float16);
  // u8[2] + i64 0-d -> u8; bool[2] + i64 0-d -> i64; i8 0-d + i64 0-d -> i64.
  CHECK(out_dtype("add.Tensor", {T({2}, ST::UInt8), T({}, ST::Int64)}) == ST::UInt8);
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Bool), T({}, ST::Int64)}) == ST::Int64);
  CHECK(out_dtype("add.Tensor", {T({}, ST::Int8), T({}, ST::Int64)}) == ST::Int64);
  // A wrapped f64 becomes the default float; a wrapped i64 never widens an integer tensor.
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Int64), wrapped(ST::Float64)}) == ST::Float32);
  CHECK(out_dtype("add.Tensor", {T({}, ST::Int8), wrapped(ST::Int64)}) == ST::Int8);
  CHECK(out_dtype("mul.Tensor", {wrapped(ST::Float64), T({2}, ST::Float16)}) == ST::Float16);
}

TEST_CASE("binary ops: inputs are expanded to the broadcast shape") {
  auto c = call_meta("add.Tensor", {T({2, 1, 3}), T({4, 1}, ST::Int32)});
  CHECK(str(c.out().sizes) == "[2, 4, 3]");
  const Tensor& self = c.args[0].tensor();
  const Tensor& other = c.args[1].tensor();
  CHECK(str(self.sizes()) == "[2, 4, 3]");
  CHECK(str(other.sizes()) == "[2, 4, 3]");
  CHECK(self.stride(1) == 0);
  CHECK(other.stride(0) == 0);
  CHECK(other.stride(2) == 0);
  // Compute dtype f32: only 'other' (i32) needs converting.
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(c.result.convert_mask == 0b10u);
  // A 0-d wrapped number is expanded too, and converted.
  c = call_meta("mul.Tensor", {T({3}, ST::Float16), wrapped(ST::Float64)});
  CHECK(str(c.args[1].tensor().sizes()) == "[3]");
  CHECK(c.result.convert_mask == 0b10u);
  // Equal shapes are left as they are.
  Tensor a = T({2, 2});
  c = call_meta("sub.Tensor", {a, T({2, 2})});
  CHECK(c.args[0].tensor().is_same(a));
  CHECK(c.result.convert_mask == 0u);
  // Empty dims broadcast like any other.
  CHECK(str(call_meta("eq.Tensor", {T({0, 1}), T({3})}).out().sizes) == "[0, 3]");
}

TEST_CASE("binary ops: comparisons compute in the common dtype and write bool") {
  auto c = call_meta("lt.Tensor", {T({2}, ST::Int8), T({2}, ST::Float64)});
  CHECK(c.result.compute_dtype == ST::Float64);
  CHECK(c.result.convert_mask == 0b01u);
  CHECK(c.out().dtype == ST::Bool);
  c = call_meta("logical_or", {T({2}, ST::Int32), T({2}, ST::Bool)});
  CHECK(c.result.compute_dtype == ST::Int32);
  CHECK(c.result.convert_mask == 0b10u);
  CHECK(c.out().dtype == ST::Bool);
}

TEST_CASE("binary ops: true division converts integer inputs to the default float") {
  auto c = call_meta("div.Tensor", {T({2}, ST::Int64), T({2}, ST::Int32)});
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(c.result.convert_mask == 0b11u);
  c = call_meta("div.Tensor_mode", {T({2}, ST::Int64), T({2}, ST::Int32), "trunc"});
  CHECK(c.result.compute_dtype == ST::Int64);
  CHECK(c.result.convert_mask == 0b10u);
}

TEST_CASE("binary errors: shapes that do not broadcast") {
  Error e = meta_error("add.Tensor", {T({2, 3}), T({3, 4})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(std::string(e.what()) ==
        "add.Tensor: argument 'other' has shape [3, 4] which cannot broadcast with 'self' of "
        "shape [2, 3]");
  e = meta_error("pow.Tensor_Tensor", {T({2}), T({3})});
  CHECK(contains(e.what(), "argument 'exponent' has shape [3]"));
  e = meta_error("mul.Tensor", {T({2}), Tensor()});
  CHECK(std::string(e.what()) == "mul.Tensor: argument 'other' is an undefined tensor");
}

TEST_CASE("binary errors: subtraction with bool") {
  Error e = meta_error("sub.Tensor", {T({2}, ST::Bool), T({2}, ST::Bool)});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(contains(e.what(), "sub.Tensor: subtraction of two bool tensors is not supported"));
  CHECK(contains(e.what(), "logical_xor()"));
  e = meta_error("sub.Tensor", {T({2}, ST::Int32), T({2}, ST::Bool)});
  CHECK(contains(e.what(), "sub.Tensor: bool tensors are not supported (input 'other' is bool)"));
  e = meta_error("sub.Scalar", {T({2}, ST::Bool), Scalar(1)});
  CHECK(contains(e.what(), "sub.Scalar: bool tensors are not supported (input 'self' is bool)"));
  e = meta_error("sub.Scalar", {T({2}, ST::Int64), Scalar(true)});
  CHECK(contains(e.what(), "(input 'other' is bool)"));
}

TEST_CASE("add/sub: alpha must suit the result dtype") {
  // Integral results refuse a floating alpha; only bool results take a bool alpha.
  Error e = meta_error("add.Tensor", {T({2}, ST::Int64), T({2}, ST::Int64), Scalar(2.5)});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(contains(e.what(), "add.Tensor: argument 'alpha' = 2.5 is a floating-point number"));
  CHECK(contains(e.what(), "the result dtype is i64"));
  e = meta_error("sub.Tensor", {T({2}, ST::Float32), T({2}), Scalar(true)});
  CHECK(contains(e.what(), "sub.Tensor: argument 'alpha' = True is a bool"));
  e = meta_error("add.Tensor", {T({2}, ST::Bool), T({2}, ST::Int32), Scalar(2.0)});
  CHECK(contains(e.what(), "floating-point"));
  // alpha must fit the result dtype (PyTorch: "value cannot be converted ... overflow").
  e = meta_error("add.Tensor", {T({2}, ST::Int8), T({2}, ST::Int8), Scalar(300)});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "add.Tensor: argument 'alpha' = 300 cannot be converted to i8 without overflow");
  e = meta_error("add.Tensor", {T({2}, ST::Float16), T({2}, ST::Float16), Scalar(1e6)});
  CHECK(contains(e.what(), "cannot be converted to f16"));
  // Accepted: bool + bool with an int or bool alpha; a float alpha when a float scalar
  // makes the result floating.
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Bool), T({2}, ST::Bool), Scalar(2)}) == ST::Bool);
  CHECK(out_dtype("add.Tensor", {T({2}, ST::Bool), T({2}, ST::Bool), Scalar(true)}) == ST::Bool);
  CHECK(out_dtype("add.Scalar", {T({2}, ST::Int64), Scalar(2.5), Scalar(2.0)}) == ST::Float32);
  CHECK(out_dtype("add.Scalar", {T({2}, ST::Int64), Scalar(2), Scalar(2.0)}) == ST::Undefined);
}

TEST_CASE("div.Tensor_mode: rounding_mode is None, 'trunc' or 'floor'") {
  Error e = meta_error("div.Tensor_mode", {T({2}), T({2}), "round"});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "div.Tensor_mode: argument 'rounding_mode' must be None, 'trunc' or 'floor', got "
        "'round'");
  e = meta_error("div.Tensor_mode", {T({2}, ST::Bool), T({2}, ST::Bool), "floor"});
  CHECK(contains(e.what(), "div.Tensor_mode: bool tensors are not supported"));
  CHECK(contains(e.what(), "floor division"));
  e = meta_error("div.Scalar_mode", {T({2}, ST::Bool), Scalar(true), "trunc"});
  CHECK(contains(e.what(), "div.Scalar_mode: bool tensors are not supported"));
}

TEST_CASE("pow: bool results and integers to negative integer powers are refused") {
  Error e = meta_error("pow.Tensor_Tensor", {T({2}, ST::Bool), T({2}, ST::Bool)});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(std::string(e.what()) ==
        "pow.Tensor_Tensor: bool tensors are not supported (the promoted dtype of 'self' and "
        "'exponent' is bool)");
  e = meta_error("pow.Tensor_Scalar", {T({2}, ST::UInt8), Scalar(-1)});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(contains(e.what(), "pow.Tensor_Scalar: integers to negative integer powers"));
  CHECK(contains(e.what(), "'self' is u8, argument 'exponent' = -1"));
  CHECK(out_dtype("pow.Tensor_Scalar", {T({2}, ST::Bool), Scalar(-1)}) == ST::Undefined);
  // A negative float exponent, or a float base, is fine.
  CHECK(out_dtype("pow.Tensor_Scalar", {T({2}, ST::UInt8), Scalar(-1.0)}) == ST::Float32);
  CHECK(out_dtype("pow.Tensor_Scalar", {T({2}, ST::Float32), Scalar(-1)}) == ST::Float32);
  CHECK(out_dtype("pow.Tensor_Scalar", {T({2}, ST::Float32), Scalar(true)}) == ST::Float32);
}

// ---- .Scalar composites --------------------------------------------------------------

// torch 1.13: op(torch.ones(2, dtype=t), s) for s in (True, 2, 2.5).
struct ScalarTable {
  const char* op;
  const char* mode;  // rounding_mode for div.Scalar_mode, else nullptr
  const char* table;
};
const ScalarTable kScalarTables[] = {
    {"add.Scalar", nullptr,
     "bool:bool,i64,f32 i8:i8,i8,f32 u8:u8,u8,f32 i16:i16,i16,f32 i32:i32,i32,f32 "
     "i64:i64,i64,f32 f16:f16,f16,f16 bf16:bf16,bf16,bf16 f32:f32,f32,f32 f64:f64,f64,f64"},
    {"sub.Scalar", nullptr,
     "bool:ERR,ERR,ERR i8:ERR,i8,f32 u8:ERR,u8,f32 i16:ERR,i16,f32 i32:ERR,i32,f32 "
     "i64:ERR,i64,f32 f16:ERR,f16,f16 bf16:ERR,bf16,bf16 f32:ERR,f32,f32 f64:ERR,f64,f64"},
    {"mul.Scalar", nullptr,
     "bool:bool,i64,f32 i8:i8,i8,f32 u8:u8,u8,f32 i16:i16,i16,f32 i32:i32,i32,f32 "
     "i64:i64,i64,f32 f16:f16,f16,f16 bf16:bf16,bf16,bf16 f32:f32,f32,f32 f64:f64,f64,f64"},
    {"div.Scalar", nullptr,
     "bool:f32,f32,f32 i8:f32,f32,f32 u8:f32,f32,f32 i16:f32,f32,f32 i32:f32,f32,f32 "
     "i64:f32,f32,f32 f16:f16,f16,f16 bf16:bf16,bf16,bf16 f32:f32,f32,f32 f64:f64,f64,f64"},
    {"div.Scalar_mode", "trunc",
     "bool:ERR,i64,f32 i8:i8,i8,f32 u8:u8,u8,f32 i16:i16,i16,f32 i32:i32,i32,f32 "
     "i64:i64,i64,f32 f16:f16,f16,f16 bf16:bf16,bf16,bf16 f32:f32,f32,f32 f64:f64,f64,f64"},
    {"pow.Tensor_Scalar", nullptr,
     "bool:ERR,i64,f32 i8:i8,i8,f32 u8:u8,u8,f32 i16:i16,i16,f32 i32:i32,i32,f32 "
     "i64:i64,i64,f32 f16:f16,f16,f16 bf16:bf16,bf16,bf16 f32:f32,f32,f32 f64:f64,f64,f64"},
    {"eq.Scalar", nullptr,
     "bool:bool,bool,bool i8:bool,bool,bool u8:bool,bool,bool i16:bool,bool,bool "
     "i32:bool,bool,bool i64:bool,bool,bool f16:bool,bool,bool bf16:bool,bool,bool "
     "f32:bool,bool,bool f64:bool,bool,bool"},
};

const Scalar kScalars[] = {Scalar(true), Scalar(2), Scalar(2.5)};

// Every argument of the .Scalar op (alpha = 1 for add/sub).
std::vector<IValue> scalar_args(std::string_view op, const char* mode, ST dt, Scalar s) {
  std::vector<IValue> args = {T({2}, dt), s};
  if (op == "div.Scalar_mode") args.push_back(mode ? IValue(mode) : IValue());
  if (op == "add.Scalar" || op == "sub.Scalar") args.push_back(Scalar(1));
  return args;
}

TEST_CASE(".Scalar composites: output dtype of every dtype and scalar kind matches PyTorch") {
  for (const ScalarTable& t : kScalarTables) {
    std::istringstream cells(t.table);
    std::string cell;
    while (cells >> cell) {
      const ST dt = parse(cell.substr(0, cell.find(':')));
      std::istringstream want(cell.substr(cell.find(':') + 1));
      for (const Scalar& s : kScalars) {
        std::string w;
        std::getline(want, w, ',');
        CAPTURE(t.op);
        CAPTURE(str(dt));
        CAPTURE(s.str());
        CHECK(str(out_dtype(t.op, scalar_args(t.op, t.mode, dt, s))) == str(parse(w)));
      }
    }
  }
}

TEST_CASE(".Scalar composites: the meta rule agrees with the decomposition") {
  const std::vector<std::pair<const char*, const char*>> ops = {
      {"add.Scalar", nullptr},      {"sub.Scalar", nullptr},        {"mul.Scalar", nullptr},
      {"div.Scalar", nullptr},      {"div.Scalar_mode", nullptr},   {"div.Scalar_mode", "trunc"},
      {"div.Scalar_mode", "floor"}, {"pow.Tensor_Scalar", nullptr}, {"eq.Scalar", nullptr},
      {"ne.Scalar", nullptr},       {"lt.Scalar", nullptr},         {"le.Scalar", nullptr},
      {"gt.Scalar", nullptr},       {"ge.Scalar", nullptr}};
  const Scalar scalars[] = {Scalar(true), Scalar(false), Scalar(3), Scalar(-2), Scalar(0.5)};
  int compared = 0;
  for (const auto& entry : ops) {
    const char* const op = entry.first;
    const char* const mode = entry.second;
    const std::string tensor_form = Catalog::get().at(op).schema.name +
                                    (std::string_view(op) == "div.Scalar_mode" ? ".Tensor_mode"
                                     : std::string_view(op) == "div.Scalar"    ? ".Tensor"
                                     : std::string_view(op).starts_with("pow") ? ".Tensor_Tensor"
                                                                               : ".Tensor");
    for (ST dt : kAll) {
      for (const Scalar& s : scalars) {
        CAPTURE(op);
        CAPTURE(str(dt));
        CAPTURE(s.str());
        std::vector<IValue> args = scalar_args(op, mode, dt, s);
        MetaOnlyContext ctx;
        test::MetaCall meta;
        try {
          meta = call_meta(op, args);
        } catch (const Error&) {
          // The composite refuses it, so must its decomposition; except for pow's negative
          // integer exponent, which the .Tensor form can only see in the kernel.
          const bool negative_power =
              std::string_view(op).starts_with("pow") && s.is_integral() && s.to_int() < 0;
          if (!negative_power) CHECK_THROWS_AS(decompose(op, args, ctx), Error);
          continue;
        }
        const std::vector<Tensor> outs = decompose(op, meta.args, ctx);
        REQUIRE(outs.size() == 1);
        CHECK(ctx.calls == std::vector<std::string>{tensor_form});
        const Tensor& wrapped_arg = ctx.call_args.at(0).at(1).tensor();
        CHECK(wrapped_arg.is_wrapped_number());
        CHECK(wrapped_arg.dim() == 0);
        CHECK(wrapped_arg.dtype() == s.dtype());
        CHECK(outs[0].dtype() == meta.out().dtype);
        CHECK(str(outs[0].sizes()) == str(meta.out().sizes));
        ++compared;
      }
    }
  }
  CHECK(compared > 400);
}

TEST_CASE(".Scalar composites: the meta rule converts only self, to the compute dtype") {
  auto c = call_meta("mul.Scalar", {T({2, 3}, ST::Int32), Scalar(0.5)});
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(c.result.convert_mask == 0b1u);
  CHECK(str(c.out().sizes) == "[2, 3]");
  c = call_meta("gt.Scalar", {T({}, ST::UInt8), Scalar(1000)});
  CHECK(c.result.compute_dtype == ST::UInt8);
  CHECK(c.result.convert_mask == 0u);
  CHECK(c.out().dtype == ST::Bool);
  CHECK(str(c.out().sizes) == "[]");
}

// ---- clamp ---------------------------------------------------------------------------

TEST_CASE("clamp: result dtype promotes self with the bounds as wrapped numbers") {
  // torch 1.13: clamp(torch.ones(2, dtype=t), min=s) and max=s, s in (True, 2, 2.5).
  const char* table =
      "bool:ERR,i64,f32 i8:i8,i8,f32 u8:u8,u8,f32 i16:i16,i16,f32 i32:i32,i32,f32 "
      "i64:i64,i64,f32 f16:f16,f16,f16 bf16:bf16,bf16,bf16 f32:f32,f32,f32 f64:f64,f64,f64";
  std::istringstream cells(table);
  std::string cell;
  while (cells >> cell) {
    const ST dt = parse(cell.substr(0, cell.find(':')));
    std::istringstream want(cell.substr(cell.find(':') + 1));
    for (const Scalar& s : kScalars) {
      std::string w;
      std::getline(want, w, ',');
      CAPTURE(str(dt));
      CAPTURE(s.str());
      CHECK(str(out_dtype("clamp", {T({2}, dt), s, IValue()})) == str(parse(w)));
      CHECK(str(out_dtype("clamp", {T({2}, dt), IValue(), s})) == str(parse(w)));
    }
  }
  // Mixed bounds: the float one decides (torch: clamp(i8, min=1, max=2.5) -> f32).
  auto c = call_meta("clamp", {T({2, 2}, ST::Int8), Scalar(1), Scalar(2.5)});
  CHECK(c.out().dtype == ST::Float32);
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(c.result.convert_mask == 1u);
  CHECK(str(c.out().sizes) == "[2, 2]");
  // NaN bounds are accepted (they make every element NaN); an int NaN bound promotes.
  CHECK(out_dtype("clamp", {T({2}), Scalar(std::nan("")), IValue()}) == ST::Float32);
  CHECK(out_dtype("clamp", {T({2}, ST::Int8), Scalar(std::nan("")), IValue()}) == ST::Float32);
}

TEST_CASE("clamp errors: no bounds, bool results, bounds out of range") {
  Error e = meta_error("clamp", {T({2}), IValue(), IValue()});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "clamp: at least one of 'min' and 'max' must be given (both are None)");
  e = meta_error("clamp", {T({2}, ST::Bool), Scalar(true), IValue()});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(contains(e.what(), "clamp: bool tensors are not supported"));
  e = meta_error("clamp", {T({2}, ST::Int8), Scalar(300), IValue()});
  CHECK(std::string(e.what()) ==
        "clamp: argument 'min' = 300 cannot be converted to i8 without overflow");
  e = meta_error("clamp", {T({2}, ST::Int8), IValue(), Scalar(-200)});
  CHECK(contains(e.what(), "argument 'max' = -200"));
  e = meta_error("clamp", {T({2}, ST::Float32), Scalar(1e300), IValue()});
  CHECK(contains(e.what(), "cannot be converted to f32"));
  // u8 takes negative ints down to -255 (they wrap), as PyTorch.
  CHECK(out_dtype("clamp", {T({2}, ST::UInt8), Scalar(-1), IValue()}) == ST::UInt8);
}

}  // namespace
}  // namespace bp
