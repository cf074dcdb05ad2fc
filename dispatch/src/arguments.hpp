// Internal: validating boxed arguments against an op's schema (see arguments.cpp).
#pragma once

#include "backplane/core/catalog.hpp"

#include <vector>

namespace bp::detail {

// Fills defaults and coerces each argument to its schema type in place; throws bp::Error
// naming the op and the argument.
void normalize_arguments(const OpDef& op, std::vector<IValue>& args);

}  // namespace bp::detail
