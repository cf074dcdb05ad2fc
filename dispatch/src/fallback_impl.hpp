// The dispatcher's side of the fallback policy (fallback.hpp): whether a backend forces an
// op to the CPU, and running a call there.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/dispatch/fallback.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bp::detail {

// True when the backend of slot `type` forces `op` to fall back (one relaxed load when
// nothing is forced anywhere).
bool forced_fallback(DeviceType type, const OpDef& op);

// The text error messages add to say how to enable fallback.
std::string fallback_hint();

// Runs the call on cpu:0 and writes the results into `user_outs` on `device` (or the
// mutated argument), counting calls and bytes and warning once per op and device. Throws
// for ops that cannot fall back and when the cpu backend is not loaded.
std::vector<Tensor> run_on_cpu(const OpDef& op, const std::vector<IValue>& args,
                               std::span<Tensor* const> user_outs, bool in_place, Device device);

}  // namespace bp::detail
