// dtype masks as text for the `backplane` subcommands (dtype_text.hpp).
#include "dtype_text.hpp"

#include <backplane/plugin.h>
#include <backplane/core/dtype.hpp>
#include <backplane/core/dtype_mask.hpp>

#include <backplane/core/error.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace bp::cli {

std::string dtype_summary(uint32_t mask) {
  if (mask == BP_DTYPES_ALL) return "all";
  if (mask == 0) return "none";
  std::vector<std::string> parts;
  if (mask & BP_DTYPE_BIT(BP_DTYPE_BOOL)) parts.emplace_back("bool");
  if ((mask & BP_DTYPES_INTEGRAL) == BP_DTYPES_INTEGRAL) {
    parts.emplace_back("int");
    mask &= ~uint32_t{BP_DTYPES_INTEGRAL};
  }
  const bool all_floating = (mask & BP_DTYPES_FLOATING) == BP_DTYPES_FLOATING;
  if (all_floating) mask &= ~uint32_t{BP_DTYPES_FLOATING};
  for (const std::string& name : dtype_mask_names(mask & ~uint32_t{BP_DTYPE_BIT(BP_DTYPE_BOOL)}))
    parts.push_back(name);
  if (all_floating) parts.emplace_back("float");
  return fmt::format("{}", fmt::join(parts, ","));
}

std::vector<ScalarType> parse_dtype_list(std::string_view text, std::string_view what) {
  std::vector<ScalarType> out;
  for (size_t at = 0; at <= text.size();) {
    const size_t end = std::min(text.find(',', at), text.size());
    const std::string_view word = text.substr(at, end - at);
    at = end + 1;
    if (word.empty()) continue;
    const std::optional<ScalarType> t = parse_dtype(word);
    BP_CHECK(t.has_value(), ErrorCode::InvalidArgument,
             "{}: unknown dtype '{}' (expected names like f32, bf16, i64, bool)", what, word);
    out.push_back(*t);
  }
  return out;
}

}  // namespace bp::cli
