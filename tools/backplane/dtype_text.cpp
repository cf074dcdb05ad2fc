// dtype masks as text for the `backplane` subcommands (dtype_text.hpp).
#include "dtype_text.hpp"

#include <backplane/plugin.h>
#include <backplane/core/dtype.hpp>

#include <fmt/format.h>

namespace bp::cli {

std::vector<std::string> dtype_names(uint32_t mask) {
  std::vector<std::string> names;
  for (int t = 0; t < kNumScalarTypes; ++t)
    if (mask & (1u << t)) names.emplace_back(dtype_name(static_cast<ScalarType>(t)));
  return names;
}

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
  for (const std::string& name : dtype_names(mask & ~uint32_t{BP_DTYPE_BIT(BP_DTYPE_BOOL)}))
    parts.push_back(name);
  if (all_floating) parts.emplace_back("float");
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace bp::cli
