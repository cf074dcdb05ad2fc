// The counted CPU fallback (cpu_fallback.hpp) and its registration as PrivateUse1's
// backend fallback: every aten operator without a PrivateUse1 kernel (and without a
// composite implementation PyTorch prefers) arrives here.
#include "cpu_fallback.hpp"

#include <ATen/native/CPUFallback.h>
#include <c10/util/Exception.h>
#include <torch/library.h>

#include <array>
#include <atomic>
#include <mutex>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

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

// aten operators that write arguments their PyTorch 1.13 schema does not mark as written, so
// at::native::cpu_fallback would update only its own CPU copies of them: native_batch_norm
// updates running_mean and running_var (arguments 3 and 4) in training mode, unmarked until
// PyTorch 2.0's _native_batch_norm_legit. The fallback hands the operator CPU copies it makes
// itself and copies them back to the device afterwards, so the update is not lost.
struct UnmarkedWrites {
  std::string_view op;
  std::array<size_t, 2> arguments;
};
constexpr UnmarkedWrites kUnmarkedWrites[] = {{"aten::native_batch_norm", {3, 4}}};

// The device tensors among `op`'s unmarked written arguments, each replaced on the stack by a
// CPU copy: (device tensor, CPU copy) pairs to copy back after the call.
std::vector<std::pair<at::Tensor, at::Tensor>> host_copies_of_unmarked_writes(
    const c10::OperatorHandle& op, const std::string& name, torch::jit::Stack* stack) {
  std::vector<std::pair<at::Tensor, at::Tensor>> copies;
  for (const UnmarkedWrites& w : kUnmarkedWrites) {
    if (w.op != name) continue;
    const size_t base = stack->size() - op.schema().arguments().size();
    for (const size_t i : w.arguments) {
      c10::IValue& value = (*stack)[base + i];
      if (!value.isTensor() || !value.toTensor().defined() || value.toTensor().is_cpu()) continue;
      at::Tensor device = value.toTensor();
      at::Tensor host = device.cpu();
      value = host;
      copies.emplace_back(std::move(device), std::move(host));
    }
  }
  return copies;
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

namespace {

// Counts one fallback of the aten operator `name`, warns on its first, or raises in strict
// mode.
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

}  // namespace

void run_on_cpu(const c10::OperatorHandle& op, torch::jit::Stack* stack, std::string_view reason) {
  const std::string name = operator_text(op);
  note_fallback(name, reason);
  const auto written = host_copies_of_unmarked_writes(op, name, stack);
  at::native::cpu_fallback(op, stack);
  for (const auto& [device, host] : written) device.copy_(host);
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
