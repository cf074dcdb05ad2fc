// libFuzzer target: the operator schema parser, bp::parse_schema (core/src/schema.cpp,
// schema_lexer.cpp) and the canonical printer (FunctionSchema::str, schema_print.cpp).
//
// Input: the schema text as is. A bp::Error is the expected answer to bad text. A bug is
// anything else: a crash, a sanitizer report, a hang, another exception type, or a schema
// that parses but whose canonical text does not round-trip (parse(str()) must succeed and
// print the same text, with the same name and argument count).
#include <backplane/core/error.hpp>
#include <backplane/core/schema.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  bp::FunctionSchema schema;
  try {
    schema = bp::parse_schema(text, "fuzz");
  } catch (const bp::Error&) {
    return 0;  // bad text: the parser's job is to say so
  }
  const std::string canonical = schema.str();
  bp::FunctionSchema again;
  try {
    again = bp::parse_schema(canonical, "canonical");
  } catch (const bp::Error& e) {
    FUZZ_CHECK(false, "str() of a parsed schema does not parse: '" + canonical + "': " + e.what());
  }
  FUZZ_CHECK(again.str() == canonical,
             "str() does not round-trip: '" + canonical + "' -> '" + again.str() + "'");
  FUZZ_CHECK(again.full_name() == schema.full_name(), "full name changed: " + canonical);
  FUZZ_CHECK(again.arguments.size() == schema.arguments.size() &&
                 again.returns.size() == schema.returns.size(),
             "argument or return count changed: " + canonical);
  FUZZ_CHECK(again.is_mutable() == schema.is_mutable(), "mutability changed: " + canonical);
  for (size_t i = 0; i < schema.arguments.size(); ++i) {
    const bp::Argument& a = schema.arguments[i];
    const bp::Argument& b = again.arguments[i];
    FUZZ_CHECK(a.name == b.name && a.type == b.type && a.kwarg_only == b.kwarg_only &&
                   a.alias == b.alias && a.default_value.has_value() == b.default_value.has_value(),
               "argument " + std::to_string(i) + " changed: " + canonical);
    // argument_index finds an argument of that name at or before its position.
    const int found = schema.argument_index(a.name);
    FUZZ_CHECK(found >= 0 && found <= static_cast<int>(i),
               "argument_index('" + a.name + "') = " + std::to_string(found));
  }
  return 0;
}
