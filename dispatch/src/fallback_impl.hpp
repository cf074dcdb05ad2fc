// The dispatcher's side of the fallback policy (fallback.hpp): whether a backend forces an
// op to the CPU, and running a call there.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/dispatch/fallback.hpp"

#include <atomic>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bp::detail {

// Whether any backend forces any op to fall back: read on every call that has a kernel, so
// the common case (nothing forced) costs one relaxed load.
inline std::atomic<bool> g_any_forced_fallback{false};
bool forced_fallback_lookup(DeviceType type, const OpDef& op);

// True when the backend of slot `type` forces `op` to fall back.
inline bool forced_fallback(DeviceType type, const OpDef& op) {
  return g_any_forced_fallback.load(std::memory_order_relaxed) && forced_fallback_lookup(type, op);
}

// The text error messages add to say how to enable fallback.
std::string fallback_hint();

// Runs the call on cpu:0 and writes the results into `user_outs` on `device` (or the
// mutated argument), counting calls and bytes and warning once per op and device. Throws
// for ops that cannot fall back and when the cpu backend is not loaded.
std::vector<Tensor> run_on_cpu(const OpDef& op, const std::vector<IValue>& args,
                               std::span<Tensor* const> user_outs, bool in_place, Device device);

// Copies `bytes` between two contiguous buffers on (possibly) different devices through the
// device API alone (no kernel): what bp::to moves tensors with (defined in tensor_api.cpp).
void transfer(const Tensor& dst, const Tensor& src, size_t bytes);

}  // namespace bp::detail
