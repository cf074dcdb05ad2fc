// Case id parsing, formatting and validation (format described in case_id.hpp).
#include "backplane/conformance/case_id.hpp"

#include <backplane/core/error.hpp>

#include <array>

namespace bp::conformance {
namespace {

// Throws unless `part` is a valid id part; `id` is the whole text, quoted in the message so
// the user sees which id of a long list was wrong.
void check_part(std::string_view id, std::string_view what, std::string_view part) {
  BP_CHECK(!part.empty(), ErrorCode::Parse, "case id '{}': the {} part is empty", id, what);
  const bool op_part = what == "op";
  for (size_t i = 0; i < part.size(); ++i) {
    BP_CHECK(is_case_id_char(part[i], op_part), ErrorCode::Parse,
             "case id '{}': the {} part '{}' has '{}' at position {}; it may use only {}", id, what,
             part, part[i], i, op_part ? "a-z A-Z 0-9 _ ." : "a-z 0-9 _ .");
  }
}

}  // namespace

CaseId CaseId::make(std::string_view op, std::string_view dtype, std::string_view sample) {
  CaseId id{std::string(op), std::string(dtype), std::string(sample)};
  const std::string text = id.str();
  check_part(text, "op", op);
  check_part(text, "dtype", dtype);
  check_part(text, "sample", sample);
  return id;
}

CaseId CaseId::parse(std::string_view text) {
  std::array<std::string_view, 3> parts;
  size_t start = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    const size_t slash = text.find('/', start);
    const bool last = k + 1 == parts.size();
    BP_CHECK(last || slash != std::string_view::npos, ErrorCode::Parse,
             "case id '{}': expected op/dtype/sample (three parts separated by '/')", text);
    BP_CHECK(!last || slash == std::string_view::npos, ErrorCode::Parse,
             "case id '{}': expected op/dtype/sample, found more than three parts", text);
    parts[k] = text.substr(start, last ? std::string_view::npos : slash - start);
    start = slash + 1;
  }
  check_part(text, "op", parts[0]);
  check_part(text, "dtype", parts[1]);
  check_part(text, "sample", parts[2]);
  return CaseId{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
}

std::string CaseId::str() const {
  return op + "/" + dtype + "/" + sample;
}

}  // namespace bp::conformance
