// Internal header of the production CPU backend: the host API it was given, error
// reporting, and the registration function of each kernel file. Kernels are written for
// speed (Highway SIMD, OpenMP threads, BLAS for matmul) and must agree with the reference
// backend within the conformance tolerances. Like every plugin it sees only plugin-sdk/.
#pragma once

#include <backplane/plugin.h>

#include <cstdint>
#include <string>

namespace bp::cpu {

// The host API received at init; valid until shutdown.
extern const bp_host_api* g_host;

// Reports `message` through the host and returns `code`:
//   return fail(BP_ERR_INDEX, "index_select: index 7 is out of range for size 3");
bp_status fail(bp_status code, const std::string& message);

// One function per kernel file; each registers that file's kernels for `backend_id`.
bp_status register_copy_kernels(uint32_t backend_id);       // copy_ fill_ arange
bp_status register_unary_kernels(uint32_t backend_id);      // neg ... logical_not
bp_status register_binary_kernels(uint32_t backend_id);     // add ... logical_or where clamp
bp_status register_reduction_kernels(uint32_t backend_id);  // sum prod amax ... any
bp_status register_indexing_kernels(uint32_t backend_id);   // cat index_select gather
bp_status register_linalg_kernels(uint32_t backend_id);     // matmul (oneDNN sgemm)
bp_status register_nn_kernels(
    uint32_t backend_id);  // fused softmax log_softmax layer_norm rms_norm

}  // namespace bp::cpu
