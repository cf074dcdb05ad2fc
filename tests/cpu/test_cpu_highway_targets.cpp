// The CPU plugin's own Highway target detection (plugins/cpu/highway_detect.cpp, which
// replaces libhwy.so's in the plugin: highway_targets.cpp says why) against libhwy.so's,
// linked side by side in this binary: the same target mask on this machine, with nothing
// disabled and at each ISA level's cap; and, for CPUs this machine is not, each feature a
// target requires taken away in turn.
#include "../../plugins/cpu/highway_detect.hpp"
#include "../../plugins/cpu/isa_cap.hpp"

#include <doctest/doctest.h>
#include <hwy/targets.h>

#include <cstdio>
#include <string>

namespace bp::test {
namespace {

using cpu::IsaLevel;
using cpu::X86Features;

std::string hex(int64_t mask) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(mask));
  return text;
}

constexpr int64_t kAvx3Up = HWY_AVX3 | HWY_AVX3_DL;
constexpr int64_t kAvx2Up = HWY_AVX2 | kAvx3Up;
constexpr int64_t kSse4Up = HWY_SSE4 | kAvx2Up;
constexpr int64_t kSsse3Up = HWY_SSSE3 | kSse4Up;
constexpr int64_t kEveryTarget = kSsse3Up | HWY_EMU128 | HWY_SCALAR;

// One feature bit Highway requires, and the targets that are lost without it (Intel SDM
// vol. 2A CPUID, AMD APM vol. 3; Highway 1.0.3's hwy/targets.cc for who needs what).
struct Required {
  const char* name;
  uint32_t X86Features::*word;
  int bit;
  int64_t lost;
};
constexpr Required kRequired[] = {
    {"SSE", &X86Features::leaf1_edx, 25, kSsse3Up},
    {"SSE2", &X86Features::leaf1_edx, 26, kSsse3Up},
    {"SSE3", &X86Features::leaf1_ecx, 0, kSsse3Up},
    {"SSSE3", &X86Features::leaf1_ecx, 9, kSsse3Up},
    {"PCLMULQDQ", &X86Features::leaf1_ecx, 1, kSse4Up},
    {"SSE4.1", &X86Features::leaf1_ecx, 19, kSse4Up},
    {"SSE4.2", &X86Features::leaf1_ecx, 20, kSse4Up},
    {"AES", &X86Features::leaf1_ecx, 25, kSse4Up},
    {"FMA", &X86Features::leaf1_ecx, 12, kAvx2Up},
    {"OSXSAVE", &X86Features::leaf1_ecx, 27, kAvx2Up},
    {"AVX", &X86Features::leaf1_ecx, 28, kAvx2Up},
    {"F16C", &X86Features::leaf1_ecx, 29, kAvx2Up},
    {"BMI1", &X86Features::leaf7_ebx, 3, kAvx2Up},
    {"AVX2", &X86Features::leaf7_ebx, 5, kAvx2Up},
    {"BMI2", &X86Features::leaf7_ebx, 8, kAvx2Up},
    {"LZCNT", &X86Features::ext1_ecx, 5, kAvx2Up},
    {"AVX512F", &X86Features::leaf7_ebx, 16, kAvx3Up},
    {"AVX512DQ", &X86Features::leaf7_ebx, 17, kAvx3Up},
    {"AVX512BW", &X86Features::leaf7_ebx, 30, kAvx3Up},
    {"AVX512VL", &X86Features::leaf7_ebx, 31, kAvx3Up},
    {"AVX512_VBMI", &X86Features::leaf7_ecx, 1, HWY_AVX3_DL},
    {"AVX512_VBMI2", &X86Features::leaf7_ecx, 6, HWY_AVX3_DL},
    {"VAES", &X86Features::leaf7_ecx, 9, HWY_AVX3_DL},
    {"VPCLMULQDQ", &X86Features::leaf7_ecx, 10, HWY_AVX3_DL},
    {"AVX512_VNNI", &X86Features::leaf7_ecx, 11, HWY_AVX3_DL},
    {"AVX512_BITALG", &X86Features::leaf7_ecx, 12, HWY_AVX3_DL},
    {"AVX512_VPOPCNTDQ", &X86Features::leaf7_ecx, 14, HWY_AVX3_DL},
};

// XCR0 state components: XMM (1), YMM upper halves (2), opmask and ZMM (5, 6, 7).
constexpr uint64_t kXcr0Everything = 0x2 | 0x4 | 0x20 | 0x40 | 0x80;

