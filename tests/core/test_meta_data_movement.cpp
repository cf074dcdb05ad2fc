// Tests for core/src/ops/data_movement.cpp: the meta rules of copy_, fill_.Scalar,
// arange.start_step, cat, index_select, gather, where.self and embedding (and embedding's
// decomposition). Expected values were checked against PyTorch 1.13; the canonicalised
// arguments are the contract of docs/ops.md, "What a kernel receives".
#include "backplane/core/catalog.hpp"

#include "meta_call.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
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

Tensor T(Shape shape, ST dtype = ST::Float32) {
  return make_tensor(std::move(shape), dtype);
}
Tensor I(Shape shape) {
  return make_tensor(std::move(shape), ST::Int64);
}
IValue list(std::initializer_list<Tensor> ts) {
  return IValue(TensorList(ts));
}
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---- copy_ / fill_ -------------------------------------------------------------------

TEST_CASE("copy_: src is expanded to self's shape and keeps its dtype") {
  auto c = call_meta("copy_", {T({2, 3}, ST::Float16), T({3}, ST::Int64)});
  CHECK(c.result.outputs.empty());
  CHECK(c.result.compute_dtype == ST::Float16);
  CHECK(c.result.convert_mask == 0u);  // the kernel converts
  const Tensor& src = c.args[1].tensor();
  CHECK(str(src.sizes()) == "[2, 3]");
  CHECK(src.stride(0) == 0);
  CHECK(src.dtype() == ST::Int64);
  CHECK(str(call_meta("copy_", {T({}), T({})}).args[1].tensor().sizes()) == "[]");
  CHECK(str(call_meta("copy_", {T({4, 0}), T({1, 0})}).args[1].tensor().sizes()) == "[4, 0]");
}

