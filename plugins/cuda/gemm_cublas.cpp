// vendor_gemm (gpu_backend.hpp) on cuBLAS: f16, bf16, f32 and f64, one GEMM or a strided
// batch, queued on the device's stream with cublasGemmStridedBatchedEx. f16/bf16 accumulate
// in float (as torch's matmul), f32 in plain FP32 (no TF32: torch's default since 1.12).
//
// cuBLAS is opened with dlopen on the first matmul, not linked: it is over 100 MB, so loading
// it with the plugin would cost every process that never multiplies a matrix, and a machine
// with the driver but without the toolkit's libraries still gets every other op. Where it
// cannot be opened, matmul runs the tiled kernel of plugins/shared/opencl-c-kernels/matmul.cl, and
// the first such call says why on stderr once. BACKPLANE_CUDA_MATMUL=tiled picks the tiled kernel,
// =cublas insists on cuBLAS (an error where it is missing). docs/gpu.md.
#include "compute_device.hpp"
#include "gpu_backend.hpp"

#include <backplane/sdk/error.hpp>

#include <cublas_api.h>
#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace bp::gpu {
namespace {

#define BP_STR2(x) #x
#define BP_STR(x) BP_STR2(x)

// cublasGemmStridedBatchedEx of the C API (C++ also sees an inline overload of that name).
using GemmStridedBatched = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                              int, int, int, const void*, const void*, cudaDataType,
                                              int, long long, const void*, cudaDataType, int,
                                              long long, const void*, void*, cudaDataType, int,
                                              long long, int, cublasComputeType_t,
                                              cublasGemmAlgo_t);
// Fails to compile if the header's declaration ever differs from the type above.
[[maybe_unused]] const GemmStridedBatched kDeclared = &cublasGemmStridedBatchedEx;

// The functions of cuBLAS this file calls.
struct Cublas {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  GemmStridedBatched gemm = nullptr;
  decltype(&cublasGetStatusName) status_name = nullptr;
  std::string problem;  // why it is unusable; empty when loaded
};

// Opens cuBLAS of the major version built against: by soname (the loader's paths), then from
// the toolkit directory found at build time.
Cublas load_cublas() {
  Cublas c;
  const std::string soname = "libcublas.so." BP_STR(CUBLAS_VER_MAJOR);
  void* lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  const std::string fallback = std::string(BP_CUDA_LIBRARY_DIR) + "/" + soname;
  if (!lib) lib = dlopen(fallback.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    c.problem = "cannot open " + soname + " (nor " + fallback + "): " + dlerror();
    return c;
  }
  c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
  c.set_stream = reinterpret_cast<decltype(c.set_stream)>(dlsym(lib, "cublasSetStream_v2"));
  c.gemm = reinterpret_cast<decltype(c.gemm)>(dlsym(lib, "cublasGemmStridedBatchedEx"));
  c.status_name = reinterpret_cast<decltype(c.status_name)>(dlsym(lib, "cublasGetStatusName"));
  if (!c.create || !c.set_stream || !c.gemm || !c.status_name)
    c.problem = soname +
                " lacks cublasCreate_v2, cublasSetStream_v2, "
                "cublasGemmStridedBatchedEx or cublasGetStatusName";
  return c;
}

enum class Choice { Default, Tiled, Cublas };

Choice matmul_choice() {
  const char* choice = std::getenv("BACKPLANE_CUDA_MATMUL");
  if (!choice || !*choice) return Choice::Default;
  if (std::strcmp(choice, "cublas") == 0) return Choice::Cublas;
  if (std::strcmp(choice, "tiled") == 0) return Choice::Tiled;
  throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string("cuda: BACKPLANE_CUDA_MATMUL='") + choice +
                                                "' is neither 'cublas' nor 'tiled'");
}

std::mutex g_mu;
std::map<int, cublasHandle_t> g_handles;  // per device ordinal, under g_mu

const Cublas& cublas() {
  static const Cublas c = load_cublas();
  return c;
}

bool fits_int(int64_t v) {
  return v >= 0 && v <= INT_MAX;
}

// cuBLAS's element type, compute type and element size for a dtype it multiplies.
struct GemmTypes {
  cudaDataType type;
  cublasComputeType_t compute;
  size_t element;
};

std::optional<GemmTypes> gemm_types(bp_dtype dtype) {
  switch (dtype) {
    case BP_DTYPE_F16:
      return GemmTypes{CUDA_R_16F, CUBLAS_COMPUTE_32F, 2};
    case BP_DTYPE_BF16:
      return GemmTypes{CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2};
    case BP_DTYPE_F32:
      return GemmTypes{CUDA_R_32F, CUBLAS_COMPUTE_32F, 4};
    case BP_DTYPE_F64:
      return GemmTypes{CUDA_R_64F, CUBLAS_COMPUTE_64F, 8};
    default:
      return std::nullopt;
  }
}

