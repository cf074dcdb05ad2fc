// Internal header of the CPU backend: which Highway targets this x86 CPU (and its OS) can
// run, computed from the CPUID feature bits and XCR0 the way Highway 1.0.3 defines its
// targets. highway_targets.cpp builds the plugin's own hwy::SupportedTargets on it (the
// plugin does not link libhwy.so; that file says why). Nothing here defines a hwy:: symbol,
// so a test can link this file next to the real libhwy and compare the two.
#pragma once

#include <cstdint>

namespace bp::cpu {

// The CPUID and XGETBV words the detection reads. Leaves the CPU does not have are 0.
struct X86Features {
  uint32_t leaf1_ecx = 0;  // CPUID.1: SSE3 ... AVX, F16C, OSXSAVE
  uint32_t leaf1_edx = 0;  // CPUID.1: SSE, SSE2
  uint32_t leaf7_ebx = 0;  // CPUID.(7,0): BMI1, AVX2, BMI2, AVX-512 F/DQ/BW/VL
  uint32_t leaf7_ecx =
      0;                  // CPUID.(7,0): AVX-512 VBMI/VBMI2/VNNI/BITALG/VPOPCNTDQ, VAES, VPCLMULQDQ
  uint32_t ext1_ecx = 0;  // CPUID.80000001h: LZCNT
  uint64_t xcr0 = 0;      // XGETBV(0), the register state the OS saves; 0 without OSXSAVE
};

// Reads them from the running CPU.
X86Features read_x86_features();

// Highway's target bits (HWY_SSSE3 ... HWY_AVX3_DL, plus HWY_EMU128 and HWY_SCALAR, which
// every CPU runs) for `f`: a target's bit is set when the CPU has every feature Highway
// requires of it and the OS saves the registers it uses.
int64_t highway_targets_of(const X86Features& f);

// highway_targets_of(read_x86_features()).
int64_t detect_highway_targets();

// What hwy::SupportedTargets returns after hwy::DisableTargets(disabled): the detected
// targets not disabled, or HWY_STATIC_TARGET when that leaves none (there must always be a
// target to call).
int64_t highway_enabled_targets(int64_t detected, int64_t disabled);

}  // namespace bp::cpu
