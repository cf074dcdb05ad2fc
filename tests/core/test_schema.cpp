// Tests of the schema language parser (core/src/schema*.cpp): every op set v1 schema from
// OPS.md, each type, each default kind, keyword-only arguments, alias annotations, the
// return forms, canonical printing, and the exact position and text of parse errors.
#include "backplane/core/schema.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {

using bp::ArgType;
using bp::FunctionSchema;
using bp::IValue;
using bp::TypeKind;

// The schemas of OPS.md (op set v1), with "(...)" shorthands written out, plus the out=
// and in-place forms OPS.md describes. Each is in canonical form, so str() returns it.
const std::vector<std::string> kOpSetV1 = {
    "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
    "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, "
    "Device? device=None) -> Tensor",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "index_select(Tensor self, int dim, Tensor index) -> Tensor",
    "gather(Tensor self, int dim, Tensor index) -> Tensor",
    "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
    "embedding(Tensor weight, Tensor indices, int padding_idx=-1) -> Tensor",
    "neg(Tensor self) -> Tensor",
    "abs(Tensor self) -> Tensor",
    "sign(Tensor self) -> Tensor",
    "exp(Tensor self) -> Tensor",
    "log(Tensor self) -> Tensor",
    "sqrt(Tensor self) -> Tensor",
    "rsqrt(Tensor self) -> Tensor",
    "reciprocal(Tensor self) -> Tensor",
    "sin(Tensor self) -> Tensor",
    "cos(Tensor self) -> Tensor",
    "tanh(Tensor self) -> Tensor",
    "sigmoid(Tensor self) -> Tensor",
    "erf(Tensor self) -> Tensor",
    "relu(Tensor self) -> Tensor",
    "floor(Tensor self) -> Tensor",
    "ceil(Tensor self) -> Tensor",
    "logical_not(Tensor self) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "silu(Tensor self) -> Tensor",
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
    "mul.Tensor(Tensor self, Tensor other) -> Tensor",
    "mul.Scalar(Tensor self, Scalar other) -> Tensor",
    "div.Tensor(Tensor self, Tensor other) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "div.Scalar(Tensor self, Scalar other) -> Tensor",
    "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
    "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
    "maximum(Tensor self, Tensor other) -> Tensor",
    "minimum(Tensor self, Tensor other) -> Tensor",
    "eq.Tensor(Tensor self, Tensor other) -> Tensor",
    "ne.Tensor(Tensor self, Tensor other) -> Tensor",
    "lt.Tensor(Tensor self, Tensor other) -> Tensor",
    "le.Tensor(Tensor self, Tensor other) -> Tensor",
    "gt.Tensor(Tensor self, Tensor other) -> Tensor",
    "ge.Tensor(Tensor self, Tensor other) -> Tensor",
    "eq.Scalar(Tensor self, Scalar other) -> Tensor",
    "ne.Scalar(Tensor self, Scalar other) -> Tensor",
    "lt.Scalar(Tensor self, Scalar other) -> Tensor",
    "le.Scalar(Tensor self, Scalar other) -> Tensor",
    "gt.Scalar(Tensor self, Scalar other) -> Tensor",
    "ge.Scalar(Tensor self, Scalar other) -> Tensor",
    "logical_and(Tensor self, Tensor other) -> Tensor",
    "logical_or(Tensor self, Tensor other) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "sum.dim_IntList(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) "
    "-> Tensor",
    "mean.dim(Tensor self, int[]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "amax(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    "amin(Tensor self, int[] dim=[], bool keepdim=False) -> Tensor",
    "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
    "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
    "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
    "float eps=1e-05) -> Tensor",
    "rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> "
    "Tensor",
    "matmul(Tensor self, Tensor other) -> Tensor",
    "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
    "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor",
    "scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, "
    "float dropout_p=0.0, bool is_causal=False, *, float? scale=None) -> Tensor",
};

ArgType make_type(TypeKind kind, bool list = false, std::optional<int64_t> length = std::nullopt,
                  bool optional = false, bool optional_elements = false) {
  ArgType type;
  type.kind = kind;
  type.is_list = list;
  type.optional_elements = optional_elements;
  type.fixed_length = length;
  type.is_optional = optional;
  return type;
}

// The first difference between two default values, or "" when they are equal (same kind,
// same value; a Scalar also keeps its own kind).
std::string value_diff(const IValue& a, const IValue& b) {
  if (a.variant().index() != b.variant().index()) {
    return std::string(a.kind_name()) + " vs " + std::string(b.kind_name());
  }
  const auto& va = a.variant();
  const auto& vb = b.variant();
  bool same = true;
  if (const auto* s = std::get_if<bp::Scalar>(&va)) {
    const auto& t = std::get<bp::Scalar>(vb);
    same = s->kind() == t.kind() && s->to_double() == t.to_double();
  } else if (const auto* i = std::get_if<int64_t>(&va)) {
    same = *i == std::get<int64_t>(vb);
  } else if (const auto* d = std::get_if<double>(&va)) {
    same = *d == std::get<double>(vb);
  } else if (const auto* x = std::get_if<bool>(&va)) {
    same = *x == std::get<bool>(vb);
  } else if (const auto* str = std::get_if<std::string>(&va)) {
    same = *str == std::get<std::string>(vb);
  } else if (const auto* l = std::get_if<bp::Shape>(&va)) {
    same = *l == std::get<bp::Shape>(vb);
  } else if (!a.is_none()) {
    return "unexpected default kind " + std::string(a.kind_name());
  }
  return same ? "" : "different " + std::string(a.kind_name()) + " values";
}

std::string argument_diff(const bp::Argument& a, const bp::Argument& b) {
  if (a.name != b.name) return "name " + a.name + " vs " + b.name;
  if (!(a.type == b.type)) return a.name + ": type " + a.type.str() + " vs " + b.type.str();
  if (a.kwarg_only != b.kwarg_only) return a.name + ": kwarg_only differs";
  if (a.alias != b.alias) return a.name + ": alias differs";
  if (a.default_value.has_value() != b.default_value.has_value()) {
    return a.name + ": default present in one only";
  }
  if (a.default_value) {
    std::string d = value_diff(*a.default_value, *b.default_value);
    if (!d.empty()) return a.name + ": default " + d;
  }
  return "";
}

// The first structural difference between two schemas, or "" when they are equal.
std::string schema_diff(const FunctionSchema& a, const FunctionSchema& b) {
  if (a.name != b.name || a.overload != b.overload) return a.full_name() + " vs " + b.full_name();
  if (a.arguments.size() != b.arguments.size()) return "argument count differs";
  if (a.returns.size() != b.returns.size()) return "return count differs";
  for (size_t k = 0; k < a.arguments.size(); ++k) {
    std::string d = argument_diff(a.arguments[k], b.arguments[k]);
    if (!d.empty()) return "argument " + d;
  }
  for (size_t k = 0; k < a.returns.size(); ++k) {
    std::string d = argument_diff(a.returns[k], b.returns[k]);
    if (!d.empty()) return "return " + d;
  }
  return "";
}

// The message of the Parse error that parsing `text` throws ("" and a failed check if none).
std::string parse_error(std::string_view text, std::string_view source = "schema") {
  try {
    bp::parse_schema(text, source);
  } catch (const bp::Error& e) {
    CHECK(e.code() == bp::ErrorCode::Parse);
    return e.what();
  }
  FAIL_CHECK("no error for: " << text);
  return "";
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

// The only argument of "f(<arg>) -> ()".
bp::Argument single_argument(const std::string& arg) {
  FunctionSchema s = bp::parse_schema("f(" + arg + ") -> ()");
  REQUIRE(s.arguments.size() == 1);
  return s.arguments[0];
}

}  // namespace

TEST_CASE("every op set v1 schema parses and prints back exactly as written") {
  for (const std::string& text : kOpSetV1) {
    CAPTURE(text);
    FunctionSchema schema = bp::parse_schema(text);
    CHECK(schema.str() == text);
    CHECK(schema_diff(bp::parse_schema(schema.str()), schema) == "");
  }
}

TEST_CASE("add.Tensor parses to its name, overload, arguments and return") {
  FunctionSchema s =
      bp::parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  CHECK(s.name == "add");
  CHECK(s.overload == "Tensor");
  CHECK(s.full_name() == "add.Tensor");
  REQUIRE(s.arguments.size() == 3);
  CHECK(s.arguments[0].name == "self");
  CHECK(s.arguments[0].type == make_type(TypeKind::Tensor));
  CHECK_FALSE(s.arguments[0].default_value.has_value());
  CHECK_FALSE(s.arguments[1].kwarg_only);
  CHECK(s.arguments[2].kwarg_only);
  CHECK(s.arguments[2].type == make_type(TypeKind::Scalar));
  REQUIRE(s.arguments[2].default_value.has_value());
  CHECK(s.arguments[2].default_value->is_scalar());
  CHECK(s.arguments[2].default_value->scalar().is_integral());
  CHECK(s.arguments[2].default_value->scalar().to_double() == 1.0);
  REQUIRE(s.returns.size() == 1);
  CHECK(s.returns[0].name.empty());
  CHECK(s.returns[0].type == make_type(TypeKind::Tensor));
  CHECK_FALSE(s.is_mutable());
}

TEST_CASE("a schema without overload has full_name equal to its name") {
  FunctionSchema s = bp::parse_schema("relu(Tensor self) -> Tensor");
  CHECK(s.overload.empty());
  CHECK(s.full_name() == "relu");
}

TEST_CASE("each type parses to its kind, list form, fixed length and optionality") {
  struct Case {
    std::string text;
    ArgType type;
  };
  const std::vector<Case> cases = {
      {"Tensor", make_type(TypeKind::Tensor)},
      {"Tensor?", make_type(TypeKind::Tensor, false, std::nullopt, true)},
      {"Tensor[]", make_type(TypeKind::Tensor, true)},
      {"Tensor?[]", make_type(TypeKind::Tensor, true, std::nullopt, false, true)},
      {"Tensor?[]?", make_type(TypeKind::Tensor, true, std::nullopt, true, true)},
      {"Scalar", make_type(TypeKind::Scalar)},
      {"Scalar?", make_type(TypeKind::Scalar, false, std::nullopt, true)},
      {"int", make_type(TypeKind::Int)},
      {"int?", make_type(TypeKind::Int, false, std::nullopt, true)},
      {"int[]", make_type(TypeKind::Int, true)},
      {"int[2]", make_type(TypeKind::Int, true, 2)},
      {"int[]?", make_type(TypeKind::Int, true, std::nullopt, true)},
      {"int[1]?", make_type(TypeKind::Int, true, 1, true)},
      {"float", make_type(TypeKind::Float)},
      {"float?", make_type(TypeKind::Float, false, std::nullopt, true)},
      {"bool", make_type(TypeKind::Bool)},
      {"bool?", make_type(TypeKind::Bool, false, std::nullopt, true)},
      {"bool[]", make_type(TypeKind::Bool, true)},
      {"bool[3]", make_type(TypeKind::Bool, true, 3)},
      {"ScalarType", make_type(TypeKind::ScalarType)},
      {"ScalarType?", make_type(TypeKind::ScalarType, false, std::nullopt, true)},
      {"str", make_type(TypeKind::String)},
      {"str?", make_type(TypeKind::String, false, std::nullopt, true)},
      {"Device", make_type(TypeKind::Device)},
      {"Device?", make_type(TypeKind::Device, false, std::nullopt, true)},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    bp::Argument arg = single_argument(c.text + " x");
    CHECK(arg.type == c.type);
    CHECK(arg.type.str() == c.text);
    CHECK_FALSE(arg.alias.has_value());
  }
}

TEST_CASE("integer defaults are int64, including negative ones") {
  CHECK(single_argument("int dim=-1").default_value->to_int() == -1);
  CHECK(single_argument("int dim=0").default_value->to_int() == 0);
  CHECK(single_argument("int? dim=3").default_value->to_int() == 3);
  CHECK(single_argument("int n=9223372036854775807").default_value->to_int() == INT64_MAX);
  CHECK(single_argument("int n=-9223372036854775808").default_value->to_int() == INT64_MIN);
  CHECK(single_argument("int dim=-1").default_value->is_int());
}

TEST_CASE("float defaults are doubles, from float and integer literals") {
  CHECK(single_argument("float eps=1e-05").default_value->to_double() == 1e-05);
  CHECK(single_argument("float x=-0.5").default_value->to_double() == -0.5);
  CHECK(single_argument("float x=1.").default_value->to_double() == 1.0);
  CHECK(single_argument("float x=2.5E+3").default_value->to_double() == 2500.0);
  IValue from_int = *single_argument("float x=2").default_value;
  CHECK(from_int.is_double());
  CHECK(from_int.to_double() == 2.0);
  CHECK(single_argument("float? eps=0.25").default_value->is_double());
}

TEST_CASE("bool defaults are True and False") {
  IValue f = *single_argument("bool keepdim=False").default_value;
  REQUIRE(f.is_bool());
  CHECK_FALSE(f.to_bool());
  CHECK(single_argument("bool? b=True").default_value->to_bool());
}

TEST_CASE("Scalar defaults keep the kind of their literal") {
  bp::Scalar i = single_argument("Scalar alpha=1").default_value->scalar();
  CHECK(i.is_integral());
  CHECK(i.to_double() == 1.0);
  bp::Scalar d = single_argument("Scalar alpha=1.0").default_value->scalar();
  CHECK(d.is_floating());
  bp::Scalar b = single_argument("Scalar alpha=True").default_value->scalar();
  CHECK(b.is_bool());
  CHECK(b.to_bool());
  CHECK(single_argument("Scalar alpha=-2").default_value->is_scalar());
}

TEST_CASE("None defaults are stored as a None IValue for optional types") {
  for (std::string arg : {"ScalarType? dtype=None", "Tensor? w=None", "int[]? dim=None",
                          "int[1]? dim=None", "Device? device=None", "str? mode=None",
                          "Scalar? min=None", "float? eps=None", "int? dim=None"}) {
    CAPTURE(arg);
    bp::Argument a = single_argument(arg);
    REQUIRE(a.default_value.has_value());
    CHECK(a.default_value->is_none());
  }
}

TEST_CASE("string defaults take single or double quotes and escapes") {
  CHECK(single_argument("str approximate='none'").default_value->string() == "none");
  CHECK(single_argument("str approximate=\"tanh\"").default_value->string() == "tanh");
  CHECK(single_argument("str s=''").default_value->string().empty());
  CHECK(single_argument(R"(str s='it\'s')").default_value->string() == "it's");
  CHECK(single_argument(R"(str s="a\"b\\c\n")").default_value->string() == "a\"b\\c\n");
  CHECK(single_argument("str? mode='trunc'").default_value->string() == "trunc");
}

TEST_CASE("int list defaults are lists, and a single integer fills an int[N]") {
  CHECK(single_argument("int[] dim=[]").default_value->int_list().empty());
  CHECK(single_argument("int[] dims=[0, 1]").default_value->int_list() == bp::Shape{0, 1});
  CHECK(single_argument("int[] dims=[-1]").default_value->int_list() == bp::Shape{-1});
  CHECK(single_argument("int[2] stride=1").default_value->int_list() == bp::Shape{1, 1});
  CHECK(single_argument("int[3] pad=[0, 1, 2]").default_value->int_list() == bp::Shape{0, 1, 2});
  CHECK(single_argument("int[1]? dim=2").default_value->int_list() == bp::Shape{2});
}

TEST_CASE("arguments after '*' are keyword-only and str() writes the '*' back") {
  FunctionSchema s = bp::parse_schema("f(Tensor a, int b, *, int c=1, bool d=False) -> Tensor");
  CHECK_FALSE(s.arguments[0].kwarg_only);
  CHECK_FALSE(s.arguments[1].kwarg_only);
  CHECK(s.arguments[2].kwarg_only);
  CHECK(s.arguments[3].kwarg_only);
  CHECK(s.str() == "f(Tensor a, int b, *, int c=1, bool d=False) -> Tensor");
  FunctionSchema all_kw = bp::parse_schema("f(*, Tensor a) -> Tensor");
  CHECK(all_kw.arguments[0].kwarg_only);
  CHECK(all_kw.str() == "f(*, Tensor a) -> Tensor");
}

TEST_CASE("alias annotations record the set and whether it is written") {
  FunctionSchema s = bp::parse_schema(
      "f(Tensor(a!) self, Tensor(b) view, Tensor(c)? opt, Tensor plain) -> Tensor(a!)");
  REQUIRE(s.arguments[0].alias.has_value());
  CHECK(s.arguments[0].alias->set == "a");
  CHECK(s.arguments[0].alias->is_write);
  REQUIRE(s.arguments[1].alias.has_value());
  CHECK(s.arguments[1].alias->set == "b");
  CHECK_FALSE(s.arguments[1].alias->is_write);
  CHECK(s.arguments[2].alias == bp::AliasInfo{"c", false});
  CHECK(s.arguments[2].type.is_optional);
  CHECK_FALSE(s.arguments[3].alias.has_value());
  CHECK(s.returns[0].alias == bp::AliasInfo{"a", true});
  CHECK(s.is_mutable());
  CHECK(s.str() ==
        "f(Tensor(a!) self, Tensor(b) view, Tensor(c)? opt, Tensor plain) -> Tensor(a!)");
}

TEST_CASE("a read-only alias does not make a schema mutable") {
  CHECK_FALSE(bp::parse_schema("view(Tensor(a) self) -> Tensor(a)").is_mutable());
  CHECK(bp::parse_schema("add.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)").is_mutable());
}

TEST_CASE("each return form parses and prints back") {
  FunctionSchema one = bp::parse_schema("f(Tensor a) -> Tensor");
  REQUIRE(one.returns.size() == 1);
  CHECK(one.returns[0].name.empty());

  FunctionSchema two = bp::parse_schema("f(Tensor a) -> (Tensor, Tensor)");
  CHECK(two.returns.size() == 2);
  CHECK(two.str() == "f(Tensor a) -> (Tensor, Tensor)");

  FunctionSchema named = bp::parse_schema(
      "max.dim(Tensor self, int dim) -> (Tensor values, "
      "Tensor indices)");
  REQUIRE(named.returns.size() == 2);
  CHECK(named.returns[0].name == "values");
  CHECK(named.returns[1].name == "indices");
  CHECK(named.str() == "max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)");

  FunctionSchema none = bp::parse_schema("f(Tensor(a!) a) -> ()");
  CHECK(none.returns.empty());
  CHECK(none.str() == "f(Tensor(a!) a) -> ()");

  FunctionSchema one_named = bp::parse_schema("f(Tensor a) -> (Tensor out)");
  CHECK(one_named.returns[0].name == "out");
  CHECK(one_named.str() == "f(Tensor a) -> (Tensor out)");

  FunctionSchema other_types = bp::parse_schema("f(Tensor a) -> (int, Tensor[], Scalar)");
  CHECK(other_types.returns[1].type == make_type(TypeKind::Tensor, true));
}

TEST_CASE("str() is canonical: spacing, quotes, floats and filled lists are normalised") {
  FunctionSchema s = bp::parse_schema(
      "  f . o (\n  Tensor  a ,int[2] s=1,\tstr m=\"x\" , float e=2,*,Scalar k=1.5)->( )\n");
  CHECK(s.str() == "f.o(Tensor a, int[2] s=[1, 1], str m='x', float e=2.0, *, Scalar k=1.5) -> ()");
  for (std::string text : {"f(float a=1e+20, float b=-0.5, float c=1e-07, float d=0.1) -> ()",
                           R"(f(str a='it\'s', str b='back\\slash', str c='tab\tnew\n') -> ())",
                           "f(Scalar a=1.0, Scalar b=-3, Scalar c=False) -> ()"}) {
    CAPTURE(text);
    FunctionSchema parsed = bp::parse_schema(text);
    CHECK(parsed.str() == text);
    CHECK(schema_diff(bp::parse_schema(parsed.str()), parsed) == "");
  }
}

TEST_CASE("argument_index finds arguments by name and returns -1 otherwise") {
  FunctionSchema s = bp::parse_schema(kOpSetV1[2]);  // arange.start_step
  CHECK(s.argument_index("start") == 0);
  CHECK(s.argument_index("dtype") == 3);
  CHECK(s.argument_index("device") == 4);
  CHECK(s.argument_index("missing") == -1);
  CHECK(s.argument_index("") == -1);
}

TEST_CASE("a parse error names the source and position, then shows the line and a caret") {
  CHECK(parse_error("add.Tensor(Tensor self, Tensor other -> Tensor") ==
        "schema 1:38: expected ',' or ')' but found '->'\n"
        "add.Tensor(Tensor self, Tensor other -> Tensor\n" +
            std::string(37, ' ') + "^");
  CHECK(parse_error("(Tensor self) -> Tensor", "ops.yaml") ==
        "ops.yaml 1:1: expected an operator name but found '('\n"
        "(Tensor self) -> Tensor\n"
        "^");
}

TEST_CASE("each syntax error reports its exact line and column") {
  struct Case {
    std::string text;
    std::string first_line;
  };
  const std::vector<Case> cases = {
      {"", "schema 1:1: expected an operator name but found end of input"},
      {".Tensor(Tensor a) -> Tensor", "schema 1:1: expected an operator name but found '.'"},
      {"add.(Tensor self) -> Tensor", "schema 1:5: expected an overload name but found '('"},
      {"add Tensor", "schema 1:5: expected '.' or '(' but found 'Tensor'"},
      {"f(Tensor a", "schema 1:11: expected ',' or ')' but found end of input"},
      {"f(Tensor a) Tensor", "schema 1:13: expected '->' but found 'Tensor'"},
      {"relu(Tensor self) -> Tensor junk", "schema 1:29: expected end of input but found 'junk'"},
      {"f(Tensor a) -> Tensor$", "schema 1:22: expected end of input but found '$'"},
      {"f(Tensor a) ->", "schema 1:15: expected a return type but found end of input"},
      {"f(Tensor a) -> (Tensor a=None)", "schema 1:25: expected ',' or ')' but found '='"},
      {"f(Tensor a,) -> ()", "schema 1:12: expected an argument type but found ')'"},
      {"f(Tensor) -> ()", "schema 1:9: expected an argument name but found ')'"},
      {"f(Tensor a, *) -> Tensor", "schema 1:14: expected ',' after '*' but found ')'"},
      {"f(Tensor a, *, Tensor b, *, Tensor c) -> Tensor",
       "schema 1:26: expected an argument type but found '*' ('*' was already given at 1:13)"},
      {"add(Tensor self, Tensor self) -> Tensor",
       "schema 1:25: expected a unique argument name but found 'self' (argument 0 at 1:12 has "
       "the same name)"},
      {"relu(Tensr self) -> Tensor",
       "schema 1:6: expected a type (Tensor, Scalar, int, float, bool, ScalarType, str or "
       "Device) but found 'Tensr'"},
      {"f(float[] x) -> ()",
       "schema 1:3: expected a type with a list form (Tensor, int or bool) before '[' but "
       "found 'float'"},
      {"f(int[0] x) -> ()", "schema 1:7: expected a list length of at least 1 but found '0'"},
      // An int[N] default is expanded to N values: a huge N would allocate without bound.
      {"f(int[65] x=1) -> ()", "schema 1:7: expected a list length of at most 64 but found '65'"},
      {"f(Tensor[2] x) -> ()", "schema 1:10: expected ']' but found '2'"},
      {"f(int[x] y) -> ()", "schema 1:7: expected a list length or ']' but found 'x'"},
      {"f(Tensor(a!!) x) -> ()", "schema 1:12: expected ')' but found '!'"},
      {"f(Tensor(a x) -> ()", "schema 1:12: expected '!' or ')' but found 'x'"},
      {"f(Tensor() x) -> ()", "schema 1:10: expected an alias set name but found ')'"},
      {"f(int(a) x) -> ()", "schema 1:6: expected an argument name but found '('"},
      {"f(str s='abc) -> ()",
       "schema 1:9: expected a default value but found unterminated string 'abc) -> ()"},
      {"f(int x=) -> ()", "schema 1:9: expected a default value but found ')'"},
      {"f(int[] x=[1, 2.5]) -> ()",
       "schema 1:15: expected an integer list element but found '2.5'"},
      {"f(int[] x=[1 2]) -> ()", "schema 1:14: expected ',' or ']' but found '2'"},
      {"f(int x=99999999999999999999) -> ()",
       "schema 1:9: expected an integer in the int64 range but found '99999999999999999999'"},
      {"f(float x=1e999) -> ()",
       "schema 1:11: expected a float in the double range but found '1e999'"},
      {R"(f(str s='\q') -> ())",
       R"(schema 1:9: expected a string with escapes \\, \', \", \n or \t only )"
       R"(but found string '\q')"},
      {"f(int x=1) - > ()", "schema 1:12: expected '->' but found '-'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(first_line(parse_error(c.text)) == c.first_line);
  }
}

TEST_CASE("Tensor?[] takes no length, and Tensor? no second '?'") {
  CHECK(first_line(parse_error("f(Tensor?[2] x) -> ()")) ==
        "schema 1:11: expected ']' but found '2'");
  CHECK(first_line(parse_error("f(Tensor?? x) -> ()")) ==
        "schema 1:10: expected an argument name but found '?'");
}

TEST_CASE("a default that does not fit its type is an error at the default") {
  struct Case {
    std::string text;
    std::string first_line;
  };
  const std::vector<Case> cases = {
      {"f(int dim=None) -> ()",
       "schema 1:11: expected a default of type int but found 'None' (None needs an optional "
       "type: int?)"},
      {"f(Tensor t=None) -> ()",
       "schema 1:12: expected a default of type Tensor but found 'None' (None needs an optional "
       "type: Tensor?)"},
      {"f(int dim=1.5) -> ()", "schema 1:11: expected a default of type int but found '1.5'"},
      {"f(int dim=True) -> ()", "schema 1:11: expected a default of type int but found 'True'"},
      {"f(bool keepdim=0) -> ()", "schema 1:16: expected a default of type bool but found '0'"},
      {"f(str s=1) -> ()", "schema 1:9: expected a default of type str but found '1'"},
      {"f(float x='a') -> ()",
       "schema 1:11: expected a default of type float but found string 'a'"},
      {"f(float x=[]) -> ()", "schema 1:11: expected a default of type float but found '['"},
      {"f(Scalar x='a') -> ()",
       "schema 1:12: expected a default of type Scalar but found string 'a'"},
      {"f(int[] x=1) -> ()",
       "schema 1:11: expected a default of type int[] but found '1' (a single integer needs a "
       "fixed length such as int[2])"},
      {"f(int[2] x=[1, 2, 3]) -> ()",
       "schema 1:12: expected a default of type int[2] but found '[' (the list has 3 elements)"},
      {"f(int[] x='a') -> ()",
       "schema 1:11: expected a default of type int[] but found string 'a'"},
      {"f(Tensor[] x=[]) -> ()", "schema 1:14: expected a default of type Tensor[] but found '['"},
      // A bool list is an int list of 0 and 1 (docs/schema.md), with no literal of its own.
      {"f(bool[3] m=[1, 0, 1]) -> ()",
       "schema 1:13: expected a default of type bool[3] but found '['"},
      {"f(ScalarType? d=1) -> ()",
       "schema 1:17: expected a default of type ScalarType? but found '1' (the only default of "
       "this type is None)"},
      {"f(Device? d='cpu') -> ()",
       "schema 1:13: expected a default of type Device? but found string 'cpu' (the only "
       "default of this type is None)"},
      {"f(int x=foo) -> ()", "schema 1:9: expected a default value but found 'foo'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.text);
    CHECK(first_line(parse_error(c.text)) == c.first_line);
  }
}

TEST_CASE("errors in a multi-line schema point at the line and column where they are") {
  const std::string text =
      "layer_norm(Tensor input,\n"
      "           int[] normalized_shape,\n"
      "           Tensr? weight=None) -> Tensor";
  CHECK(parse_error(text) ==
        "schema 3:12: expected a type (Tensor, Scalar, int, float, bool, ScalarType, str or "
        "Device) but found 'Tensr'\n"
        "           Tensr? weight=None) -> Tensor\n"
        "           ^");
  // End of input is reported just after the last token, not on the trailing blank lines.
  CHECK(parse_error("f(Tensor a,\n  Tensor b\n\n") ==
        "schema 2:11: expected ',' or ')' but found end of input\n"
        "  Tensor b\n"
        "          ^");
  // A tab in the line is kept in the caret line so the caret stays under the column.
  CHECK(parse_error("f(Tensor a,\n\tint x=None) -> ()") ==
        "schema 2:8: expected a default of type int but found 'None' (None needs an optional "
        "type: int?)\n"
        "\tint x=None) -> ()\n"
        "\t      ^");
  // Columns count characters, not bytes: 'é' is one column and one caret space.
  CHECK(parse_error("f(str s='h\xc3\xa9llo', Tensr x) -> ()") ==
        "schema 1:18: expected a type (Tensor, Scalar, int, float, bool, ScalarType, str or "
        "Device) but found 'Tensr'\n"
        "f(str s='h\xc3\xa9llo', Tensr x) -> ()\n" +
            std::string(17, ' ') + "^");
  // Windows line ends: the '\r' is neither counted nor printed.
  CHECK(parse_error("f(Tensor a,\r\n  Tensr b) -> ()") ==
        "schema 2:3: expected a type (Tensor, Scalar, int, float, bool, ScalarType, str or "
        "Device) but found 'Tensr'\n"
        "  Tensr b) -> ()\n"
        "  ^");
}

TEST_CASE("a valid multi-line schema parses like its one-line form") {
  FunctionSchema multi = bp::parse_schema(
      "scaled_dot_product_attention(\n"
      "    Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,\n"
      "    float dropout_p=0.0, bool is_causal=False, *, float? scale=None)\n"
      "  -> Tensor\n");
  FunctionSchema one = bp::parse_schema(kOpSetV1.back());
  CHECK(schema_diff(multi, one) == "");
  CHECK(multi.str() == kOpSetV1.back());
}
