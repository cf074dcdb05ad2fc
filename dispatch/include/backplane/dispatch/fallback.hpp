// The fallback policy: what a call does when the device's backend has no kernel for the op
// (and the op is not a composite core can decompose). `Error` (the default) throws, naming
// the op, the device, the backends that have a kernel and the setting that enables
// fallback; `Cpu` copies the inputs to cpu:0, runs the op there, copies the results back,
// warns once per op and counts calls and bytes moved. A backend may also force listed ops
// to fall back (a kernel known to be slow or wrong). Factories (arange, empty) and views
// never fall back: they have no inputs to move (docs/fallback.md lists them).
// Thread-safe; settings are read on every call without locks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace bp {

enum class FallbackPolicy { Error, Cpu };

std::string_view to_string(FallbackPolicy policy);  // "error", "cpu"

void set_fallback_policy(FallbackPolicy policy);
FallbackPolicy fallback_policy();

// Ops of `backend` that always run on the CPU, whatever kernel the backend has. Throws
// bp::Error for an unknown op or one that cannot fall back. The backend need not be loaded
// yet (config is read before plugins load).
void force_fallback(std::string_view backend, std::string_view op_name);
bool is_fallback_forced(std::string_view backend, std::string_view op_name);
void clear_forced_fallbacks();

struct FallbackStats {
  uint64_t calls = 0;
  uint64_t bytes_to_cpu = 0;                     // inputs copied from the device to the CPU
  uint64_t bytes_from_cpu = 0;                   // results copied back
  std::map<std::string, uint64_t> calls_per_op;  // "mul.Tensor on test_dev:0" -> calls
};
FallbackStats fallback_stats();
void reset_fallback_stats();

}  // namespace bp
