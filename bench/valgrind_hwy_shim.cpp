// Preloaded (LD_PRELOAD) into bench_libtorch_instructions under valgrind (bench/report.py):
// libtorch loads libhwy, whose start-up code measures its timer with RDTSCP, which
// valgrind 3.19 refuses (SIGILL) where the CPU does not advertise it, as on our virtual
// machines. Highway calls TimerResolution through its PLT, so this definition replaces it.
// Only Highway's own benchmark timers use the figure, so the counts are unchanged. The CPU
// plugin does not load libhwy (docs/cpu.md, "Highway without libhwy.so"), so
// bench_add_one_element (the perf_guard test) runs under valgrind without it.
#include <cstdint>

namespace hwy::platform {

uint64_t TimerResolution() {
  return 1;
}

}  // namespace hwy::platform
