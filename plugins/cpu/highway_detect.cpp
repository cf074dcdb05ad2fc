// x86 feature detection for Highway's targets (highway_detect.hpp): the CPUID bits are those
// of Intel's SDM (vol. 2A, CPUID) and AMD's APM (vol. 3, appendix E); each target requires
// what Highway 1.0.3's hwy/targets.cc requires of it, so the mask is the one libhwy.so.1.0.3
// computes (tests/cpu/test_cpu_highway_targets.cpp compares them on the machine it runs on).
#include "highway_detect.hpp"

#include <hwy/detect_targets.h>

#if !HWY_ARCH_X86
#error \
    "the CPU plugin detects Highway's targets on x86 only: port highway_targets_of or link libhwy"
#endif

#include <cpuid.h>

namespace bp::cpu {
namespace {

constexpr uint32_t bit(int index) {
  return uint32_t{1} << index;
}

// Each target's requirements, register by register. A target needs those of the targets
// below it too (AVX3 is AVX2 plus AVX-512 F/VL/DQ/BW, and so on).
struct Requirements {
  uint32_t leaf1_ecx = 0, leaf1_edx = 0, leaf7_ebx = 0, leaf7_ecx = 0, ext1_ecx = 0;
};

constexpr Requirements operator|(Requirements a, Requirements b) {
  return {a.leaf1_ecx | b.leaf1_ecx, a.leaf1_edx | b.leaf1_edx, a.leaf7_ebx | b.leaf7_ebx,
          a.leaf7_ecx | b.leaf7_ecx, a.ext1_ecx | b.ext1_ecx};
}

bool has_all(const X86Features& f, const Requirements& r) {
  return (f.leaf1_ecx & r.leaf1_ecx) == r.leaf1_ecx && (f.leaf1_edx & r.leaf1_edx) == r.leaf1_edx &&
         (f.leaf7_ebx & r.leaf7_ebx) == r.leaf7_ebx && (f.leaf7_ecx & r.leaf7_ecx) == r.leaf7_ecx &&
         (f.ext1_ecx & r.ext1_ecx) == r.ext1_ecx;
}

// SSE, SSE2 (EDX 25, 26); SSE3, SSSE3 (ECX 0, 9).
constexpr Requirements kSsse3{.leaf1_ecx = bit(0) | bit(9), .leaf1_edx = bit(25) | bit(26)};
// SSE4.1, SSE4.2, PCLMULQDQ, AES (ECX 19, 20, 1, 25).
constexpr Requirements kSse4 =
    kSsse3 | Requirements{.leaf1_ecx = bit(19) | bit(20) | bit(1) | bit(25)};
// AVX, FMA, F16C (leaf 1 ECX 28, 12, 29); AVX2, BMI1, BMI2 (leaf 7 EBX 5, 3, 8); LZCNT
// (80000001h ECX 5). Highway's AVX2 target emits BMI2 and FMA, and its F16C conversions.
constexpr Requirements kAvx2 = kSse4 | Requirements{.leaf1_ecx = bit(28) | bit(12) | bit(29),
                                                    .leaf7_ebx = bit(5) | bit(3) | bit(8),
                                                    .ext1_ecx = bit(5)};
// AVX-512 F, DQ, BW, VL (leaf 7 EBX 16, 17, 30, 31).
constexpr Requirements kAvx3 =
    kAvx2 | Requirements{.leaf7_ebx = bit(16) | bit(17) | bit(30) | bit(31)};
// Ice Lake's additions (leaf 7 ECX): VBMI 1, VBMI2 6, VAES 9, VPCLMULQDQ 10, VNNI 11,
// BITALG 12, VPOPCNTDQ 14.
constexpr Requirements kAvx3Dl =
    kAvx3 |
    Requirements{.leaf7_ecx = bit(1) | bit(6) | bit(9) | bit(10) | bit(11) | bit(12) | bit(14)};

constexpr uint32_t kOsxsave = bit(27);  // leaf 1 ECX: the OS enabled XSAVE and XGETBV
// XCR0: the state components the OS saves on a context switch.
constexpr uint64_t kXcr0Sse = 1u << 1;                               // XMM registers
constexpr uint64_t kXcr0Avx = 1u << 2;                               // upper halves of YMM
constexpr uint64_t kXcr0Avx512 = (1u << 5) | (1u << 6) | (1u << 7);  // k0-7, ZMM0-15 hi, ZMM16-31

uint64_t read_xcr0() {
  uint32_t low = 0, high = 0;
  // Not the _xgetbv intrinsic, which needs -mxsave: the plugin is built for the baseline
  // x86-64, and only executes XGETBV where CPUID says the OS enabled it.
  asm volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
  return (uint64_t{high} << 32) | low;
}

}  // namespace

X86Features read_x86_features() {
  X86Features f;
  uint32_t a = 0, b = 0, c = 0, d = 0;
  // unsigned in GCC's <cpuid.h>, int in clang's.
  const auto max_leaf = static_cast<uint32_t>(__get_cpuid_max(0, nullptr));
  if (max_leaf >= 1) {
    __cpuid_count(1, 0, a, b, c, d);
    f.leaf1_ecx = c;
    f.leaf1_edx = d;
  }
  if (max_leaf >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    f.leaf7_ebx = b;
    f.leaf7_ecx = c;
  }
  if (static_cast<uint32_t>(__get_cpuid_max(0x80000000u, nullptr)) >= 0x80000001u) {
    __cpuid_count(0x80000001u, 0, a, b, c, d);
    f.ext1_ecx = c;
  }
  // XGETBV faults unless the OS has set CR4.OSXSAVE, which CPUID.1 reports.
  if (f.leaf1_ecx & kOsxsave) f.xcr0 = read_xcr0();
  return f;
}

int64_t highway_targets_of(const X86Features& f) {
  int64_t targets = HWY_EMU128 | HWY_SCALAR;  // portable C++: every CPU runs them
  if (has_all(f, kSsse3)) targets |= HWY_SSSE3;
  if (has_all(f, kSse4)) targets |= HWY_SSE4;
  if (has_all(f, kAvx2)) targets |= HWY_AVX2;
  if (has_all(f, kAvx3)) targets |= HWY_AVX3;
  if (has_all(f, kAvx3Dl)) targets |= HWY_AVX3_DL;
  // A register the OS does not save is lost on a context switch, so its instructions
  // cannot be used. Without OSXSAVE the legacy SSE state (FXSAVE) is still saved but no
  // AVX state is: Highway 1.0.3 skips this whole check then and keeps AVX2/AVX3, which
  // would fault at the first AVX instruction; here they are dropped.
  const int64_t avx3 = HWY_AVX3 | HWY_AVX3_DL;
  const int64_t avx2 = HWY_AVX2 | avx3;
  if (!(f.leaf1_ecx & kOsxsave)) return targets & ~avx2;
  if (!(f.xcr0 & kXcr0Sse)) targets &= ~(HWY_SSSE3 | HWY_SSE4 | avx2);
  if (!(f.xcr0 & kXcr0Avx)) targets &= ~avx2;
  if ((f.xcr0 & kXcr0Avx512) != kXcr0Avx512) targets &= ~avx3;
  return targets;
}

int64_t detect_highway_targets() {
  return highway_targets_of(read_x86_features());
}

int64_t highway_enabled_targets(int64_t detected, int64_t disabled) {
  const int64_t enabled = detected & ~disabled;
  return enabled != 0 ? enabled : HWY_STATIC_TARGET;
}

}  // namespace bp::cpu
