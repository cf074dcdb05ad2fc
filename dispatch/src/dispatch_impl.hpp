// Internal: the backend dispatch of one call (dispatcher.cpp), below the layers: what the
// bottom layer's call_below() and the entry points without layers reach.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/core/ivalue.hpp"

#include <span>
#include <vector>

namespace bp::detail {

struct CallRecord;

// Checks the arguments, picks the device and runs the backend's kernel, the op's composite
// or the CPU fallback. `record` (traced calls only, else nullptr) learns when the call
// leaves the kernel path: it is only tested off that path, so a call that runs its kernel
// pays nothing for it.
std::vector<Tensor> dispatch(OpId id, std::vector<IValue>& args, std::span<Tensor* const> user_outs,
                             bool in_place, CallRecord* record);

// The device a call with these arguments runs on (throws bp::Error for tensors on two
// devices).
Device call_device(const OpDef& op, const std::vector<IValue>& args);

}  // namespace bp::detail
