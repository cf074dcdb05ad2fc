#include "onednn.hpp"

#include "isa_cap.hpp"

#include <dlfcn.h>
#include <dnnl_version.h>

namespace bp::cpu {
namespace {

#define BP_CPU_STR2(x) #x
#define BP_CPU_STR(x) BP_CPU_STR2(x)

// Fails to compile if the header's dnnl_sgemm ever differs from SgemmFunction.
[[maybe_unused]] const SgemmFunction kDeclared = &dnnl_sgemm;

OneDnn open_onednn() {
  OneDnn d;
  const char* soname = "libdnnl.so." BP_CPU_STR(DNNL_VERSION_MAJOR);
  // Kept open for the process: oneDNN's threads and caches outlive any one call.
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    d.problem =
        std::string("cannot open ") + soname + " (apt-get install libdnnl-dev): " + dlerror();
    return d;
  }
  d.sgemm = reinterpret_cast<SgemmFunction>(dlsym(lib, "dnnl_sgemm"));
  if (!d.sgemm) d.problem = std::string(soname) + " has no dnnl_sgemm";
  // The cap must be set before oneDNN's first kernel: it takes one only until then.
  using SetMaxIsa = dnnl_status_t (*)(dnnl_cpu_isa_t);
  [[maybe_unused]] const SetMaxIsa kSetDeclared = &dnnl_set_max_cpu_isa;
  [[maybe_unused]] decltype(d.get_effective_cpu_isa) kGetDeclared = &dnnl_get_effective_cpu_isa;
  const auto set_max = reinterpret_cast<SetMaxIsa>(dlsym(lib, "dnnl_set_max_cpu_isa"));
  d.get_effective_cpu_isa =
      reinterpret_cast<decltype(d.get_effective_cpu_isa)>(dlsym(lib, "dnnl_get_effective_cpu_isa"));
  if (isa_level() != IsaLevel::kNative) {
    const dnnl_cpu_isa_t cap = onednn_isa_cap(isa_level());
    if (!set_max)
      d.cap_problem = std::string(soname) + " has no dnnl_set_max_cpu_isa";
    else if (set_max(cap) != dnnl_success &&
             (!d.get_effective_cpu_isa || (d.get_effective_cpu_isa() & ~cap) != 0))
      d.cap_problem = "oneDNN refused the ISA cap " + onednn_isa_name(cap) +
                      " (it had already generated code in this process)";
  }
  return d;
}

}  // namespace

const OneDnn& onednn() {
  static const OneDnn d = open_onednn();
  return d;
}

}  // namespace bp::cpu
