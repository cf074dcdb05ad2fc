// The device side that the shared OpenCL C kernels (plugins/shared/opencl-c-kernels/) need,
// as an interface: the OpenCL plugin implements it with programs built from source at run
// time, the Level Zero plugin with modules built from SPIR-V at build time, the CUDA and ROCm
// plugins with modules nvcc/hipcc built (plugins/shared/cuda-hip-backend/). The host-side op
// code (plugins/shared/compute-ops/) is written once against it, so every such plugin runs
// the same kernels with the same arguments. docs/opencl.md describes the kernel ABI.
#pragma once

#include <backplane/plugin.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace bp::clk {

// One kernel argument, in the order of the kernel's parameters.
struct KernelArg {
  enum Kind {
    Memory,  // a device address returned by alloc (the base of an allocation): `__global T*`
    Value,   // `size` bytes at `data`, passed by value (scalars and the geometry structs)
  };
  Kind kind;
  const void* data;  // Memory: the device address itself; Value: the bytes
  size_t size;       // Value only
};

inline KernelArg memory_arg(const void* device_address) {
  return {KernelArg::Memory, device_address, 0};
}
template <typename T>
KernelArg value_arg(const T& value) {
  return {KernelArg::Value, &value, sizeof(T)};
}

// A compiled kernel of one program variant; owned by the ComputeDevice.
using KernelHandle = void*;

// The work of one launch: `dims` (1 to 3) sizes of work-items, grouped by `local` (all 0:
// the driver chooses; otherwise each global size is a multiple of its local size).
struct LaunchRange {
  uint32_t dims = 1;
  size_t global[3] = {1, 1, 1};
  size_t local[3] = {0, 0, 0};
};
inline LaunchRange range_1d(size_t global, size_t local = 0) {
  LaunchRange r;
  r.global[0] = global;
  r.local[0] = local;
  return r;
}

// One matrix of a GEMM, in the storage order of GemmArgs::row_major: `data` is a device
// address returned by alloc (the base of an allocation), `offset` the first element's index
// from it, `ld` the leading dimension (elements from one row to the next in row-major order,
// one column to the next in column-major order), `batch_stride` the elements from one
// batch's matrix to the next (0: every batch uses the same matrix), and `transposed` that
// the stored matrix is the transpose of the operand (a and b only).
struct GemmMatrix {
  const void* data = nullptr;
  int64_t offset = 0;
  int64_t ld = 0;
  int64_t batch_stride = 0;
  bool transposed = false;
};

// c[i] = alpha * op(a[i]) x op(b[i]) + beta * c[i] for every batch i < batch, in BLAS terms:
// c is m x n, op(a) m x k, op(b) k x n, all three stored in one order (row_major or
// column-major). m, n, k and batch are at least 1.
struct GemmArgs {
  bp_dtype dtype = BP_DTYPE_F32;
  bool row_major = true;
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  double alpha = 1, beta = 0;
  GemmMatrix a, b, c;
};

// One device that runs the kernels. Every function may be called from any thread; an
// implementation serialises argument setting and enqueueing per device. Errors throw
// sdk::Error naming what failed (program, variant, kernel, driver status).
class ComputeDevice {
 public:
  virtual ~ComputeDevice() = default;

  // Kernel `name` of program `program` ("elementwise", the file
  // plugins/shared/opencl-c-kernels/<program>.cl) built for `variant` (a dtype name of
  // sdk::dtype_name: "f32", "bool", ...). Programs are built (or loaded) once per device and
  // variant, on first use, and cached.
  virtual KernelHandle kernel(const char* program, const char* variant, const char* name) = 0;

  // Runs `kernel` over `range` with `args`, in order with every other launch and copy of
  // the device. Returns when the launch is queued.
  virtual void launch(KernelHandle kernel, std::span<const KernelArg> args,
                      const LaunchRange& range) = 0;

  // Device memory for temporaries, as the device API's alloc/free (device addresses).
  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* device_address) noexcept = 0;
  // Blocking copies between the host and device addresses (after all queued work).
  virtual void read(void* host, const void* device_address, size_t bytes) = 0;
  virtual void write(void* device_address, const void* host, size_t bytes) = 0;

  // Whether the device computes in double (cl_khr_fp64): the f64 variants exist, and other
  // variants may use double internally (arange, conversions from f64).
  virtual bool has_fp64() const = 0;
  // The largest work-group the device runs (reductions size their groups by it).
  virtual size_t max_work_group_size() const = 0;

  // (optional) A vendor GEMM (the OpenCL plugin: CLBlast), queued in order with launches.
  // Returns false, having queued nothing, when the device has none or does not take these
  // arguments (dtype, layout): the caller then runs the tiled kernel of opencl-c-kernels/matmul.cl.
  virtual bool gemm(const GemmArgs& /*args*/) { return false; }
};

}  // namespace bp::clk
