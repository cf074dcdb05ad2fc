// The vendor runtime under the GPU plugins' shared host code (plugins/shared/cuda-hip-backend/):
// the CUDA runtime for plugins/cuda, the HIP runtime for plugins/rocm. The shared code is written
// with the CUDA runtime's names; for HIP (BP_GPU_HIP) they are mapped onto HIP's, which
// mirror them call for call. Kernel modules, whose APIs differ, are wrapped in four
// functions below. docs/gpu.md.
#pragma once

#if defined(BP_GPU_HIP)
#ifndef __HIP_PLATFORM_AMD__
#define __HIP_PLATFORM_AMD__ 1
#endif
#include <hip/hip_runtime_api.h>

#define cudaDeviceProp hipDeviceProp_t
#define cudaError_t hipError_t
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaErrorNotReady hipErrorNotReady
#define cudaEventCreateWithFlags hipEventCreateWithFlags
#define cudaEventDestroy hipEventDestroy
#define cudaEventDisableTiming hipEventDisableTiming
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaEvent_t hipEvent_t
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaHostAlloc hipHostMalloc
#define cudaHostAllocDefault hipHostMallocDefault
#define cudaMalloc hipMalloc
#define cudaMemGetInfo hipMemGetInfo
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaMemcpyKind hipMemcpyKind
#define cudaSetDevice hipSetDevice
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaStreamSynchronize hipStreamSynchronize
#define cudaStream_t hipStream_t
#define cudaSuccess hipSuccess
#else
#include <cuda_runtime_api.h>
#endif

#include <cstddef>

namespace bp::gpu {

// A module of kernels loaded from a file (CUDA: a library of a fatbinary, HIP: a module of a
// code object bundle) and one kernel in it.
#if defined(BP_GPU_HIP)
using Module = hipModule_t;
using Function = hipFunction_t;
#else
using Module = cudaLibrary_t;
using Function = cudaKernel_t;
#endif

// Loads `path` for the current device (HIP modules belong to the device current at load;
// CUDA libraries load into every device's context as it is used).
cudaError_t load_module(Module* out, const char* path);
cudaError_t unload_module(Module module);
cudaError_t module_function(Function* out, Module module, const char* name);
// Queues `function` with `args` (pointers to each argument's value, in order).
cudaError_t launch_function(Function function, const size_t grid[3], const size_t block[3],
                            void** args, cudaStream_t stream);

}  // namespace bp::gpu