X86Features every_feature() {
  X86Features f;
  for (const Required& r : kRequired) f.*r.word |= uint32_t{1} << r.bit;
  f.xcr0 = kXcr0Everything;
  return f;
}

}  // namespace

TEST_CASE("the plugin's Highway targets are libhwy's on this machine") {
  hwy::DisableTargets(0);
  const int64_t ours = cpu::detect_highway_targets();
  const int64_t libhwy = hwy::SupportedTargets();
  INFO("ours ", hex(ours), ", libhwy ", hex(libhwy));
  CHECK(ours == libhwy);
}

TEST_CASE("each ISA level's cap leaves the targets libhwy leaves") {
  const int64_t detected = cpu::detect_highway_targets();
  const struct {
    IsaLevel level;
    const char* name;
  } kLevels[] = {{IsaLevel::kNative, "native"},
                 {IsaLevel::kAvx512, "avx512"},
                 {IsaLevel::kAvx2, "avx2"},
                 {IsaLevel::kSse4, "sse4"},
                 {IsaLevel::kScalar, "scalar"}};
  for (const auto& entry : kLevels) {
    const IsaLevel level = entry.level;
    const int64_t disabled = cpu::highway_targets_above(level);
    hwy::DisableTargets(disabled);
    const int64_t ours = cpu::highway_enabled_targets(detected, disabled);
    const int64_t libhwy = hwy::SupportedTargets();
    INFO(std::string(entry.name), ": ours ", hex(ours), ", libhwy ", hex(libhwy));
    CHECK(ours == libhwy);
    // The best target left (the lowest bit) is the level's, where the CPU has it.
    const int64_t best = ours & -ours;
    if (level == IsaLevel::kAvx512 && (detected & HWY_AVX3)) CHECK(best == HWY_AVX3);
    if (level == IsaLevel::kAvx2 && (detected & HWY_AVX2)) CHECK(best == HWY_AVX2);
    if (level == IsaLevel::kSse4 && (detected & HWY_SSE4)) CHECK(best == HWY_SSE4);
    if (level == IsaLevel::kScalar) CHECK(ours == (HWY_EMU128 | HWY_SCALAR));
  }
  hwy::DisableTargets(0);
  // Disabling everything leaves the target the code was compiled for (never none).
  CHECK(cpu::highway_enabled_targets(detected, ~int64_t{0}) == HWY_STATIC_TARGET);
}

TEST_CASE("a CPU with every feature runs every x86 target") {
  CHECK(hex(cpu::highway_targets_of(every_feature())) == hex(kEveryTarget));
  // Features no target requires change nothing.
  X86Features more = every_feature();
  more.leaf1_ecx = more.leaf1_edx = more.leaf7_ebx = more.leaf7_ecx = more.ext1_ecx = ~0u;
  CHECK(hex(cpu::highway_targets_of(more)) == hex(kEveryTarget));
  // A CPU without CPUID leaves beyond the portable targets.
  CHECK(hex(cpu::highway_targets_of(X86Features{})) == hex(HWY_EMU128 | HWY_SCALAR));
}

TEST_CASE("without one required feature, the targets that need it are lost") {
  for (const Required& r : kRequired) {
    X86Features f = every_feature();
    f.*r.word &= ~(uint32_t{1} << r.bit);
    INFO("without ", std::string(r.name));
    CHECK(hex(cpu::highway_targets_of(f)) == hex(kEveryTarget & ~r.lost));
  }
}

TEST_CASE("without the OS saving a register file, the targets that use it are lost") {
  const struct {
    const char* name;
    uint64_t xcr0_bit;
    int64_t lost;
  } kStates[] = {{"XMM", 0x2, kSsse3Up},
                 {"YMM", 0x4, kAvx2Up},
                 {"opmask", 0x20, kAvx3Up},
                 {"ZMM_Hi256", 0x40, kAvx3Up},
                 {"Hi16_ZMM", 0x80, kAvx3Up}};
  for (const auto& state : kStates) {
    X86Features f = every_feature();
    f.xcr0 &= ~state.xcr0_bit;
    INFO("XCR0 without ", std::string(state.name));
    CHECK(hex(cpu::highway_targets_of(f)) == hex(kEveryTarget & ~state.lost));
  }
}

}  // namespace bp::test
