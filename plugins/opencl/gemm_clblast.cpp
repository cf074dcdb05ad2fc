// Compute::gemm (compute_device.hpp's optional hook) on CLBlast, the tuned OpenCL BLAS
// (libclblast-dev): f32 and f64, one GEMM or a strided batch of them, queued on the
// device's in-order queue under the lock that serialises the shared kernels' launches.
// Built without CLBlast (CMake did not find it) the hook declines and matmul runs the tiled
// kernel of plugins/shared/opencl-c-kernels/matmul.cl. BACKPLANE_OPENCL_MATMUL=tiled declines too,
// and =clblast takes CLBlast; docs/opencl.md ("Matmul: CLBlast or the tiled kernel") has the
// measurements behind the default.
#include "compute.hpp"

#include <backplane/sdk/error.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#if BP_OPENCL_HAVE_CLBLAST
#include <clblast_c.h>
#endif

namespace bp::opencl {

#if BP_OPENCL_HAVE_CLBLAST
namespace {

// Which matmul BACKPLANE_OPENCL_MATMUL asks for; unset or empty: the measured default.
bool clblast_selected() {
  const char* choice = std::getenv("BACKPLANE_OPENCL_MATMUL");
  if (!choice || !*choice) return true;
  if (std::strcmp(choice, "clblast") == 0) return true;
  if (std::strcmp(choice, "tiled") == 0) return false;
  throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string("opencl: BACKPLANE_OPENCL_MATMUL='") +
                                                choice + "' is neither 'clblast' nor 'tiled'");
}

CLBlastTranspose transpose(const clk::GemmMatrix& m) {
  return m.transposed ? CLBlastTransposeYes : CLBlastTransposeNo;
}

// The call for one element type: Xgemm for one product, XgemmStridedBatched for several.
template <typename T>
CLBlastStatusCode run_gemm(const clk::GemmArgs& g, const cl_mem buffers[3], const size_t offsets[3],
                           cl_command_queue* queue) {
  const CLBlastLayout layout = g.row_major ? CLBlastLayoutRowMajor : CLBlastLayoutColMajor;
  const auto m = static_cast<size_t>(g.m), n = static_cast<size_t>(g.n),
             k = static_cast<size_t>(g.k);
  const auto lda = static_cast<size_t>(g.a.ld), ldb = static_cast<size_t>(g.b.ld),
             ldc = static_cast<size_t>(g.c.ld);
  const T alpha = static_cast<T>(g.alpha), beta = static_cast<T>(g.beta);
  if (g.batch == 1) {
    if constexpr (sizeof(T) == 4)
      return CLBlastSgemm(layout, transpose(g.a), transpose(g.b), m, n, k, alpha, buffers[1],
                          offsets[1], lda, buffers[2], offsets[2], ldb, beta, buffers[0],
                          offsets[0], ldc, queue, nullptr);
    else
      return CLBlastDgemm(layout, transpose(g.a), transpose(g.b), m, n, k, alpha, buffers[1],
                          offsets[1], lda, buffers[2], offsets[2], ldb, beta, buffers[0],
                          offsets[0], ldc, queue, nullptr);
  }
  const auto sa = static_cast<size_t>(g.a.batch_stride), sb = static_cast<size_t>(g.b.batch_stride),
             sc = static_cast<size_t>(g.c.batch_stride), count = static_cast<size_t>(g.batch);
  if constexpr (sizeof(T) == 4)
    return CLBlastSgemmStridedBatched(layout, transpose(g.a), transpose(g.b), m, n, k, alpha,
                                      buffers[1], offsets[1], lda, sa, buffers[2], offsets[2], ldb,
                                      sb, beta, buffers[0], offsets[0], ldc, sc, count, queue,
                                      nullptr);
  else
    return CLBlastDgemmStridedBatched(layout, transpose(g.a), transpose(g.b), m, n, k, alpha,
                                      buffers[1], offsets[1], lda, sa, buffers[2], offsets[2], ldb,
                                      sb, beta, buffers[0], offsets[0], ldc, sc, count, queue,
                                      nullptr);
}

}  // namespace

bool Compute::gemm(const clk::GemmArgs& args) {
  if (args.dtype != BP_DTYPE_F32 && (args.dtype != BP_DTYPE_F64 || !fp64_)) return false;
  if (!clblast_selected()) return false;
  const size_t element = args.dtype == BP_DTYPE_F32 ? 4 : 8;
  const clk::GemmMatrix* mats[3] = {&args.c, &args.a, &args.b};
  cl_mem buffers[3];
  size_t offsets[3];
  for (int i = 0; i < 3; ++i) {
    size_t byte_offset = 0;
    buffers[i] = buffer_of(mats[i]->data, &byte_offset);
    if (byte_offset % element != 0) return false;
    offsets[i] = byte_offset / element + static_cast<size_t>(mats[i]->offset);
  }
  std::lock_guard lock(mu_);
  gemm_used_ = true;
  const CLBlastStatusCode status = args.dtype == BP_DTYPE_F32
                                       ? run_gemm<float>(args, buffers, offsets, &device_.queue)
                                       : run_gemm<double>(args, buffers, offsets, &device_.queue);
  if (status != CLBlastSuccess)
    throw sdk::Error(
        status == CLBlastOpenCLOutOfResources || status == CLBlastTempBufferAllocFailure
            ? BP_ERR_OUT_OF_MEMORY
            : BP_ERR_DEVICE,
        std::string("opencl: CLBlast ") + (element == 4 ? "S" : "D") + "gemm" +
            (args.batch > 1 ? "StridedBatched" : "") + " (m=" + std::to_string(args.m) +
            " n=" + std::to_string(args.n) + " k=" + std::to_string(args.k) + " batch=" +
            std::to_string(args.batch) + ") failed with status " + std::to_string(status) +
            " (CLBlastStatusCode, clblast_c.h); BACKPLANE_OPENCL_MATMUL=tiled "
            "runs the tiled kernel instead");
  return true;
}

// CLBlast caches its compiled programs, which hold the device's context, in a process-wide
// cache; emptied before the context is released.
void Compute::release_gemm() noexcept {
  if (gemm_used_) CLBlastClearCache();
}

#else

bool Compute::gemm(const clk::GemmArgs&) {
  return false;
}
void Compute::release_gemm() noexcept {}

#endif

}  // namespace bp::opencl
