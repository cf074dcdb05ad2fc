// The counted CPU fallback (cpu_fallback.hpp) and its registration as PrivateUse1's
// backend fallback: every aten operator without a PrivateUse1 kernel (and without a
// composite implementation PyTorch prefers) arrives here.
#include "cpu_fallback.hpp"

#include <ATen/native/CPUFallback.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <atomic>
#include <mutex>
#include <set>

namespace bp::torch_bridge {
namespace {

std::atomic<FallbackMode> g_mode{FallbackMode::Warn};
std::mutex g_counts_mutex;
std::map<std::string, uint64_t> g_counts;
std::set<std::string> g_warned;

std::string operator_text(const c10::OperatorHandle& op) {
  const c10::OperatorName& name = op.operator_name();
  return name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
}

void unmapped_operator(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  run_on_cpu(op, stack, "no Backplane op maps to it");
}

}  // namespace

std::string_view to_string(FallbackMode mode) {
  return mode == FallbackMode::Warn ? "warn" : "error";
}

std::optional<FallbackMode> parse_fallback_mode(std::string_view text) {
  if (text == "warn") return FallbackMode::Warn;
  if (text == "error") return FallbackMode::Error;
  return std::nullopt;
}

void set_fallback_mode(FallbackMode mode) {
  g_mode.store(mode);
}
FallbackMode fallback_mode() {
  return g_mode.load();
}

void note_fallback(const std::string& name, std::string_view reason) {
  TORCH_CHECK(fallback_mode() != FallbackMode::Error, "backplane.torch: ", name,
              " cannot run on the Backplane device (", reason,
              ") and the CPU fallback is off (fallback mode 'error', from "
              "BACKPLANE_TORCH_FALLBACK or backplane.torch.set_fallback)");
  bool first = false;
  {
    std::lock_guard lock(g_counts_mutex);
    ++g_counts[name];
    first = g_warned.insert(name).second;
  }
  if (first)
    TORCH_WARN("backplane.torch: ", name, " runs on PyTorch's CPU kernels (", reason,
               "); its inputs are copied to the host and back. backplane.torch."
               "fallback_counts() counts such calls; BACKPLANE_TORCH_FALLBACK=error makes "
               "them errors.");
}

void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack, std::string_view reason) {
  note_fallback(operator_text(op), reason);
  at::native::cpu_fallback(op, stack);
}

std::map<std::string, uint64_t> fallback_counts() {
  std::lock_guard lock(g_counts_mutex);
  return g_counts;
}

void reset_fallback_counts() {
  std::lock_guard lock(g_counts_mutex);
  g_counts.clear();
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&unmapped_operator>());
}

}  // namespace bp::torch_bridge
