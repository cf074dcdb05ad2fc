// How the `backplane` subcommands print a bp_dtype_mask: every name for JSON, and a short
// form for tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bp::cli {

// The dtype names of a mask, in code order ("bool", "i8", ..., "f64").
std::vector<std::string> dtype_names(uint32_t mask);

// The short form: "all", "none", or the names with "int" for all five integer types and
// "float" for all four floating types ("bool,int,f32"), so a table column stays narrow.
std::string dtype_summary(uint32_t mask);

}  // namespace bp::cli
