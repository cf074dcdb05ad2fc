// dtype masks (bit i = ScalarType code i, the plugin ABI's bp_dtype_mask) as names, for
// whatever prints or writes one: the CLI's tables and JSON, capability manifests.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bp {

// The short names (dtype_name: "bool", "i8", ..., "f64") of the dtypes in `mask`, in code
// order.
std::vector<std::string> dtype_mask_names(uint32_t mask);

}  // namespace bp
