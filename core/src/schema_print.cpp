// Canonical text of schemas and types, and the small queries on a parsed schema.
// The text is what parse_schema reads back to an equal schema: floats always carry a '.' or
// an exponent so they stay floats, strings use single quotes, lists print in full.
#include "backplane/core/schema.hpp"

#include <cmath>

namespace bp {
namespace {

std::string_view type_name(TypeKind kind) {
  switch (kind) {
    case TypeKind::Tensor:
      return "Tensor";
    case TypeKind::Scalar:
      return "Scalar";
    case TypeKind::Int:
      return "int";
    case TypeKind::Float:
      return "float";
    case TypeKind::Bool:
      return "bool";
    case TypeKind::ScalarType:
      return "ScalarType";
    case TypeKind::String:
      return "str";
    case TypeKind::Device:
      return "Device";
  }
  return "<invalid type>";
}

// "Tensor(a!)[]?": the alias annotation sits between the base type and its suffixes.
std::string type_text(const ArgType& type, const std::optional<AliasInfo>& alias) {
  std::string out(type_name(type.kind));
  if (alias) out += fmt::format("({}{})", alias->set, alias->is_write ? "!" : "");
  if (type.optional_elements) out += '?';
  if (type.is_list) {
    out += type.fixed_length ? fmt::format("[{}]", *type.fixed_length) : std::string("[]");
  }
  if (type.is_optional) out += '?';
  return out;
}

std::string float_text(double d) {
  // Non-finite values have no literal in the schema language; parse_schema never makes them.
  BP_CHECK(std::isfinite(d), ErrorCode::InvalidArgument,
           "schema: the default {} has no literal in the schema language", d);
  std::string text = fmt::format("{}", d);  // shortest text that reads back exactly
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string string_text(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      if (c == '\\' || c == '\'') out += '\\';
      out += c;
    }
  }
  return out + "'";
}

std::string default_text(const IValue& value) {
  const IValue::Variant& v = value.variant();
  if (value.is_none()) return "None";
  if (const bool* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const double* d = std::get_if<double>(&v)) return float_text(*d);
  if (const std::string* s = std::get_if<std::string>(&v)) return string_text(*s);
  if (const Shape* l = std::get_if<Shape>(&v)) return fmt::format("[{}]", fmt::join(*l, ", "));
  if (const Scalar* s = std::get_if<Scalar>(&v)) {
    if (s->is_bool()) return s->to_bool() ? "True" : "False";
    if (s->is_floating()) return float_text(s->to_double());
    // An integral Scalar holds an int64 exactly; to_int() is exact for it.
    return std::to_string(s->to_int());
  }
  BP_FAIL(ErrorCode::InvalidArgument,
          "schema: a default of kind {} has no literal in the "
          "schema language",
          value.kind_name());
}

std::string argument_text(const Argument& arg) {
  std::string out = type_text(arg.type, arg.alias);
  if (!arg.name.empty()) out += ' ' + arg.name;
  if (arg.default_value) out += '=' + default_text(*arg.default_value);
  return out;
}

}  // namespace

std::string ArgType::str() const {
  return type_text(*this, std::nullopt);
}

std::string FunctionSchema::full_name() const {
  return overload.empty() ? name : name + '.' + overload;
}

std::string FunctionSchema::str() const {
  std::string out = full_name() + '(';
  bool star_written = false;
  for (size_t k = 0; k < arguments.size(); ++k) {
    if (k > 0) out += ", ";
    if (arguments[k].kwarg_only && !star_written) {
      out += "*, ";
      star_written = true;
    }
    out += argument_text(arguments[k]);
  }
  out += ") -> ";
  // A single unnamed return prints bare, as written in PyTorch's schemas.
  if (returns.size() == 1 && returns[0].name.empty()) return out + argument_text(returns[0]);
  out += '(';
  for (size_t k = 0; k < returns.size(); ++k) {
    if (k > 0) out += ", ";
    out += argument_text(returns[k]);
  }
  return out + ')';
}

int FunctionSchema::argument_index(std::string_view arg_name) const {
  for (size_t k = 0; k < arguments.size(); ++k) {
    if (arguments[k].name == arg_name) return static_cast<int>(k);
  }
  return -1;
}

bool FunctionSchema::is_mutable() const {
  for (const Argument& arg : arguments) {
    if (arg.alias && arg.alias->is_write) return true;
  }
  return false;
}

}  // namespace bp
