// The one kernel behind every mapped aten operator: it translates the boxed aten call
// (c10::IValues on PyTorch's stack) into a Backplane call by the mapping's data (which
// Backplane argument comes from which aten argument), runs it on the Backplane device of
// the tensors' privateuseone index, and puts the results back on the stack as PrivateUse1
// tensors sharing Backplane's memory. What it cannot translate (a dtype Backplane lacks, an
// aten argument away from its default, no kernel on that device) goes to the CPU fallback.
#pragma once

#include "op_mapping.hpp"

#include <vector>

namespace bp::torch_bridge {

// Registers one generic kernel per mapping for PrivateUse1 (once per process; later calls
// do nothing). Returns the mappings registered.
const std::vector<OpMapping>& register_mapped_operators();

}  // namespace bp::torch_bridge