TEST_CASE("copy_: src must broadcast to exactly self's shape") {
  Error e = meta_error("copy_", {T({2, 2}), T({3})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(std::string(e.what()) ==
        "copy_: argument 'src' of shape [3] cannot be broadcast to the shape [2, 2] of 'self'");
  // torch: "output with shape [2, 2] doesn't match the broadcast shape [1, 2, 2]".
  CHECK(contains(meta_error("copy_", {T({2, 2}), T({1, 2, 2})}).what(), "[1, 2, 2]"));
  CHECK(contains(meta_error("copy_", {T({1}), T({2})}).what(), "'src' of shape [2]"));
}

TEST_CASE("copy_: self must not have elements sharing one location") {
  Error e = meta_error("copy_", {T({1}).expand({3}), T({3})});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(contains(e.what(), "copy_: argument 'self'"));
  CHECK(contains(e.what(), "stride 0"));
  // A stride-0 dim of size 1 is harmless.
  CHECK_NOTHROW(call_meta("copy_", {T({1}).expand({1, 1}), T({1})}));
}

TEST_CASE("fill_: no outputs; the value must fit self's dtype") {
  auto c = call_meta("fill_.Scalar", {T({2, 3}, ST::Int8), Scalar(2.5)});
  CHECK(c.result.outputs.empty());
  CHECK(c.result.compute_dtype == ST::Int8);
  CHECK(c.result.convert_mask == 0u);
  // Accepted by PyTorch: 2.5 into i8 (truncates), 2 into bool, -255 into u8 (wraps), inf into
  // f16, NaN into f32, true into f32, -2^63 into i64.
  const std::vector<std::pair<ST, Scalar>> ok = {
      {ST::Bool, Scalar(2)},          {ST::UInt8, Scalar(-255)},   {ST::Float16, Scalar(kInf)},
      {ST::Float32, Scalar(kNaN)},    {ST::Float32, Scalar(true)}, {ST::Int64, Scalar(-0x1p63)},
      {ST::BFloat16, Scalar(3.3e38)}, {ST::Int16, Scalar(-32768)}};
  for (const auto& entry : ok) {
    const ST dt = entry.first;
    const Scalar v = entry.second;
    CAPTURE(str(dt));
    CAPTURE(v.str());
    CHECK_NOTHROW(call_meta("fill_.Scalar", {T({2}, dt), v}));
  }
  // Refused by PyTorch ("value cannot be converted to type ... without overflow"), and
  // 2^63 into i64, which PyTorch accepts with an undefined conversion.
  const std::vector<std::pair<ST, Scalar>> bad = {
      {ST::Int8, Scalar(300)},     {ST::Int8, Scalar(-128.9)},   {ST::UInt8, Scalar(-256)},
      {ST::UInt8, Scalar(-0.5)},   {ST::Float16, Scalar(70000)}, {ST::Float16, Scalar(1e6)},
      {ST::Int64, Scalar(1e30)},   {ST::Int32, Scalar(kNaN)},    {ST::BFloat16, Scalar(1e39)},
      {ST::Int64, Scalar(0x1p63)}, {ST::Int32, Scalar(kInf)}};
  for (const auto& entry : bad) {
    const ST dt = entry.first;
    const Scalar v = entry.second;
    CAPTURE(str(dt));
    CAPTURE(v.str());
    CHECK(meta_error("fill_.Scalar", {T({2}, dt), v}).code() == ErrorCode::InvalidArgument);
  }
  CHECK(std::string(meta_error("fill_.Scalar", {T({2}, ST::Int8), Scalar(300)}).what()) ==
        "fill_.Scalar: argument 'value' = 300 cannot be converted to i8 without overflow");
}

// ---- arange --------------------------------------------------------------------------

struct ArangeCase {
  Scalar start, end, step;
  std::optional<ST> dtype;
  int64_t size;
  ST out;
};

TEST_CASE("arange: sizes and dtypes follow PyTorch") {
  const std::vector<ArangeCase> cases = {
      {0, 10, 3, {}, 4, ST::Int64},
      {10, 0, -3, {}, 4, ST::Int64},
      {0, -10, -3, {}, 4, ST::Int64},
      {5, 5, 1, {}, 0, ST::Int64},
      {false, true, 1, {}, 1, ST::Int64},
      {0.5, 3.7, 1, {}, 4, ST::Float32},
      {0.5, 3.7, 1, ST::Int64, 3, ST::Int64},  // i64 counts in truncated integers
      {0.5, 3.7, 1, ST::Int32, 4, ST::Int32},  // other integral types count in doubles
      {0, 1, 0.1, {}, 10, ST::Float32},
      {0.0, 1.0000001, 0.1, {}, 11, ST::Float32},
      {0, 10, 2.5, {}, 4, ST::Float32},
      {0, 10.0, 2, {}, 5, ST::Float32},
      {0, 10, 3, ST::Float16, 4, ST::Float16},
      {0, 300, 1, ST::UInt8, 300, ST::UInt8},
      {1, 4, 1, ST::Int8, 3, ST::Int8},
      {0.7, 0.5, 1, ST::Int32, 0, ST::Int32},
      // PyTorch overflows int64 here ("invalid size" / an empty result); we count exactly.
      {-(int64_t{1} << 62), int64_t{1} << 62, int64_t{1} << 61, {}, 4, ST::Int64},
      {std::numeric_limits<int64_t>::min(),
       std::numeric_limits<int64_t>::max(),
       int64_t{1} << 62,
       {},
       4,
       ST::Int64},
  };
  for (const ArangeCase& k : cases) {
    CAPTURE(k.start.str());
    CAPTURE(k.end.str());
    CAPTURE(k.step.str());
    auto c = call_meta("arange.start_step",
                       {k.start, k.end, k.step, k.dtype ? IValue(*k.dtype) : IValue()});
    CHECK(str(c.out().sizes) == str(Shape{k.size}));
    CHECK(str(c.out().dtype) == str(k.out));
    CHECK(c.result.compute_dtype == k.out);
  }
}

TEST_CASE("arange: the default step is 1 and the op cannot fall back") {
  auto c = call_meta("arange.start_step", {Scalar(2), Scalar(7)});
  CHECK(str(c.out().sizes) == "[5]");
  CHECK_FALSE(Catalog::get().at("arange.start_step").can_fall_back);
}

TEST_CASE("arange errors: zero, non-finite or wrongly signed steps, bad bounds") {
  auto err = [](Scalar a, Scalar b, Scalar s, IValue dt = IValue()) {
    return meta_error("arange.start_step", {a, b, s, dt});
  };
  Error e = err(0, 10, 0);
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(contains(e.what(), "arange.start_step: argument 'step' = 0 must be nonzero"));
  e = err(0, 10, 0.5, ST::Int64);  // truncates to 0 for an integer result, as PyTorch
  CHECK(contains(e.what(), "argument 'step' = 0.5 must be nonzero"));
  e = err(0, 10.0, kNaN);
  CHECK(contains(e.what(), "argument 'step' = nan must be finite and nonzero"));
  e = err(0.0, 1, kInf);  // PyTorch returns an empty tensor here
  CHECK(contains(e.what(), "must be finite and nonzero"));
  e = err(0, 10, -1);
  CHECK(std::string(e.what()) ==
        "arange.start_step: argument 'step' = -1 has the wrong sign for the range 0 -> 10");
  e = err(0, kInf, 1);
  CHECK(contains(e.what(), "unsupported range 0 -> inf"));
  e = err(0, 1, 1e-300);
  CHECK(contains(e.what(), "gives an invalid size"));
  e = err(0, 1e30, 1, ST::Int64);
  CHECK(contains(e.what(), "argument 'end' = 1e+30 cannot be converted to i64"));
  e = err(0, 2, 1, ST::Bool);
  CHECK(e.code() == ErrorCode::Type);
  CHECK(std::string(e.what()) == "arange.start_step: dtype bool is not supported");
  // -0.5 .. 0.5 truncate to 0 .. 0 (passing the sign check), but count -1 in doubles.
  e = err(-0.5, 0.5, -1, ST::Int32);
  CHECK(contains(e.what(), "invalid size"));
}

// ---- cat -----------------------------------------------------------------------------

TEST_CASE("cat: sizes add up along dim and dtypes promote") {
  auto c = call_meta("cat", {list({T({2, 3}), T({2, 4}, ST::Float64)}), -1});
  CHECK(str(c.out().sizes) == "[2, 7]");
  CHECK(c.out().dtype == ST::Float64);
  CHECK(c.result.compute_dtype == ST::Float64);
  CHECK(c.result.convert_mask == 1u);
  CHECK(c.args[1].to_int() == 1);
  CHECK(c.args[0].tensor_list().size() == 2);
  // torch: bool + u8 -> u8; same dtypes need no conversion.
  c = call_meta("cat", {list({T({2, 3}, ST::Bool), T({1, 3}, ST::UInt8)})});
  CHECK(c.out().dtype == ST::UInt8);
  c = call_meta("cat", {list({T({1}), T({5}), T({0})})});
  CHECK(str(c.out().sizes) == "[6]");
  CHECK(c.result.convert_mask == 0u);
}

TEST_CASE("cat: 1-D empty tensors are skipped for shapes but promote") {
  // torch.cat([zeros(0, f64), zeros(2, 3)]) -> f64 [2, 3]; dim -1 wraps against [2, 3].
  auto c = call_meta("cat", {list({T({0}, ST::Float64), T({2, 3})}), -1});
  CHECK(str(c.out().sizes) == "[2, 3]");
  CHECK(c.out().dtype == ST::Float64);
  CHECK(c.args[1].to_int() == 1);
  REQUIRE(c.args[0].tensor_list().size() == 1);
  CHECK(str(c.args[0].tensor_list()[0].sizes()) == "[2, 3]");
  // Only skipped tensors: an empty 1-D result, and one of them is kept for the kernel.
  c = call_meta("cat", {list({T({0}, ST::Float64), T({0}, ST::Int8)})});
  CHECK(str(c.out().sizes) == "[0]");
  CHECK(c.out().dtype == ST::Float64);
  CHECK(c.args[0].tensor_list().size() == 1);
  // Empty tensors of other shapes are not skipped: torch refuses [2, 3] with [1, 0].
  CHECK(meta_error("cat", {list({T({2, 3}), T({1, 0})})}).code() == ErrorCode::Shape);
  CHECK(str(call_meta("cat", {list({T({2, 3}), T({0, 3}, ST::Int32)})}).out().sizes) == "[2, 3]");
}

TEST_CASE("cat errors name the tensor and the shapes") {
  Error e = meta_error("cat", {list({})});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "cat: argument 'tensors' is an empty list; expected at least one tensor");
  e = meta_error("cat", {list({T({2, 3}), T({2, 4})})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(std::string(e.what()) ==
        "cat: tensor 1 has shape [2, 4] which does not match tensor 0 of shape [2, 3] in dim 1 "
        "(only dim 0 may differ)");
  e = meta_error("cat", {list({T({0}), T({2, 3}), T({3})})});
  CHECK(contains(e.what(), "cat: tensor 2 has shape [3] but tensor 1 has shape [2, 3]"));
  e = meta_error("cat", {list({T({}), T({})})});
  CHECK(contains(e.what(), "cat: tensor 0 of argument 'tensors' is 0-d"));
  e = meta_error("cat", {list({T({2, 3})}), 2});
  CHECK(contains(e.what(), "cat: argument 'dim' is 2"));
  e = meta_error("cat", {list({T({2}), Tensor()})});
  CHECK(contains(e.what(), "cat: tensor 1 of argument 'tensors' is undefined"));
}

// ---- index_select --------------------------------------------------------------------

TEST_CASE("index_select: output takes index's length in dim") {
  auto c = call_meta("index_select", {T({3, 4}), -1, I({2})});
  CHECK(str(c.out().sizes) == "[3, 2]");
  CHECK(c.out().dtype == ST::Float32);
  CHECK(c.args[1].to_int() == 1);
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(c.result.convert_mask == 0u);
  // i32 indices are accepted and not converted; an empty index gives an empty dim.
  c = call_meta("index_select", {T({3, 4}, ST::Int16), 0, make_tensor({0}, ST::Int32)});
  CHECK(str(c.out().sizes) == "[0, 4]");
  CHECK(c.args[2].tensor().dtype() == ST::Int32);
}

TEST_CASE("index_select: 0-d index and 0-d self are given to the kernel as [1]") {
  // torch: index_select(x[3, 4], 1, tensor(0)) -> [3, 1].
  auto c = call_meta("index_select", {T({3, 4}), 1, I({})});
  CHECK(str(c.out().sizes) == "[3, 1]");
  CHECK(str(c.args[2].tensor().sizes()) == "[1]");
  // torch: index_select(tensor(5.), 0, tensor([0])) -> 0-d.
  c = call_meta("index_select", {T({}), -1, I({1})});
  CHECK(str(c.out().sizes) == "[]");
  CHECK(str(c.kernel_sizes()) == "[1]");
  CHECK(str(c.args[0].tensor().sizes()) == "[1]");
  CHECK(c.args[1].to_int() == 0);
}

TEST_CASE("index_select errors") {
  Error e = meta_error("index_select", {T({3, 4}), 1, T({1})});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(std::string(e.what()) == "index_select: input 'index' has dtype f32; supported: i32, i64");
  CHECK(contains(meta_error("index_select", {T({3}), 0, make_tensor({1}, ST::Int16)}).what(),
                 "has dtype i16"));
  e = meta_error("index_select", {T({3, 4}), 1, I({1, 1})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(contains(e.what(), "argument 'index' must be 0-d or 1-D, got shape [1, 1]"));
  e = meta_error("index_select", {T({3, 4}), 2, I({1})});
  CHECK(contains(e.what(), "index_select: argument 'dim' is 2"));
  e = meta_error("index_select", {T({}), 0, I({2})});
  CHECK(contains(e.what(), "a 0-d 'self' takes an 'index' of exactly one element"));
}

// ---- gather --------------------------------------------------------------------------

TEST_CASE("gather: output has index's shape; only dim may exceed self") {
  auto c = call_meta("gather", {T({3, 4}), -1, I({3, 6})});
  CHECK(str(c.out().sizes) == "[3, 6]");
  CHECK(c.args[1].to_int() == 1);
  CHECK(c.result.compute_dtype == ST::Float32);
  CHECK(str(call_meta("gather", {T({3, 4}), 0, I({2, 2})}).out().sizes) == "[2, 2]");
  // An empty index skips the size check (torch: gather(x[3, 4], 0, zeros(0, 9))).
  CHECK(str(call_meta("gather", {T({3, 4}), 0, I({0, 9})}).out().sizes) == "[0, 9]");
}

TEST_CASE("gather: 0-d operands count as 1-D and reach the kernel as [1]") {
  auto c = call_meta("gather", {T({}), 0, I({3})});  // torch -> [3]
  CHECK(str(c.out().sizes) == "[3]");
  CHECK(str(c.args[0].tensor().sizes()) == "[1]");
  c = call_meta("gather", {T({3}), 0, I({})});  // torch -> []
  CHECK(str(c.out().sizes) == "[]");
  CHECK(str(c.kernel_sizes()) == "[1]");
  CHECK(str(c.args[2].tensor().sizes()) == "[1]");
}

TEST_CASE("gather errors") {
  Error e = meta_error("gather", {T({3, 4}), 1, make_tensor({3, 2}, ST::Int32)});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(contains(e.what(), "gather: input 'index' has dtype i32; supported: i64"));
  e = meta_error("gather", {T({3, 4}), 1, I({3})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(std::string(e.what()) ==
        "gather: argument 'index' of shape [3] must have as many dims as 'self' of shape "
        "[3, 4]");
  e = meta_error("gather", {T({3, 4}), 1, I({4, 2})});
  CHECK(std::string(e.what()) ==
        "gather: argument 'index' of shape [4, 2] is larger than 'self' of shape [3, 4] in dim "
        "0 (only dim 1 may be larger)");
  CHECK(meta_error("gather", {T({2, 0}), 0, I({1, 1})}).code() == ErrorCode::Shape);
}

// ---- where ---------------------------------------------------------------------------

TEST_CASE("where: all three broadcast; self and other promote") {
  // torch.where(tensor([True]), zeros(2, 1), zeros(3, f64)) -> f64 [2, 3].
  auto c = call_meta("where.self", {T({1}, ST::Bool), T({2, 1}), T({3}, ST::Float64)});
  CHECK(str(c.out().sizes) == "[2, 3]");
  CHECK(c.out().dtype == ST::Float64);
  CHECK(c.result.compute_dtype == ST::Float64);
  CHECK(c.result.convert_mask == 0b010u);  // condition stays bool
  for (size_t i = 0; i < 3; ++i) CHECK(str(c.args[i].tensor().sizes()) == "[2, 3]");
  CHECK(c.args[0].tensor().dtype() == ST::Bool);
  // torch: where(cond, i8[2], f64 0-d) -> f64 (a 0-d tensor of a higher category wins).
  CHECK(call_meta("where.self", {T({2}, ST::Bool), T({2}, ST::Int8), T({}, ST::Float64)})
            .out()
            .dtype == ST::Float64);
}

TEST_CASE("where errors: condition dtype and shapes") {
  Error e = meta_error("where.self", {T({2}), T({2}), T({2})});
  CHECK(e.code() == ErrorCode::Type);
  CHECK(std::string(e.what()) == "where.self: argument 'condition' must be a bool tensor, got f32");
  // PyTorch 1.13 still accepts u8 with a deprecation warning; we do not.
  CHECK(meta_error("where.self", {T({2}, ST::UInt8), T({2}), T({2})}).code() == ErrorCode::Type);
  e = meta_error("where.self", {T({2}, ST::Bool), T({2}), T({3})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(std::string(e.what()) ==
        "where.self: argument 'other' has shape [3] which cannot broadcast with the shape [2] "
        "broadcast from 'condition' and 'self'");
}

// ---- embedding -----------------------------------------------------------------------

// Runs decompositions on metadata only, recording the ops called.
class MetaOnlyContext final : public OpContext {
 public:
  std::vector<std::string> calls;
  std::vector<Tensor> call(OpId id, std::vector<IValue> args) override {
    const OpDef& op = Catalog::get().at(id);
    calls.push_back(op.name);
    auto c = call_meta(op.name, std::move(args));
    std::vector<Tensor> out;
    for (const TensorMeta& m : c.result.outputs) out.push_back(make_tensor(m.sizes, m.dtype));
    return out;
  }
  Tensor empty(IntArrayRef sizes, ST dtype) override {
    return make_tensor(Shape(sizes.begin(), sizes.end()), dtype);
  }
  Tensor scalar_tensor(Scalar, ST dtype) override {
    Tensor t = make_tensor({}, dtype);
    t.set_wrapped_number(true);
    return t;
  }
  // Metadata only: no values to read (a composite reading one is not meta-testable).
  Scalar item(const Tensor&) override {
    FAIL("a composite read a value in a metadata-only test");
    return Scalar(int64_t{0});
  }
};

TEST_CASE("embedding: indices.shape + [embedding_dim] in weight's dtype") {
  // torch.embedding(zeros(3, 4), tensor([[1, 2]])) -> f32 [1, 2, 4]; 0-d indices -> [4].
  auto c = call_meta("embedding", {T({3, 4}), I({1, 2})});
  CHECK(str(c.out().sizes) == "[1, 2, 4]");
  CHECK(c.out().dtype == ST::Float32);
  c = call_meta("embedding", {T({3, 4}, ST::Int32), make_tensor({}, ST::Int32)});
  CHECK(str(c.out().sizes) == "[4]");
  CHECK(c.out().dtype == ST::Int32);
  CHECK_NOTHROW(call_meta("embedding", {T({3, 4}), I({2}), 2}));
}

TEST_CASE("embedding errors") {
  Error e = meta_error("embedding", {T({3, 4, 2}), I({1})});
  CHECK(e.code() == ErrorCode::Shape);
  CHECK(contains(e.what(), "embedding: argument 'weight' must be 2-D"));
  CHECK(contains(e.what(), "got shape [3, 4, 2]"));
  e = meta_error("embedding", {T({3, 4}), T({1})});
  CHECK(std::string(e.what()) == "embedding: input 'indices' has dtype f32; supported: i32, i64");
  e = meta_error("embedding", {T({3, 4}), I({1}), 3});
  CHECK(e.code() == ErrorCode::InvalidArgument);
  CHECK(std::string(e.what()) ==
        "embedding: argument 'padding_idx' = 3 is out of range for 'weight' with 3 rows "
        "(expected -1 for none, or 0..2)");
  CHECK(meta_error("embedding", {T({3, 4}), I({1}), -2}).code() == ErrorCode::InvalidArgument);
}

TEST_CASE("embedding decomposes into index_select with the meta rule's output") {
  for (const Tensor& indices : {I({2, 3}), I({}), I({0, 5}), I({3, 2}).t()}) {
    CAPTURE(indices.meta_str());
    MetaOnlyContext ctx;
    auto meta = call_meta("embedding", {T({10, 4}, ST::BFloat16), indices});
    std::vector<IValue> args = meta.args;
    auto outs = Catalog::get().at("embedding").decompose(ctx, args);
    REQUIRE(outs.size() == 1);
    CHECK(str(outs[0].sizes()) == str(meta.out().sizes));
    CHECK(outs[0].dtype() == ST::BFloat16);
    CHECK(ctx.calls.back() == "index_select");
    // Indices that cannot be flattened as a view are copied first.
    CHECK((ctx.calls.size() == 2) == !indices.is_contiguous());
  }
}

}  // namespace
}  // namespace bp
