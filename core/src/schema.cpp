// The schema parser: recursive descent over the grammar
//   schema   := name ['.' overload] '(' [args] ')' '->' returns
//   args     := item (',' item)*        item := '*' | type name ['=' default]
//   type     := base ['(' set ['!'] ')'] ['[' [N] ']'] ['?']     (alias on Tensor only)
//   returns  := type | '(' [type [name] (',' type [name])*] ')'
// Defaults are read as literals first and then converted to the argument's type, so a
// mismatch is reported at the literal with the type it should have had.
#include "backplane/core/schema.hpp"

#include "schema_lexer.hpp"

#include <charconv>

namespace bp {
namespace {

using schema_detail::SchemaLexer;
using schema_detail::Token;
using schema_detail::TokenKind;

// The longest int[N]: N is a number of dims (kernel_size, stride), and a default such as
// int[N] x=1 is expanded to N values at parse time, so an unbounded N lets one schema line
// allocate any amount of memory (found by fuzzing, tests/fuzz/corpus/schema/regress-*).
constexpr int64_t kMaxFixedListLength = 64;

constexpr std::string_view kTypeNames =
    "expected a type (Tensor, Scalar, int, float, bool, ScalarType, str or Device)";

std::optional<TypeKind> type_kind(std::string_view name) {
  if (name == "Tensor") return TypeKind::Tensor;
  if (name == "Scalar") return TypeKind::Scalar;
  if (name == "int") return TypeKind::Int;
  if (name == "float") return TypeKind::Float;
  if (name == "bool") return TypeKind::Bool;
  if (name == "ScalarType") return TypeKind::ScalarType;
  if (name == "str") return TypeKind::String;
  if (name == "Device") return TypeKind::Device;
  return std::nullopt;
}

// A default value as written, before it is given the argument's type.
struct Literal {
  enum class Kind { None, Bool, Int, Float, String, IntList } kind = Kind::None;
  Token token;  // the first token of the literal, where mismatches are reported
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
  Shape list;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view source) : lex_(text, source) {}

  FunctionSchema parse() {
    FunctionSchema schema;
    schema.name = expect_ident("expected an operator name");
    if (lex_.accept('.')) schema.overload = expect_ident("expected an overload name");
    if (!lex_.peek().is('(')) lex_.fail(lex_.peek(), "expected '.' or '('");
    lex_.next();
    parse_arguments(schema.arguments);
    if (lex_.peek().kind != TokenKind::Arrow) lex_.fail(lex_.peek(), "expected '->'");
    lex_.next();
    parse_returns(schema.returns);
    if (lex_.peek().kind != TokenKind::End) lex_.fail(lex_.peek(), "expected end of input");
    return schema;
  }

 private:
  std::string expect_ident(std::string_view expected) {
    if (lex_.peek().kind != TokenKind::Ident) lex_.fail(lex_.peek(), expected);
    return std::string(lex_.next().text);
  }

  void parse_arguments(std::vector<Argument>& args) {
    if (lex_.accept(')')) return;
    std::vector<Token> name_tokens;  // for duplicate-name messages
    std::optional<Token> star;
    while (true) {
      if (lex_.peek().is('*')) {
        if (star) {
          lex_.fail(lex_.peek(), "expected an argument type",
                    fmt::format("'*' was already given at {}:{}", star->line, star->column));
        }
        star = lex_.next();
        // '*' must be followed by the arguments it makes keyword-only.
        if (!lex_.peek().is(',')) lex_.fail(lex_.peek(), "expected ',' after '*'");
        lex_.next();
        continue;
      }
      Token name_token;
      Argument arg = parse_argument("an argument type", &name_token);
      for (size_t k = 0; k < args.size(); ++k) {
        if (args[k].name == arg.name) {
          lex_.fail(name_token, "expected a unique argument name",
                    fmt::format("argument {} at {}:{} has the same name", k, name_tokens[k].line,
                                name_tokens[k].column));
        }
      }
      arg.kwarg_only = star.has_value();
      if (lex_.accept('=')) arg.default_value = parse_default(arg.type);
      args.push_back(std::move(arg));
      name_tokens.push_back(name_token);
      if (lex_.accept(')')) return;
      if (!lex_.peek().is(',')) lex_.fail(lex_.peek(), "expected ',' or ')'");
      lex_.next();
    }
  }