// The device's cuBLAS handle, made on first use (one per device, kept until exit).
cublasHandle_t handle_for(const Cublas& c, int ordinal) {
  std::lock_guard lock(g_mu);
  auto it = g_handles.find(ordinal);
  if (it == g_handles.end()) {
    cublasHandle_t handle = nullptr;
    if (cublasStatus_t s = c.create(&handle); s != CUBLAS_STATUS_SUCCESS)
      throw sdk::Error(s == CUBLAS_STATUS_ALLOC_FAILED ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
                       std::string("cuda: cublasCreate failed: ") + c.status_name(s));
    it = g_handles.emplace(ordinal, handle).first;
  }
  return it->second;
}

}  // namespace

bool vendor_gemm(Device& device, const clk::GemmArgs& g) {
  const Choice choice = matmul_choice();
  if (choice == Choice::Tiled) return false;
  const std::optional<GemmTypes> types = gemm_types(g.dtype);
  if (!types) return false;
  const cudaDataType type = types->type;
  const cublasComputeType_t compute = types->compute;
  const size_t element = types->element;
  if (!fits_int(g.m) || !fits_int(g.n) || !fits_int(g.k) || !fits_int(g.batch) ||
      !fits_int(g.a.ld) || !fits_int(g.b.ld) || !fits_int(g.c.ld))
    return false;
  const Cublas& c = cublas();
  if (!c.problem.empty()) {
    if (choice == Choice::Cublas)
      throw sdk::Error(BP_ERR_UNSUPPORTED, "cuda: BACKPLANE_CUDA_MATMUL=cublas, but " + c.problem);
    static std::once_flag told;
    std::call_once(told, [&] {
      std::fprintf(stderr, "backplane cuda: matmul runs the tiled kernel: %s\n", c.problem.c_str());
    });
    return false;
  }
  cublasHandle_t handle = handle_for(c, device.ordinal);
  auto address = [&](const clk::GemmMatrix& mat) {
    return static_cast<const char*>(mat.data) + mat.offset * static_cast<int64_t>(element);
  };
  auto op = [](const clk::GemmMatrix& mat) { return mat.transposed ? CUBLAS_OP_T : CUBLAS_OP_N; };
  // cuBLAS is column-major: a row-major c = a x b is the column-major c^T = b^T x a^T, with
  // the row-major storage of each matrix read as its transpose.
  const clk::GemmMatrix& first = g.row_major ? g.b : g.a;
  const clk::GemmMatrix& second = g.row_major ? g.a : g.b;
  const int rows = static_cast<int>(g.row_major ? g.n : g.m);
  const int cols = static_cast<int>(g.row_major ? g.m : g.n);
  const float alpha32 = static_cast<float>(g.alpha), beta32 = static_cast<float>(g.beta);
  const double alpha64 = g.alpha, beta64 = g.beta;
  const void* alpha = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha64) : &alpha32;
  const void* beta = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&beta64) : &beta32;
  std::lock_guard lock(g_mu);  // a handle is not to be used by two threads at once
  check(cudaSetDevice(device.ordinal), "cudaSetDevice");
  if (cublasStatus_t s = c.set_stream(handle, device.stream); s != CUBLAS_STATUS_SUCCESS)
    throw sdk::Error(BP_ERR_DEVICE,
                     std::string("cuda: cublasSetStream failed: ") + c.status_name(s));
  const cublasStatus_t s =
      c.gemm(handle, op(first), op(second), rows, cols, static_cast<int>(g.k), alpha,
             address(first), type, static_cast<int>(first.ld), first.batch_stride, address(second),
             type, static_cast<int>(second.ld), second.batch_stride, beta,
             const_cast<char*>(address(g.c)), type, static_cast<int>(g.c.ld), g.c.batch_stride,
             static_cast<int>(g.batch), compute, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS)
    throw sdk::Error(s == CUBLAS_STATUS_ALLOC_FAILED ? BP_ERR_OUT_OF_MEMORY : BP_ERR_DEVICE,
                     "cuda: cublasGemmStridedBatchedEx (m=" + std::to_string(g.m) +
                         " n=" + std::to_string(g.n) + " k=" + std::to_string(g.k) +
                         " batch=" + std::to_string(g.batch) + ") failed: " + c.status_name(s) +
                         "; BACKPLANE_CUDA_MATMUL=tiled runs the tiled kernel instead");
  return true;
}

}  // namespace bp::gpu
