// Internal header of the production CPU backend: the SDK names its kernel files use, the
// f16/bf16 <-> f32 widening of the reduction, indexing and matmul kernels, and the
// registration function of each kernel file. Kernels are written for speed (Highway SIMD,
// OpenMP threads, BLAS for matmul) and must agree with the reference backend within the
// conformance tolerances. Like every plugin it sees only plugin-sdk/: its views, dtype
// dispatch, conversions and argument checks are the SDK's.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/argument_checks.hpp>
#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/half.hpp>
#include <backplane/sdk/int_math.hpp>
#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/op_families.hpp>
#include <backplane/sdk/strided_view.hpp>
#include <backplane/sdk/tensor.hpp>

#include <cstdint>
#include <type_traits>

namespace bp::cpu {

using sdk::BFloat16;
using sdk::convert;
using sdk::dtype_name;
using sdk::dtype_of;
using sdk::Error;
using sdk::Half;
using sdk::KernelContext;
using sdk::kIsFloating;
using sdk::kIsHalf;
using sdk::kNotBool;
using sdk::StridedView;
using sdk::TensorArg;
using sdk::TypeTag;
using sdk::visit_dtype;
namespace op = sdk::op;

// f16/bf16 read and written through f32 (exact widening, one rounding back); other types
// unchanged.
template <typename T>
inline auto widen(T v) {
  if constexpr (kIsHalf<T>)
    return static_cast<float>(v);
  else
    return v;
}
template <typename T, typename A>
inline T narrow(A v) {
  if constexpr (kIsHalf<T>)
    return T(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != A(0);
  else
    return static_cast<T>(v);
}

// "<op>: argument 'self' has dtype bool, which the cpu kernel does not support".
inline Error unsupported(const KernelContext& ctx, const char* arg, bp_dtype dtype) {
  return sdk::unsupported_dtype(ctx.op_name(), arg, dtype, "cpu");
}

// One function per kernel file; each registers that file's kernels.
void register_data_movement_copy_kernels(sdk::Registrar& r);  // copy_ fill_ arange
void register_unary_kernels(sdk::Registrar& r);               // neg ... logical_not
void register_binary_kernels(sdk::Registrar& r);              // add ... logical_or where clamp
void register_binary_dense_entries(sdk::Registrar& r);  // their dense entries (binary_dense.cpp)
void register_reduction_kernels(sdk::Registrar& r);     // sum prod amax ... any
void register_data_movement_index_kernels(sdk::Registrar& r);  // cat index_select gather
void register_linalg_kernels(sdk::Registrar& r);               // matmul (oneDNN sgemm)
void register_nn_kernels(sdk::Registrar& r);  // fused softmax log_softmax layer_norm rms_norm
void register_activation_backward_kernels(sdk::Registrar& r);  // threshold_backward ...
void register_indexed_write_kernels(sdk::Registrar& r);        // index_add
void register_scan_kernels(sdk::Registrar& r);                 // cumsum cumprod
void register_convolution_kernels(sdk::Registrar& r);  // convolution_forward, _backward_input,
                                                       // _backward_weight
void register_pooling_kernels(sdk::Registrar& r);      // max_pool2d_with_indices, avg_pool2d,
                                                       // _adaptive_avg_pool2d (+ _backward)
void register_random_kernels(sdk::Registrar& r);       // uniform_ normal_ random_.from
void register_sort_kernels(sdk::Registrar& r);         // sort.stable
void register_scatter_kernels(sdk::Registrar& r);      // scatter.src scatter_reduce.two
void register_nonzero_kernels(sdk::Registrar& r);      // nonzero_static

}  // namespace bp::cpu