  void parse_returns(std::vector<Argument>& returns) {
    if (!lex_.accept('(')) {
      returns.push_back(parse_argument("a return type", nullptr));
      return;
    }
    if (lex_.accept(')')) return;
    while (true) {
      Argument ret = parse_argument("a return type", nullptr);
      if (lex_.peek().kind == TokenKind::Ident) ret.name = std::string(lex_.next().text);
      returns.push_back(std::move(ret));
      if (lex_.accept(')')) return;
      if (!lex_.peek().is(',')) lex_.fail(lex_.peek(), "expected ',' or ')'");
      lex_.next();
    }
  }

  // A type with its alias annotation and, when `name_token` is given, the argument name
  // after it (stored in `name_token` for later messages). `what` names the expected type.
  Argument parse_argument(std::string_view what, Token* name_token) {
    Argument arg;
    const Token type_token = lex_.peek();
    if (type_token.kind != TokenKind::Ident)
      lex_.fail(type_token, fmt::format("expected {}", what));
    std::optional<TypeKind> kind = type_kind(type_token.text);
    if (!kind) lex_.fail(type_token, kTypeNames);
    lex_.next();
    arg.type.kind = *kind;
    if (*kind == TypeKind::Tensor && lex_.accept('(')) {
      arg.alias = AliasInfo{expect_ident("expected an alias set name"), false};
      arg.alias->is_write = lex_.accept('!');
      if (!lex_.peek().is(')')) {
        lex_.fail(lex_.peek(), arg.alias->is_write ? "expected ')'" : "expected '!' or ')'");
      }
      lex_.next();
    }
    // "Tensor?[]" (a list whose entries may be None, as index's indices) against "Tensor?".
    bool optional_tensor = false;
    if (*kind == TypeKind::Tensor && lex_.accept('?')) {
      if (lex_.peek().is('['))
        arg.type.optional_elements = true;
      else
        optional_tensor = true;
    }
    if (!optional_tensor && lex_.peek().is('[')) {
      if (*kind != TypeKind::Tensor && *kind != TypeKind::Int && *kind != TypeKind::Bool) {
        lex_.fail(type_token, "expected a type with a list form (Tensor, int or bool) before '['");
      }
      lex_.next();
      arg.type.is_list = true;
      const bool sized = *kind == TypeKind::Int || *kind == TypeKind::Bool;
      if (lex_.peek().kind == TokenKind::Int && sized) {
        const Token& length = lex_.next();
        int64_t n = 0;
        if (!parse_int(length.text, n) || n < 1) {
          lex_.fail(length, "expected a list length of at least 1");
        }
        if (n > kMaxFixedListLength) {
          lex_.fail(length,
                    fmt::format("expected a list length of at most {}", kMaxFixedListLength));
        }
        arg.type.fixed_length = n;
      }
      if (!lex_.peek().is(']')) {
        lex_.fail(lex_.peek(), sized ? "expected a list length or ']'" : "expected ']'");
      }
      lex_.next();
    }
    arg.type.is_optional = optional_tensor || lex_.accept('?');
    if (name_token) {
      *name_token = lex_.peek();
      arg.name = expect_ident("expected an argument name");
    }
    return arg;
  }

  static bool parse_int(std::string_view text, int64_t& out) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    return ec == std::errc() && end == text.data() + text.size();
  }

