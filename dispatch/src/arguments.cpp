// Checking boxed arguments against an op's schema: fills defaults, coerces numbers to the
// schema's type (an int where a float or Scalar is expected), and rejects everything else
// with a message naming the op, the argument and what was given.
#include "arguments.hpp"

#include "backplane/core/error.hpp"

namespace bp::detail {

namespace {

std::string_view kind_word(TypeKind k) {
  switch (k) {
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
  return "?";
}

[[noreturn]] void wrong_kind(const OpDef& op, const Argument& a, const IValue& v) {
  BP_FAIL(ErrorCode::InvalidArgument, "{}: argument '{}' must be {} but got {}", op.name, a.name,
          a.type.str(), v.kind_name());
}

// Tensor[], int[] and bool[] arguments (a single int fills an int[N]). A bool[] value is an
// int list of 0 and 1 (IValue has no bool list; docs/schema.md).
bool coerce_list(const OpDef& op, const Argument& a, IValue& v) {
  if (a.type.kind == TypeKind::Tensor) {
    if (!v.is_tensor_list()) wrong_kind(op, a, v);
    // Tensor?[] holds None entries as undefined tensors.
    for (size_t i = 0; i < v.tensor_list().size() && !a.type.optional_elements; ++i)
      BP_CHECK(v.tensor_list()[i].defined(), ErrorCode::InvalidArgument,
               "{}: argument '{}' has an undefined tensor at index {}", op.name, a.name, i);
    return true;
  }
  if (a.type.kind == TypeKind::Bool) {
    if (!v.is_int_list()) wrong_kind(op, a, v);
    for (const int64_t b : v.int_list())
      BP_CHECK(b == 0 || b == 1, ErrorCode::InvalidArgument,
               "{}: argument '{}' ({}) holds {}, but a bool list holds 0 (false) and 1 (true)",
               op.name, a.name, a.type.str(), b);
  }
  if (a.type.kind == TypeKind::Int || a.type.kind == TypeKind::Bool) {
    if (v.is_int() && a.type.kind == TypeKind::Int && a.type.fixed_length) {
      // int[2] stride=1 means [1, 1]
      v = IValue(Shape(static_cast<size_t>(*a.type.fixed_length), v.to_int()));
      return true;
    }
    if (!v.is_int_list()) wrong_kind(op, a, v);
    if (a.type.fixed_length)
      BP_CHECK(static_cast<int64_t>(v.int_list().size()) == *a.type.fixed_length,
               ErrorCode::InvalidArgument, "{}: argument '{}' must have {} elements, got {}",
               op.name, a.name, *a.type.fixed_length, v.int_list().size());
    return true;
  }
  return false;
}

void coerce(const OpDef& op, const Argument& a, IValue& v) {
  if (v.is_none() || (v.is_tensor() && !v.tensor().defined())) {
    if (a.type.is_optional) {
      v = IValue();
      return;
    }
    BP_FAIL(ErrorCode::InvalidArgument, "{}: argument '{}' ({}) must not be None", op.name, a.name,
            a.type.str());
  }
  if (a.type.is_list && coerce_list(op, a, v)) return;
  switch (a.type.kind) {
    case TypeKind::Tensor:
      if (!v.is_tensor()) wrong_kind(op, a, v);
      return;
    case TypeKind::Scalar:
      if (v.is_scalar()) return;
      if (v.is_int() || v.is_double() || v.is_bool()) {
        v = IValue(v.scalar());
        return;
      }
      wrong_kind(op, a, v);
    case TypeKind::Int:
      if (!v.is_int()) wrong_kind(op, a, v);
      return;
    case TypeKind::Float:
      if (v.is_int()) v = IValue(static_cast<double>(v.to_int()));
      if (!v.is_double()) wrong_kind(op, a, v);
      return;
    case TypeKind::Bool:
      if (!v.is_bool()) wrong_kind(op, a, v);
      return;
    case TypeKind::ScalarType:
      if (!v.is_dtype()) wrong_kind(op, a, v);
      return;
    case TypeKind::String:
      if (!v.is_string()) wrong_kind(op, a, v);
      return;
    case TypeKind::Device:
      if (!v.is_device()) wrong_kind(op, a, v);
      return;
  }
  (void)kind_word;
}

}  // namespace

void normalize_arguments(const OpDef& op, std::vector<IValue>& args) {
  const auto& schema_args = op.schema.arguments;
  BP_CHECK(args.size() <= schema_args.size(), ErrorCode::InvalidArgument,
           "{}: takes {} arguments but {} were given (schema: {})", op.name, schema_args.size(),
           args.size(), op.schema.str());
  for (size_t i = args.size(); i < schema_args.size(); ++i) {
    const Argument& a = schema_args[i];
    BP_CHECK(a.default_value.has_value(), ErrorCode::InvalidArgument,
             "{}: missing argument '{}' (schema: {})", op.name, a.name, op.schema.str());
    args.push_back(*a.default_value);
  }
  for (size_t i = 0; i < schema_args.size(); ++i) coerce(op, schema_args[i], args[i]);
}

}  // namespace bp::detail
