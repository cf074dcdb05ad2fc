// Internal header of the reference backend: the compute-in-double helpers and strided loop
// its kernel files share, over the SDK's views, conversions and argument checks. The
// reference backend is written for clarity, not speed: floating results are computed in
// double and rounded once to the output dtype; integer results are exact (two's-complement
// wrap-around like PyTorch). It sees only plugin-sdk/ (backplane/plugin.h and
// backplane/sdk/), as any plugin.
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
#include <span>
#include <type_traits>

namespace bp::reference {

using sdk::BFloat16;
using sdk::convert;
using sdk::dtype_name;
using sdk::Error;
using sdk::Half;
using sdk::KernelContext;
using sdk::kIsFloating;
using sdk::kNotBool;
using sdk::StridedView;
using sdk::visit_dtype;
namespace op = sdk::op;

// Every value of every dtype as double (exact for all but int64 beyond 2^53).
template <typename T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, bool>)
    return v ? 1.0 : 0.0;
  else
    return static_cast<double>(v);
}

// Rounds a double once into T. For integral T the value must already be integral and in
// range (callers convert with sdk::convert first when it may not be).
template <typename T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0.0;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return T(v);
  else
    return static_cast<T>(v);
}

// Integer arithmetic with PyTorch's wrap-around: compute in uint64 and truncate.
template <typename T>
T wrap_int(uint64_t v) {
  if constexpr (std::is_same_v<T, bool>)
    return v != 0;
  else
    return static_cast<T>(v);  // modular since C++20
}

// Calls f(index) for every multi-index of `v`'s shape in row-major order (once for a 0-d
// view, never when some size is 0).
template <typename F>
void for_each_index(const StridedView& v, F&& f) {
  sdk::for_each_index(std::span<const int64_t>(v.shape, static_cast<size_t>(v.ndim)), f);
}

// "<op>: argument 'self' has dtype bool, which the reference kernel does not support".
inline Error unsupported(const KernelContext& ctx, const char* arg, bp_dtype dtype) {
  return sdk::unsupported_dtype(ctx.op_name(), arg, dtype, "reference");
}

// The split the SDK's kernel templates (sdk/pooling_kernels.hpp, sdk/random_kernels.hpp)
// take: the whole range on one thread.
struct Serial {
  template <typename Body>
  static void run(int64_t n, Body&& body, int64_t /*cost*/ = 1) {
    body(int64_t{0}, n);
  }
};

// One function per kernel file; each registers that file's kernels.
void register_data_movement_copy_kernels(sdk::Registrar& r);   // copy_, fill_, arange
void register_unary_kernels(sdk::Registrar& r);                // neg ... logical_not, gelu
void register_binary_kernels(sdk::Registrar& r);               // add ... logical_or, where, clamp
void register_reduction_kernels(sdk::Registrar& r);            // sum prod amax amin argmax ...
void register_data_movement_index_kernels(sdk::Registrar& r);  // cat index_select gather
void register_linalg_kernels(sdk::Registrar& r);               // matmul
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

}  // namespace bp::reference