  Literal parse_literal() {
    Literal lit;
    lit.token = lex_.peek();
    const Token& t = lex_.next();
    if (t.kind == TokenKind::Ident && (t.text == "None" || t.text == "True" || t.text == "False")) {
      lit.kind = t.text == "None" ? Literal::Kind::None : Literal::Kind::Bool;
      lit.b = t.text == "True";
    } else if (t.kind == TokenKind::Int) {
      lit.kind = Literal::Kind::Int;
      if (!parse_int(t.text, lit.i)) lex_.fail(t, "expected an integer in the int64 range");
    } else if (t.kind == TokenKind::Float) {
      lit.kind = Literal::Kind::Float;
      auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), lit.d);
      if (ec != std::errc() || end != t.text.data() + t.text.size()) {
        lex_.fail(t, "expected a float in the double range");
      }
    } else if (t.kind == TokenKind::String) {
      lit.kind = Literal::Kind::String;
      lit.s = unescape(t);
    } else if (t.is('[')) {
      lit.kind = Literal::Kind::IntList;
      if (lex_.accept(']')) return lit;
      while (true) {
        const Token& element = lex_.next();
        int64_t v = 0;
        if (element.kind != TokenKind::Int) lex_.fail(element, "expected an integer list element");
        if (!parse_int(element.text, v))
          lex_.fail(element, "expected an integer in the int64 range");
        lit.list.push_back(v);
        if (lex_.accept(']')) return lit;
        if (!lex_.peek().is(',')) lex_.fail(lex_.peek(), "expected ',' or ']'");
        lex_.next();
      }
    } else {
      lex_.fail(t, "expected a default value");
    }
    return lit;
  }

  // The characters of a string token without its quotes, escapes resolved.
  std::string unescape(const Token& t) const {
    std::string out;
    std::string_view body = t.text.substr(1, t.text.size() - 2);
    for (size_t k = 0; k < body.size(); ++k) {
      if (body[k] != '\\') {
        out += body[k];
        continue;
      }
      const char e = body[++k];  // the lexer guarantees a character after '\'
      if (e == 'n') {
        out += '\n';
      } else if (e == 't') {
        out += '\t';
      } else if (e == '\\' || e == '\'' || e == '"') {
        out += e;
      } else {
        lex_.fail(t, "expected a string with escapes \\\\, \\', \\\", \\n or \\t only");
      }
    }
    return out;
  }

  IValue parse_default(const ArgType& type) {
    const Literal lit = parse_literal();
    using K = Literal::Kind;
    const std::string expected = fmt::format("expected a default of type {}", type.str());
    if (lit.kind == K::None) {
      if (!type.is_optional) {
        lex_.fail(lit.token, expected, fmt::format("None needs an optional type: {}?", type.str()));
      }
      return IValue();
    }
    if (type.is_list) {
      if (type.kind == TypeKind::Int && lit.kind == K::IntList) {
        if (type.fixed_length && static_cast<int64_t>(lit.list.size()) != *type.fixed_length) {
          lex_.fail(lit.token, expected, fmt::format("the list has {} elements", lit.list.size()));
        }
        return IValue(lit.list);
      }
      if (type.kind == TypeKind::Int && lit.kind == K::Int && type.fixed_length) {
        // int[2] stride=1 means [1, 1], as in PyTorch.
        return IValue(Shape(static_cast<size_t>(*type.fixed_length), lit.i));
      }
      lex_.fail(lit.token, expected,
                type.kind == TypeKind::Int && lit.kind == K::Int
                    ? "a single integer needs a fixed length such as int[2]"
                    : std::string_view{});
    }
    switch (type.kind) {
      case TypeKind::Scalar:
        if (lit.kind == K::Bool) return IValue(Scalar(lit.b));
        if (lit.kind == K::Int) return IValue(Scalar(lit.i));
        if (lit.kind == K::Float) return IValue(Scalar(lit.d));
        break;
      case TypeKind::Int:
        if (lit.kind == K::Int) return IValue(lit.i);
        break;
      case TypeKind::Float:
        if (lit.kind == K::Int) return IValue(static_cast<double>(lit.i));
        if (lit.kind == K::Float) return IValue(lit.d);
        break;
      case TypeKind::Bool:
        if (lit.kind == K::Bool) return IValue(lit.b);
        break;
      case TypeKind::String:
        if (lit.kind == K::String) return IValue(lit.s);
        break;
      case TypeKind::Tensor:
      case TypeKind::ScalarType:
      case TypeKind::Device:
        lex_.fail(lit.token, expected, "the only default of this type is None");
    }
    lex_.fail(lit.token, expected);
  }

  SchemaLexer lex_;
};

}  // namespace

FunctionSchema parse_schema(std::string_view text, std::string_view source) {
  return Parser(text, source).parse();
}

}  // namespace bp
