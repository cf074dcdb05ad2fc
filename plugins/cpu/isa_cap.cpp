#include "isa_cap.hpp"

#include "cpu.hpp"
#include "onednn.hpp"
#include "simd.hpp"

#include <hwy/targets.h>
#include <toml++/toml.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace bp::cpu {
namespace {

constexpr const char* kEnvVar = "BACKPLANE_CPU_ISA";
constexpr const char* kLevels = "native, avx512, avx2, sse4 or scalar";

// Written by init (under the runtime's registration lock) before any kernel is registered;
// read by kernels and the device API afterwards.
struct IsaState {
  IsaLevel cap = IsaLevel::kNative;
  std::string cap_from;  // "BACKPLANE_CPU_ISA", "options", "" (no cap)
  IsaLevel cpu_best = IsaLevel::kNative;
  IsaLevel in_force = IsaLevel::kNative;
};
IsaState g_isa;

bool parse_level(std::string_view text, IsaLevel& out) {
  for (IsaLevel l : {IsaLevel::kNative, IsaLevel::kAvx512, IsaLevel::kAvx2, IsaLevel::kSse4,
                     IsaLevel::kScalar}) {
    if (text == isa_level_name(l)) {
      out = l;
      return true;
    }
  }
  return false;
}

// The best level this CPU runs, from Highway's CPU detection with nothing disabled.
IsaLevel detect_cpu_best() {
  hwy::DisableTargets(0);
  const int64_t supported = hwy::SupportedTargets();
  if (supported & HWY_AVX3) return IsaLevel::kAvx512;
  if (supported & HWY_AVX2) return IsaLevel::kAvx2;
  if (supported & HWY_SSE4) return IsaLevel::kSse4;
  return IsaLevel::kScalar;
}

void log(const bp_host_api* host, int32_t level, const std::string& message) {
  if (host && host->log) host->log(host->host, level, message.c_str());
}

// The option `isa` of the plugin's options text ("isa = 'avx2'"); "" when absent.
void read_option(std::string_view options, std::string& isa) {
  if (options.empty()) return;
  try {
    const toml::table table = toml::parse(options, std::string_view("options of plugin 'cpu'"));
    for (const auto& [key, value] : table) {
      if (key.str() != "isa")
        throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                         "cpu: unknown option '" + std::string(key.str()) +
                             "' in the plugin's options (the cpu plugin knows: isa)");
      if (!value.is_string())
        throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                         "cpu: option 'isa' must be a string (" + std::string(kLevels) + ")");
      isa = *value.value<std::string>();
    }
  } catch (const toml::parse_error& e) {
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                     std::string("cpu: the plugin's options are not TOML: ") +
                         std::string(e.description()) + " (line " +
                         std::to_string(e.source().begin.line) + ")");
  }
}

}  // namespace

const char* isa_level_name(IsaLevel level) {
  switch (level) {
    case IsaLevel::kNative:
      return "native";
    case IsaLevel::kAvx512:
      return "avx512";
    case IsaLevel::kAvx2:
      return "avx2";
    case IsaLevel::kSse4:
      return "sse4";
    case IsaLevel::kScalar:
      return "scalar";
  }
  return "?";
}

IsaLevel isa_level() {
  return g_isa.in_force;
}

void apply_isa_cap(const bp_host_api* host, std::string_view options) {
  IsaState state;
  std::string text;
  read_option(options, text);
  if (!text.empty()) state.cap_from = "options";
  if (const char* env = std::getenv(kEnvVar); env && *env) {
    text = env;
    state.cap_from = kEnvVar;
  }
  if (!state.cap_from.empty() && !parse_level(text, state.cap))
    throw sdk::Error(
        BP_ERR_INVALID_ARGUMENT,
        "cpu: " + (state.cap_from == kEnvVar ? std::string(kEnvVar) : std::string("option 'isa'")) +
            " is '" + text + "', which is not an ISA level (use " + kLevels + ")");
  if (state.cap == IsaLevel::kNative) state.cap_from.clear();
  state.cpu_best = detect_cpu_best();
  // Levels are ordered best first: the level in force is the lower of the cap and the CPU.
  state.in_force = std::max(state.cap, state.cpu_best);
  if (state.cap != IsaLevel::kNative && state.cap < state.cpu_best)
    log(host, 2,
        std::string("cpu: ") + state.cap_from + " asks for ISA level " + isa_level_name(state.cap) +
            ", which this CPU does not have; running at its best, " +
            isa_level_name(state.cpu_best));
  hwy::DisableTargets(highway_targets_above(state.cap));
  g_isa = state;
}

dnnl_cpu_isa_t onednn_isa_cap(IsaLevel level) {
  switch (level) {
    case IsaLevel::kNative:
      return dnnl_cpu_isa_all;
    case IsaLevel::kAvx512:
      return dnnl_cpu_isa_avx512_core;
    case IsaLevel::kAvx2:
      return dnnl_cpu_isa_avx2;
    case IsaLevel::kSse4:
    case IsaLevel::kScalar:  // oneDNN has no JIT level below SSE4.1
      return dnnl_cpu_isa_sse41;
  }
  return dnnl_cpu_isa_all;
}

std::string onednn_isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_all:
      return "all";
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic:
      return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops:
      return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default: {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%x", static_cast<unsigned>(isa));
      return hex;
    }
  }
}

std::string isa_attributes() {
  std::string out = std::string("isa=") + isa_level_name(g_isa.in_force);
  out += std::string(" isa_cap=") + (g_isa.cap_from.empty() ? "none" : isa_level_name(g_isa.cap));
  if (!g_isa.cap_from.empty()) out += " isa_cap_from=" + g_isa.cap_from;
  out += std::string(" cpu_best=") + isa_level_name(g_isa.cpu_best);
  out += std::string(" highway=") + simd::target_name();
  const OneDnn& dnn = onednn();
  if (!dnn.get_effective_cpu_isa)
    out += " onednn=unavailable";
  else
    out += " onednn=" + onednn_isa_name(dnn.get_effective_cpu_isa());
  // A oneDNN that another part of the process used first keeps the ISA it chose then.
  if (!dnn.cap_problem.empty()) out += " onednn_cap=refused";
  return out;
}

}  // namespace bp::cpu
