// dtypes as text for the `backplane` subcommands: a bp_dtype_mask in a short form for
// tables (bp::dtype_mask_names gives every name), and a comma list of names read back.
#pragma once

#include <backplane/core/dtype.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bp::cli {

// The short form: "all", "none", or the names with "int" for all five integer types and
// "float" for all four floating types ("bool,int,f32"), so a table column stays narrow.
std::string dtype_summary(uint32_t mask);

// "f32,bf16,i64" as dtypes (empty words skipped); throws bp::Error naming `what` (the
// option or field it came from) and the unknown name.
std::vector<ScalarType> parse_dtype_list(std::string_view text, std::string_view what);

}  // namespace bp::cli
