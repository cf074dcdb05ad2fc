// The three functions of libhwy.so that the plugin's Highway code calls, defined by the
// plugin itself so that it does not link libhwy.so at all. Why: Debian's libhwy.so.1.0.3
// runs a static initialiser that calibrates nanobenchmark's timer
// (hwy::platform::TimerResolution, serialised RDTSC/CPUID, which trap on virtual machines):
// dlopen of libhwy alone took ~5 ms of the plugin's ~6 ms load time, against the 5 ms
// target (docs/cpu.md, "Highway without libhwy.so"). Everything else the plugin uses of
// Highway is in its headers: HWY_EXPORT / HWY_DYNAMIC_DISPATCH call only these three.
//
// They keep libhwy's semantics (hwy/targets.h): SupportedTargets is the detected targets
// minus the disabled ones (never 0) and sets the dispatch choice; DisableTargets makes the
// next dynamic dispatch choose again. The plugin is built with hidden visibility and without
// HWY_SHARED_DEFINE, so these definitions are the plugin's own: they neither replace nor are
// replaced by a libhwy that another part of the process loads, and the ISA cap
// (isa_cap.cpp) applies to this plugin's Highway code only.
#include "highway_detect.hpp"

#include <hwy/highway.h>  // HWY_MAJOR, HWY_MINOR, HWY_PATCH
#include <hwy/targets.h>

#include <atomic>

// The target bits, their requirements and ChosenTarget's layout are those of Highway 1.0.3;
// 1.0.4 added targets (AVX3_ZEN4, AVX3_SPR) and changed the detection. Another Highway needs
// highway_detect.cpp checked against its hwy/targets.cc (or libhwy.so linked again).
static_assert(HWY_MAJOR == 1 && HWY_MINOR == 0 && HWY_PATCH == 3,
              "highway_detect.cpp follows Highway 1.0.3's targets: check it against this "
              "Highway's hwy/targets.cc (docs/cpu.md, \"Highway without libhwy.so\")");

namespace hwy {
namespace {

// Set by DisableTargets; read by SupportedTargets, possibly on several threads at once.
std::atomic<int64_t> g_disabled{0};

// Initialised at compile time (to "not chosen yet"), so it is valid before any
// constructor of the plugin runs.
constinit ChosenTarget g_chosen;

// CPUID traps to the hypervisor on a virtual machine, so the CPU is asked once (thread-safe
// initialisation of a local static). libhwy asks again on every call, for CPUs whose cores
// differ in ISA; x86 cores of one machine do not.
int64_t detected_targets() {
  static const int64_t detected = bp::cpu::detect_highway_targets();
  return detected;
}

}  // namespace

int64_t SupportedTargets() {
  const int64_t targets = bp::cpu::highway_enabled_targets(detected_targets(), g_disabled.load());
  // libhwy updates the choice here too (with the targets before DisableTargets' mask, then
  // its caller updates it again with these); with the final targets at once, no other
  // thread dispatching meanwhile can see a target that is disabled.
  g_chosen.Update(targets);
  return targets;
}

void DisableTargets(int64_t disabled_targets) {
  g_disabled.store(disabled_targets);
  // As libhwy: back to "not chosen", so the next HWY_DYNAMIC_DISPATCH calls
  // SupportedTargets and chooses among the targets left.
  g_chosen.DeInit();
}

ChosenTarget& GetChosenTarget() {
  return g_chosen;
}

}  // namespace hwy
