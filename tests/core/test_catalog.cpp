// Tests for core/src/catalog.cpp: op set v1 is complete with the right kinds, lookups and
// their errors, OpIds, and the checks Catalog::add makes on registrations.
#include "backplane/core/catalog.hpp"

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

namespace bp {
namespace {

using test::catch_error;
using test::contains;

struct Expected {
  const char* name;
  OpKind kind;
};

// Op set v1 (shared/OPS.md), with the split of docs/ops.md.
constexpr OpKind P = OpKind::Primitive;
constexpr OpKind C = OpKind::Composite;
const std::vector<Expected> kOpSetV1 = {
    // data movement and factories
    {"copy_", P},
    {"fill_.Scalar", P},
    {"fill_.Tensor", C},
    {"arange.start_step", P},
    {"cat", P},
    {"index_select", P},
    {"gather", P},
    {"where.self", P},
    {"where.Scalar", C},
    {"where.ScalarSelf", C},
    {"where.ScalarOther", C},
    {"embedding", C},
    // unary
    {"neg", P},
    {"abs", P},
    {"sign", P},
    {"exp", P},
    {"log", P},
    {"sqrt", P},
    {"rsqrt", P},
    {"reciprocal", P},
    {"sin", P},
    {"cos", P},
    {"tanh", P},
    {"sigmoid", P},
    {"erf", P},
    {"relu", P},
    {"floor", P},
    {"ceil", P},
    {"logical_not", P},
    {"gelu", P},
    {"silu", C},
    // binary
    {"add.Tensor", P},
    {"add.Scalar", C},
    {"sub.Tensor", P},
    {"sub.Scalar", C},
    {"mul.Tensor", P},
    {"mul.Scalar", C},
    {"div.Tensor", P},
    {"div.Tensor_mode", P},
    {"div.Scalar", C},
    {"div.Scalar_mode", C},
    {"pow.Tensor_Tensor", P},
    {"pow.Tensor_Scalar", C},
    {"pow.Scalar", C},
    {"maximum", P},
    {"minimum", P},
    {"eq.Tensor", P},
    {"ne.Tensor", P},
    {"lt.Tensor", P},
    {"le.Tensor", P},
    {"gt.Tensor", P},
    {"ge.Tensor", P},
    {"eq.Scalar", C},
    {"ne.Scalar", C},
    {"lt.Scalar", C},
    {"le.Scalar", C},
    {"gt.Scalar", C},
    {"ge.Scalar", C},
    {"logical_and", P},
    {"logical_or", P},
    {"clamp", P},
    {"clamp.Tensor", C},
    // reductions
    {"sum.dim_IntList", P},
    {"mean.dim", C},
    {"prod.dim_int", P},
    {"amax", P},
    {"amin", P},
    {"argmax", P},
    {"argmin", P},
    {"all.dim", P},
    {"any.dim", P},
    {"prod", C},
    {"all", C},
    {"any", C},
    // normalisation, linear algebra, attention
    {"softmax.int", C},
    {"log_softmax.int", C},
    {"layer_norm", C},
    {"native_layer_norm", C},
    {"rms_norm", C},
    {"matmul", P},
    {"addmm", C},
    {"linear", C},
    {"baddbmm", C},
    {"scaled_dot_product_attention", C},
    // training: gradients, losses, optimizer pointwise ops
    {"threshold_backward", P},
    {"gelu_backward", P},
    {"silu_backward", P},
    {"sigmoid_backward", P},
    {"tanh_backward", P},
    {"_softmax_backward_data", C},
    {"_log_softmax_backward_data", C},
    {"native_layer_norm_backward", C},
    {"embedding_dense_backward", C},
    {"mse_loss", C},
    {"mse_loss_backward", C},
    {"nll_loss_forward", C},
    {"nll_loss_backward", C},
    {"nll_loss", C},
    {"cross_entropy_loss", C},
    {"addcmul", C},
    {"addcdiv", C},
    {"lerp.Scalar", C},
    {"zero_", C},
    {"index_add", P},
    {"masked_fill.Scalar", C},
    {"masked_fill.Tensor", C},
    {"tril", C},
    {"triu", C},
    {"var.correction", C},
    {"std.correction", C},
    {"logsumexp", C},
    {"cumsum", P},
    {"cumprod", P},
    {"max.dim", C},
    {"min.dim", C},
    {"convolution_forward", P},
    {"convolution_backward_input", P},
    {"convolution_backward_weight", P},
    {"convolution", C},
    {"convolution_backward", C},
    {"max_pool2d_with_indices", P},
    {"max_pool2d_with_indices_backward", P},
    {"avg_pool2d", P},
    {"avg_pool2d_backward", P},
    {"_adaptive_avg_pool2d", P},
    {"_adaptive_avg_pool2d_backward", P},
    {"native_batch_norm", C},
    {"native_batch_norm_backward", C},
    {"native_group_norm", C},
    {"native_group_norm_backward", C},
    {"hardtanh", C},
    {"hardtanh_backward", C},
    {"uniform_", P},
    {"normal_", P},
    {"random_.from", P},
    {"random_.to", C},
    {"random_", C},
    {"bernoulli_.float", C},
    {"bernoulli_.Tensor", C},
    {"native_dropout", C},
    {"native_dropout_backward", C},
    {"sort.stable", P},
    {"sort", C},
    {"argsort", C},
    {"argsort.stable", C},
    {"topk", C},
    {"scatter.src", P},
    {"scatter_reduce.two", P},
    {"scatter.value", C},
    {"scatter.reduce", C},
    {"scatter.value_reduce", C},
    {"scatter_add", C},
    {"nonzero_static", P},
    {"nonzero", C},
    {"masked_select", C},
    {"masked_scatter", C},
    {"one_hot", C},
    {"index.Tensor", C},
    {"index_put", C}};

const char* kind_str(OpKind k) {
  return k == OpKind::Primitive ? "primitive" : "composite";
}

MetaResult no_meta(const OpDef&, std::span<IValue>) {
  return {};
}
std::vector<Tensor> no_decompose(OpContext&, std::span<const IValue>) {
  return {};
}

TEST_CASE("every op of op set v1 is in the catalog with its kind") {
  const Catalog& cat = Catalog::get();
  for (const Expected& e : kOpSetV1) {
    CAPTURE(e.name);
    const OpDef* op = cat.find(e.name);
    REQUIRE(op != nullptr);
    CHECK(op->name == e.name);
    CHECK(op->schema.full_name() == e.name);
    CHECK(std::string(kind_str(op->kind)) == kind_str(e.kind));
    CHECK((op->meta != nullptr));
    CHECK((op->decompose != nullptr) == (op->kind == OpKind::Composite));
  }
  CHECK(cat.ops().size() == kOpSetV1.size());
}

TEST_CASE(
    "only copy_, fill_, zero_ and the random ops mutate an argument; only arange cannot "
    "fall back") {
  for (const OpDef& op : Catalog::get().ops()) {
    CAPTURE(op.name);
    const bool mutating = op.name == "copy_" || op.name == "fill_.Scalar" ||
                          op.name == "fill_.Tensor" || op.name == "zero_" ||
                          op.name == "uniform_" || op.name == "normal_" ||
                          op.name.starts_with("random_") || op.name.starts_with("bernoulli_");
    const bool three_outputs =
        op.name == "native_layer_norm" || op.name == "native_layer_norm_backward" ||
        op.name == "convolution_backward" || op.name == "native_batch_norm" ||
        op.name == "native_batch_norm_backward" || op.name == "native_group_norm" ||
        op.name == "native_group_norm_backward";
    const bool two_outputs = op.name == "nll_loss_forward" || op.name == "max.dim" ||
                             op.name == "min.dim" || op.name == "max_pool2d_with_indices" ||
                             op.name == "native_dropout" || op.name == "sort.stable" ||
                             op.name == "sort" || op.name == "topk";
    const size_t outputs = mutating ? 0u : two_outputs ? 2u : three_outputs ? 3u : 1u;
    CHECK(op.mutated_arg == (mutating ? 0 : -1));
    CHECK(op.num_outputs() == outputs);
    CHECK(op.can_fall_back == (op.name != "arange.start_step"));
  }
}

TEST_CASE("OpIds are dense, in registration order, and stable across lookups") {
  const Catalog& cat = Catalog::get();
  CHECK(&cat == &Catalog::get());
  for (size_t i = 0; i < cat.ops().size(); ++i) {
    const OpDef& op = cat.ops()[i];
    CHECK(op.id == i);
    CHECK(&cat.at(op.id) == &op);
    CHECK(&cat.at(op.name) == &op);
    CHECK(op_id(op.name) == op.id);
  }
  // Groups register in register.hpp's order: data movement first, linear algebra last.
  CHECK(op_id("copy_") == 0);
  CHECK(op_id("embedding") < op_id("neg"));
  CHECK(op_id("silu") < op_id("add.Tensor"));
  CHECK(op_id("clamp") < op_id("sum.dim_IntList"));
  CHECK(op_id("any.dim") < op_id("softmax.int"));
  CHECK(op_id("scaled_dot_product_attention") < op_id("matmul"));
  CHECK(op_id("addmm") < op_id("threshold_backward"));
  CHECK(op_id("tanh_backward") < op_id("_softmax_backward_data"));
  CHECK(op_id("_log_softmax_backward_data") < op_id("mse_loss"));
  CHECK(op_id("cross_entropy_loss") < op_id("addcmul"));
}

TEST_CASE("find returns nullptr for unknown names; at throws NotImplemented") {
  const Catalog& cat = Catalog::get();
  CHECK(cat.find("add") == nullptr);
  CHECK(cat.find("") == nullptr);
  Error e = catch_error([&] { cat.at("frobnicate.Tensor"); });
  CHECK(e.code() == ErrorCode::NotImplemented);
  CHECK(std::string(e.what()) == "unknown operator 'frobnicate.Tensor'");
  CHECK_THROWS_AS(op_id("nope"), Error);
}

TEST_CASE("unknown operator errors suggest up to three close names") {
  const Catalog& cat = Catalog::get();
  Error e = catch_error([&] { cat.at("ad.Tensor"); });
  CHECK(contains(e.what(), "unknown operator 'ad.Tensor'; did you mean 'add.Tensor'"));

  // A name without its overload suggests the overloads.
  e = catch_error([&] { cat.at("add"); });
  CHECK(contains(e.what(), "'add.Scalar'"));
  CHECK(contains(e.what(), "'add.Tensor'"));

  // Never more than three, closest first.
  e = catch_error([&] { cat.at("eq"); });
  const std::string msg = e.what();
  const size_t hint = msg.find("did you mean ");
  REQUIRE(hint != std::string::npos);
  size_t quotes = 0;
  for (size_t i = hint; i < msg.size(); ++i) quotes += msg[i] == '\'' ? 1 : 0;
  CHECK(quotes == 6);
  CHECK(contains(msg, "did you mean 'eq.Scalar', 'eq.Tensor' or '"));
}

TEST_CASE("Catalog::add parses the schema and finds the mutated argument") {
  Catalog c;
  c.add({"scale_(Tensor self, Tensor(a!) out, float factor=2.0) -> Tensor(a!)", OpKind::Primitive,
         no_meta});
  c.add({"twice(Tensor self) -> Tensor", OpKind::Composite, no_meta, no_decompose, false});
  const OpDef& scale = c.at("scale_");
  CHECK(scale.id == 0);
  CHECK(scale.mutated_arg == 1);
  CHECK(scale.num_arguments() == 3);
  CHECK(scale.num_outputs() == 0);
  const OpDef& twice = c.at(1);
  CHECK(twice.name == "twice");
  CHECK(twice.mutated_arg == -1);
  CHECK(twice.num_outputs() == 1);
  CHECK_FALSE(twice.can_fall_back);
  CHECK((twice.decompose == no_decompose));
}

TEST_CASE("Catalog::add refuses duplicates and inconsistent registrations") {
  Catalog c;
  c.add({"f.x(Tensor self) -> Tensor", OpKind::Primitive, no_meta});
  Error e = catch_error([&] { c.add({"f.x(Tensor a) -> Tensor", OpKind::Primitive, no_meta}); });
  CHECK(e.code() == ErrorCode::Internal);
  CHECK(contains(e.what(), "'f.x' is registered twice"));
  // A different overload of the same name is a different op.
  c.add({"f.y(Tensor self) -> Tensor", OpKind::Primitive, no_meta});
  CHECK(c.ops().size() == 2);

  e = catch_error([&] { c.add({"g(Tensor self) -> Tensor", OpKind::Composite, no_meta}); });
  CHECK(contains(e.what(), "'g'"));
  e = catch_error([&] {
    c.add({"h(Tensor self) -> Tensor", OpKind::Primitive, no_meta, no_decompose});
  });
  CHECK(contains(e.what(), "'h'"));
  e = catch_error([&] { c.add({"k(Tensor self) -> Tensor", OpKind::Primitive, nullptr}); });
  CHECK(contains(e.what(), "'k' has no meta rule"));
  e = catch_error([&] {
    c.add({"m(Tensor(a!) x, Tensor(b!) y) -> ()", OpKind::Primitive, no_meta});
  });
  CHECK(contains(e.what(), "'m' writes more than one argument"));
  // The plugin ABI has no None entries in tensor lists: Tensor?[] is for composites only.
  e = catch_error([&] {
    c.add({"n(Tensor self, Tensor?[] indices) -> Tensor", OpKind::Primitive, no_meta});
  });
  CHECK(contains(e.what(), "'n': a Tensor?[] argument needs a composite"));
  c.add({"n(Tensor self, Tensor?[] indices) -> Tensor", OpKind::Composite, no_meta, no_decompose});
  // Nothing half-registered remains after a refusal.
  CHECK(c.ops().size() == 3);
  CHECK(c.find("g") == nullptr);
}

TEST_CASE("Catalog::add reports schema parse errors") {
  Catalog c;
  Error e = catch_error([&] { c.add({"bad(Tensor self", OpKind::Primitive, no_meta}); });
  CHECK(e.code() == ErrorCode::Parse);
}

TEST_CASE("schemas of the catalog round-trip through their printed form") {
  for (const OpDef& op : Catalog::get().ops()) {
    CAPTURE(op.name);
    CHECK(parse_schema(op.schema.str()).str() == op.schema.str());
  }
}

}  // namespace
}  // namespace bp
