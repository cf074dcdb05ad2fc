// oneDNN's dnnl_sgemm, the BLAS of the f32 (and widened f16/bf16) matmul (docs/cpu.md),
// opened with dlopen on the first such matmul instead of linked: loading libdnnl and what it
// pulls in costs about 6 ms, most of the plugin's load time (issue 8's target is 5 ms), and
// most processes never multiply floats on the CPU.
#pragma once

#include <dnnl.h>

#include <string>

namespace bp::cpu {

using SgemmFunction = dnnl_status_t (*)(char, char, dnnl_dim_t, dnnl_dim_t, dnnl_dim_t, float,
                                        const float*, dnnl_dim_t, const float*, dnnl_dim_t, float,
                                        float*, dnnl_dim_t);

struct OneDnn {
  SgemmFunction sgemm = nullptr;
  std::string problem;  // why sgemm is null: "cannot open libdnnl.so.2: ..."
  dnnl_cpu_isa_t (*get_effective_cpu_isa)() = nullptr;  // for the device's attributes
  std::string cap_problem;  // why the ISA cap (isa_cap.hpp) could not be set; "" if it was
};

// Opens oneDNN (libdnnl.so.<the major built against>) once per process and caps its ISA at
// the plugin's level (isa_cap.hpp) before anything can JIT; thread-safe.
const OneDnn& onednn();

}  // namespace bp::cpu
