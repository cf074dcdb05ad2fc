// Preloaded (LD_PRELOAD) into the benchmarks that run under valgrind with the CPU plugin:
// libhwy's start-up code measures its timer with RDTSCP, which valgrind 3.19 refuses
// (SIGILL) where the CPU does not advertise it, as on our virtual machines. Highway calls
// TimerResolution through its PLT, so this definition replaces it. Only Highway's own
// benchmark timers use the figure; no kernel does, so the counts are unchanged.
#include <cstdint>

namespace hwy::platform {

uint64_t TimerResolution() {
  return 1;
}

}  // namespace hwy::platform
