#include "onednn.hpp"

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
  return d;
}

}  // namespace

const OneDnn& onednn() {
  static const OneDnn d = open_onednn();
  return d;
}

}  // namespace bp::cpu
