// Kernel modules through each vendor's API (gpu_runtime.hpp): CUDA's library management
// (context-independent fatbinary libraries, kernels launched with cudaLaunchKernel) and
// HIP's module API (code object bundles, hipModuleLaunchKernel).
#include "gpu_runtime.hpp"

namespace bp::gpu {

#if defined(BP_GPU_HIP)

cudaError_t load_module(Module* out, const char* path) {
  return hipModuleLoad(out, path);
}

cudaError_t unload_module(Module module) {
  return hipModuleUnload(module);
}

cudaError_t module_function(Function* out, Module module, const char* name) {
  return hipModuleGetFunction(out, module, name);
}

cudaError_t launch_function(Function function, const size_t grid[3], const size_t block[3],
                            void** args, cudaStream_t stream) {
  return hipModuleLaunchKernel(function, static_cast<unsigned>(grid[0]),
                               static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]),
                               static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]),
                               static_cast<unsigned>(block[2]), 0, stream, args, nullptr);
}

#else

cudaError_t load_module(Module* out, const char* path) {
  return cudaLibraryLoadFromFile(out, path, nullptr, nullptr, 0, nullptr, nullptr, 0);
}

cudaError_t unload_module(Module module) {
  return cudaLibraryUnload(module);
}

cudaError_t module_function(Function* out, Module module, const char* name) {
  return cudaLibraryGetKernel(out, module, name);
}

cudaError_t launch_function(Function function, const size_t grid[3], const size_t block[3],
                            void** args, cudaStream_t stream) {
  // cudaLaunchKernel takes a library's cudaKernel_t in place of a function symbol.
  const dim3 g(static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]),
               static_cast<unsigned>(grid[2]));
  const dim3 b(static_cast<unsigned>(block[0]), static_cast<unsigned>(block[1]),
               static_cast<unsigned>(block[2]));
  return cudaLaunchKernel(reinterpret_cast<const void*>(function), g, b, args, 0, stream);
}

#endif

}  // namespace bp::gpu
