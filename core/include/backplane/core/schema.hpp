// Operator schemas in PyTorch's schema language, e.g.
//   add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// and their parser. Supported types: Tensor, Tensor?, Tensor[], Tensor?[], Scalar, Scalar?, int,
// int?, int[], int[N], int[]?, float, float?, bool, ScalarType?, str, str?, Device?; defaults
// (numbers, True/False, None, [..], 'strings'); keyword-only `*`; alias annotations
// `Tensor(a!)` (mutated) and `Tensor(a)`; returns `Tensor`, `(Tensor, Tensor)`, `()`.
// Parse errors are bp::Error(Parse) with "line:column" and a caret under the position.
// The parser keeps no state between calls (thread-safe); a FunctionSchema is a plain value.
#pragma once

#include "backplane/core/ivalue.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

enum class TypeKind { Tensor, Scalar, Int, Float, Bool, ScalarType, String, Device };

struct ArgType {
  TypeKind kind = TypeKind::Tensor;
  bool is_list = false;                 // Tensor[], int[], bool[] (an int list of 0 and 1)
  bool optional_elements = false;       // Tensor?[]: a list whose entries may be None
  std::optional<int64_t> fixed_length;  // int[2], bool[3]
  bool is_optional = false;             // trailing '?'
  std::string str() const;              // "int[]?"
  friend bool operator==(const ArgType&, const ArgType&) = default;
};

struct AliasInfo {
  std::string set;        // "a"
  bool is_write = false;  // '!'
  friend bool operator==(const AliasInfo&, const AliasInfo&) = default;
};

struct Argument {
  std::string name;  // empty for unnamed returns
  ArgType type;
  std::optional<IValue> default_value;  // None default is stored as IValue() (is_none)
  bool kwarg_only = false;
  std::optional<AliasInfo> alias;
};

struct FunctionSchema {
  std::string name;      // "add"
  std::string overload;  // "Tensor", or empty
  std::vector<Argument> arguments;
  std::vector<Argument> returns;

  std::string full_name() const;  // "add.Tensor" or "add"
  std::string str() const;        // canonical text; parse(str()) round-trips
  // Index of the argument called `name`, or -1.
  int argument_index(std::string_view name) const;
  // True when some argument carries a write alias (Tensor(a!)).
  bool is_mutable() const;
};

// Throws bp::Error(ErrorCode::Parse): "schema 1:17: expected ')' but found ','" followed by
// the offending line and a caret. `source` names the text in messages ("schema" default).
FunctionSchema parse_schema(std::string_view text, std::string_view source = "schema");

}  // namespace bp
