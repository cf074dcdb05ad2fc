// What runs when Backplane cannot: PyTorch's own CPU kernels, through PyTorch's boxed CPU
// fallback (inputs copied to the host, outputs copied back). Every fallback is counted per
// aten operator and the first one of each operator warns, naming it and why; in strict mode
// ('error', from BACKPLANE_TORCH_FALLBACK or set_fallback_mode) a fallback raises instead.
// Thread-safe.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace bp::torch_bridge {

enum class FallbackMode { Warn, Error };
std::string_view to_string(FallbackMode mode);
std::optional<FallbackMode> parse_fallback_mode(std::string_view text);
void set_fallback_mode(FallbackMode mode);
FallbackMode fallback_mode();

// Runs `op` on PyTorch's CPU kernels (or raises in strict mode). `reason` says why
// Backplane did not run it ("no Backplane op maps to it", "dtype complex64 ...").
void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack, std::string_view reason);

// "aten::native_layer_norm" -> calls since start (or the last reset).
std::map<std::string, uint64_t> fallback_counts();
void reset_fallback_counts();

}  // namespace bp::torch_bridge
