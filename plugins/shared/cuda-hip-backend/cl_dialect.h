// The OpenCL C dialect of the shared kernels (plugins/shared/opencl-c-kernels/) on CUDA and HIP:
// with this header included first, each program compiles as CUDA C++ (nvcc) or HIP C++ (hipcc) into
// one module per dtype variant, so every GPU backend runs the same kernel source as the OpenCL and
// Level Zero plugins, whose results the conformance suite checks on PoCL in every CI run. It maps
// the address-space qualifiers, the work-item functions, barriers and the few OpenCL built-ins the
// programs use onto the vendor's intrinsics; docs/gpu.md says why the kernels are shared this way.
//
// Kernels keep their OpenCL names (extern "C"), so a plugin finds them in the module by the
// same name as the OpenCL plugin does. Helper functions of the programs are declared
// `inline`, which this header turns into device functions.
#pragma once

#if defined(__HIPCC__)
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#elif defined(__CUDACC__)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#else
#error "plugins/shared/cuda-hip-backend/cl_dialect.h is for nvcc or hipcc"
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>

// Every GPU these plugins build for computes in double.
#define BP_HAS_FP64 1

// ---- types ----------------------------------------------------------------------------
// OpenCL C's long is 64 bits, as on every LP64 host the CUDA and HIP compilers target.
static_assert(sizeof(long) == 8, "OpenCL C long is 64 bits");
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
// f16 storage: the programs touch it only through vload_half/vstore_half_rte.
typedef __half half;

// ---- qualifiers -------------------------------------------------------------------------
// Global memory is the default address space; group-local arrays are shared memory.
#define __kernel extern "C" __global__
#define __global
#undef __local  // HIP's device library headers define it as an address space
#define __local __shared__
#define __constant const

// ---- work-items ----------------------------------------------------------------------------
// A launch's work-groups are CUDA blocks and its work-items threads; the host's ranges are
// whole groups (plugins/shared/compute-ops/launch.cpp), so the global id needs no global
// offset.
#define BP_CL_COMPONENT(v, d) ((d) == 0 ? (v).x : (d) == 1 ? (v).y : (v).z)
__device__ inline size_t get_local_id(uint d) {
  return BP_CL_COMPONENT(threadIdx, d);
}
__device__ inline size_t get_group_id(uint d) {
  return BP_CL_COMPONENT(blockIdx, d);
}
__device__ inline size_t get_local_size(uint d) {
  return BP_CL_COMPONENT(blockDim, d);
}
__device__ inline size_t get_num_groups(uint d) {
  return BP_CL_COMPONENT(gridDim, d);
}
__device__ inline size_t get_global_id(uint d) {
  return get_group_id(d) * get_local_size(d) + get_local_id(d);
}
__device__ inline size_t get_global_size(uint d) {
  return get_num_groups(d) * get_local_size(d);
}

#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
// A work-group barrier; __syncthreads orders shared and global memory within the block.
#define barrier(flags) __syncthreads()

// ---- built-ins ---------------------------------------------------------------------------
// Bit reinterpretation.
__device__ inline uint as_uint(float x) {
  return __float_as_uint(x);
}
__device__ inline float as_float(uint x) {
  return __uint_as_float(x);
}
__device__ inline int as_int(float x) {
  return __float_as_int(x);
}
__device__ inline ulong as_ulong(double x) {
  return static_cast<ulong>(__double_as_longlong(x));
}
__device__ inline double as_double(ulong x) {
  return __longlong_as_double(static_cast<long long>(x));
}

// Conversions: convert_float rounds to nearest even (C++'s conversion, cvt.rn), the _rtz
// forms toward zero.
template <typename X>
__device__ inline float convert_float(X x) {
  return static_cast<float>(x);
}
template <typename X>
__device__ inline double convert_double(X x) {
  return static_cast<double>(x);
}
__device__ inline float convert_float_rtz(long x) {
  return __ll2float_rz(x);
}
__device__ inline float convert_float_rtz(ulong x) {
  return __ull2float_rz(x);
}
__device__ inline float convert_float_rtz(int x) {
  return __int2float_rz(x);
}
__device__ inline float convert_float_rtz(double x) {
  return __double2float_rz(x);
}

// f16 loads and stores (round to nearest even), computed in float (or double).
__device__ inline float vload_half(size_t i, const half* p) {
  return __half2float(p[i]);
}
__device__ inline void vstore_half_rte(float v, size_t i, half* p) {
  p[i] = __float2half_rn(v);
}
// The programs round doubles to float with round-to-odd first (prelude.h); a double here
// would round twice, so it does not compile.
__device__ void vstore_half_rte(double v, size_t i, half* p) = delete;

__device__ inline int atomic_cmpxchg(volatile int* p, int expected, int desired) {
  return atomicCAS(const_cast<int*>(p), expected, desired);
}
__device__ inline uint atomic_cmpxchg(volatile uint* p, uint expected, uint desired) {
  return atomicCAS(const_cast<uint*>(p), expected, desired);
}

// The programs' own helpers are `inline` functions; here they must be device functions.
// (Defined last: the vendor headers above use `inline` themselves.)
#define inline __device__ inline
