// Internal: which arguments of an op a call writes. The one its schema marks (copy_'s and
// fill_'s self: OpDef::mutated_arg), and those PyTorch writes although its 1.13 schema does
// not mark them: native_batch_norm's running_mean and running_var, updated in place in
// training (docs/normalization.md). The suite gives such arguments their own buffers, never
// expands them (a written view must not overlap itself), lets them change, and compares
// their values after the call with the reference's.
#pragma once

#include <backplane/core/catalog.hpp>

#include <cstddef>
#include <string_view>

namespace bp::conformance {

// Arguments written without a mark in the schema, by op name.
struct UnmarkedWrites {
  std::string_view op;
  size_t first, second;
};
inline constexpr UnmarkedWrites kUnmarkedWrites[] = {{"native_batch_norm", 3, 4}};

// Whether a call of `op` writes its argument `i` without the schema marking it.
inline bool writes_unmarked(const OpDef& op, size_t i) {
  for (const UnmarkedWrites& w : kUnmarkedWrites)
    if (w.op == op.name && (i == w.first || i == w.second)) return true;
  return false;
}

// Whether a call of `op` writes its argument `i`.
inline bool writes_argument(const OpDef& op, size_t i) {
  return static_cast<int>(i) == op.mutated_arg || writes_unmarked(op, i);
}

}  // namespace bp::conformance
