// The text of the shared OpenCL C programs (plugins/shared/opencl-c-kernels/), embedded at build
// time (CMakeLists.txt generates program_sources.cpp) for this plugin, which builds them at run
// time: the prelude, each program by name, and the options every build uses (plus
// -DBP_VARIANT_<DTYPE> and, with fp64, -DBP_HAS_FP64).
#pragma once

#include <cstddef>

namespace bp::clk {

struct ProgramSource {
  const char* name;  // "elementwise": the file name without .cl
  const char* text;
};

extern const char* const kPrelude;
extern const ProgramSource kPrograms[];
extern const size_t kProgramCount;
extern const char* const kBuildOptions;

}  // namespace bp::clk
