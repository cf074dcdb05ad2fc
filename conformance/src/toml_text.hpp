// TOML text parsed for the conformance suite's files (expectations files, capability
// manifests), with a syntax error reported as every error of those files is: "file:line:".
#pragma once

#include <backplane/core/error.hpp>

#include <toml++/toml.h>

#include <string_view>

namespace bp::conformance {

// Throws bp::Error(Parse) "<source>:<line>: TOML syntax error: <what>".
inline toml::table parse_toml_text(std::string_view text, std::string_view source) {
  try {
    return toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    BP_FAIL(ErrorCode::Parse, "{}:{}: TOML syntax error: {}", source, e.source().begin.line,
            e.description());
  }
}

}  // namespace bp::conformance
