// The pooling ops' kernels for a plugin to register, over the direct loops of
// sdk/pooling.hpp: `Split::run(n, body)` calls body(begin, end) over [0, n), on one thread
// or split among several; each result element is computed by one call, so any split gives
// the same bits. The reference backend registers them with a serial Split, the CPU plugin
// with its OpenMP one. Header-only.
#pragma once

#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/pooling.hpp>

#include <optional>

namespace bp::sdk {

template <typename Split>
struct PoolingKernels {
  template <typename F>
  static void for_each_floating(bp_dtype dtype, F&& f) {
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (kIsFloating<T>) f(T{});
    });
  }

  static void max_pool_kernel(StridedView self, IntList kernel, IntList stride, IntList padding,
                              IntList dilation, bool ceil_mode, StridedView out,
                              StridedView indices) {
    const PoolGeometry g = check_pool2d("max_pool2d_with_indices", self, out, kernel, stride,
                                        padding, dilation, ceil_mode);
    check_pool_indices("max_pool2d_with_indices", indices, out);
    for_each_floating(out.dtype, [&](auto zero) {
      Split::run(out.numel(), [&](int64_t begin, int64_t end) {
        max_pool2d_loop<decltype(zero)>(g, self, out, indices, begin, end);
      });
    });
  }

  static void max_pool_backward_kernel(StridedView grad_output, StridedView, IntList kernel,
                                       IntList stride, IntList padding, IntList dilation,
                                       bool ceil_mode, StridedView indices, StridedView out) {
    const char* op = "max_pool2d_with_indices_backward";
    const PoolGeometry g =
        check_pool2d(op, out, grad_output, kernel, stride, padding, dilation, ceil_mode);
    check_pool_indices(op, indices, grad_output);
    for_each_floating(out.dtype, [&](auto zero) {
      Split::run(out.numel(), [&](int64_t begin, int64_t end) {
        max_pool2d_backward_loop<decltype(zero)>(g, grad_output, indices, out, begin, end);
      });
    });
  }

  static void avg_pool_kernel(StridedView self, IntList kernel, IntList stride, IntList padding,
                              bool ceil_mode, bool count_include_pad,
                              std::optional<int64_t> divisor, StridedView out) {
    const PoolGeometry g =
        check_pool2d("avg_pool2d", self, out, kernel, stride, padding, kNoDilation, ceil_mode);
    for_each_floating(out.dtype, [&](auto zero) {
      Split::run(out.numel(), [&](int64_t begin, int64_t end) {
        avg_pool2d_loop<decltype(zero)>(g, self, out, count_include_pad, divisor, begin, end);
      });
    });
  }

  static void avg_pool_backward_kernel(StridedView grad_output, StridedView, IntList kernel,
                                       IntList stride, IntList padding, bool ceil_mode,
                                       bool count_include_pad, std::optional<int64_t> divisor,
                                       StridedView out) {
    const PoolGeometry g = check_pool2d("avg_pool2d_backward", out, grad_output, kernel, stride,
                                        padding, kNoDilation, ceil_mode);
    for_each_floating(out.dtype, [&](auto zero) {
      Split::run(out.numel(), [&](int64_t begin, int64_t end) {
        avg_pool2d_backward_loop<decltype(zero)>(g, grad_output, out, count_include_pad, divisor,
                                                 begin, end);
      });
    });
  }

  static void adaptive_kernel(StridedView self, IntList, StridedView out) {
    const PoolGeometry g = check_adaptive_pool2d("_adaptive_avg_pool2d", self, out);
    for_each_floating(out.dtype, [&](auto zero) {
      Split::run(out.numel(), [&](int64_t begin, int64_t end) {
        adaptive_avg_pool2d_loop<decltype(zero)>(g, self, out, begin, end);
      });
    });
  }

  static void adaptive_backward_kernel(StridedView grad_output, StridedView, StridedView out) {
    const PoolGeometry g = check_adaptive_pool2d("_adaptive_avg_pool2d_backward", out, grad_output);
    for_each_floating(out.dtype, [&](auto zero) {
      Split::run(out.numel(), [&](int64_t begin, int64_t end) {
        adaptive_avg_pool2d_backward_loop<decltype(zero)>(g, grad_output, out, begin, end);
      });
    });
  }

  static void register_all(Registrar& r) {
    constexpr bp_dtype_mask kFloating = BP_DTYPES_FLOATING;
    r.kernel<max_pool_kernel>("max_pool2d_with_indices", kFloating);
    r.kernel<max_pool_backward_kernel>("max_pool2d_with_indices_backward", kFloating);
    r.kernel<avg_pool_kernel>("avg_pool2d", kFloating);
    r.kernel<avg_pool_backward_kernel>("avg_pool2d_backward", kFloating);
    r.kernel<adaptive_kernel>("_adaptive_avg_pool2d", kFloating);
    r.kernel<adaptive_backward_kernel>("_adaptive_avg_pool2d_backward", kFloating);
  }
};

}  // namespace bp::sdk
