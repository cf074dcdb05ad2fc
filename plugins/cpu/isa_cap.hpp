// Internal header of the CPU backend: the ISA cap. One setting, BACKPLANE_CPU_ISA or the
// plugin option `isa` ([backends.cpu.options] in the config), caps every library of the
// plugin that picks its code by the running CPU: Highway's dynamic dispatch (the SIMD
// loops) and oneDNN's JIT (the sgemm of matmul). The plugin does not use OpenBLAS. So a
// result seen on one machine at a level reproduces on any machine that has that level,
// and the tests run every level the machine has (docs/cpu.md, "ISA levels").
#pragma once

#include <backplane/plugin.h>
#include <dnnl_types.h>
#include <hwy/detect_targets.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace bp::cpu {

// Best first. kNative is no cap: each library takes the best code it has for this CPU.
enum class IsaLevel { kNative, kAvx512, kAvx2, kSse4, kScalar };

// "native", "avx512", "avx2", "sse4", "scalar".
const char* isa_level_name(IsaLevel level);

// The Highway targets better than `level`: hwy::DisableTargets of them caps the dispatch at
// `level`. Lower bits are better targets in Highway; HWY_EMU128 is its portable baseline
// (HWY_SCALAR when g++ < 12.3 builds the plugin). In the header for
// tests/cpu/test_cpu_highway_targets.cpp.
constexpr int64_t highway_targets_above(IsaLevel level) {
  switch (level) {
    case IsaLevel::kNative:
      return 0;
    case IsaLevel::kAvx512:
      return HWY_AVX3 - 1;  // AVX3_DL, AVX3_ZEN4, AVX3_SPR: later AVX-512 extensions
    case IsaLevel::kAvx2:
      return HWY_AVX2 - 1;
    case IsaLevel::kSse4:
      return HWY_SSE4 - 1;
    case IsaLevel::kScalar:
      return HWY_EMU128 - 1;
  }
  return 0;
}

// Reads the cap (BACKPLANE_CPU_ISA over the option `isa` of `options`, the plugin's options
// text, TOML) and caps Highway at it. Called first in init, before any Highway dispatch.
// Throws sdk::Error (BP_ERR_INVALID_ARGUMENT), with a message naming the setting, for an
// unknown level or an unknown option. A level above what the CPU has leaves the CPU's best level,
// with a warning through `host->log`.
void apply_isa_cap(const bp_host_api* host, std::string_view options);

// The level in force (the cap, or the CPU's best level when that is lower).
IsaLevel isa_level();

// oneDNN's max-ISA setting for `level` (dnnl_cpu_isa_all for kNative; kScalar gets
// sse41, oneDNN's lowest JIT level).
dnnl_cpu_isa_t onednn_isa_cap(IsaLevel level);
// oneDNN's name of an ISA ("avx2", "avx512_core_bf16"), as in ONEDNN_MAX_CPU_ISA.
std::string onednn_isa_name(dnnl_cpu_isa_t isa);

// The device's attributes (bp_device_api::device_attributes): the level in force, the cap
// and where it came from, the CPU's best level, Highway's target and oneDNN's ISA (this
// opens oneDNN if no matmul has yet), e.g.
//   "isa=avx2 isa_cap=avx2 isa_cap_from=BACKPLANE_CPU_ISA cpu_best=avx512 highway=AVX2
//    onednn=avx2"
std::string isa_attributes();

}  // namespace bp::cpu
