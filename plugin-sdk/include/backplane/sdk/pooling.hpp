// The geometry of 2-D pooling as the kernels of max_pool2d_with_indices, avg_pool2d,
// _adaptive_avg_pool2d and their backward ops receive it, the checks that refuse a call
// outside that contract, and the direct loops of the six ops. Core's meta rules hand every
// kernel 4-D tensors ([N, C, H, W]; an unbatched [C, H, W] input as N = 1) and two-entry
// kernel_size, stride, padding and dilation lists (docs/pooling.md).
//
// The loops compute a range of the result's elements (row-major), so a backend can split the
// result among threads; floating sums are taken in double and rounded once. Each gradient
// is a gather: every input element sums, in the output's row-major order, the gradients of
// the windows it belongs to, so no two threads or work items write one element. They are
// the reference backend's kernels and the CPU plugin's. Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/half.hpp>
#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/strided_view.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace bp::sdk {

struct PoolGeometry {
  int64_t batch = 0, channels = 0, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t dilation_h = 1, dilation_w = 1;
};

// PyTorch's pooled size of one dim: floor, or with ceil_mode ceil, of
// (in + 2 pad - dilation (kernel - 1) - 1) / stride, plus 1; with ceil_mode the last
// window must start inside the input or its left padding.
inline int64_t pooled_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad,
                           int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

namespace detail {

inline Error pool_error(const char* op, const std::string& what) {
  return Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": " + what);
}

inline void check_pool_tensors(const char* op, const StridedView& input,
                               const StridedView& output) {
  for (const StridedView* v : {&input, &output})
    if (v->ndim != 4)
      throw pool_error(op, "a tensor of shape " + shape_text(*v) +
                               " reached the kernel; kernels receive 4-D tensors [N, C, H, W]");
  if (input.dtype != output.dtype)
    throw pool_error(op, std::string("dtypes differ: ") + dtype_name(input.dtype) + " and " +
                             dtype_name(output.dtype));
  if (!(input.dtype == BP_DTYPE_F16 || input.dtype == BP_DTYPE_BF16 ||
        input.dtype == BP_DTYPE_F32 || input.dtype == BP_DTYPE_F64))
    throw Error(BP_ERR_UNSUPPORTED, std::string(op) + ": " + dtype_name(input.dtype) +
                                        " is not supported (floating dtypes only)");
  if (input.shape[0] != output.shape[0] || input.shape[1] != output.shape[1])
    throw pool_error(op, "input " + shape_text(input) + " and output " + shape_text(output) +
                             " differ in N or C");
}

// x / y rounded toward minus infinity (y > 0).
inline int64_t floor_div(int64_t x, int64_t y) {
  return x >= 0 ? x / y : -((-x + y - 1) / y);
}

// Calls f(n, c, h, w) for the row-major positions [begin, end) of a 4-D shape.
template <typename F>
void for_each_pool_position(const StridedView& v, int64_t begin, int64_t end, F&& f) {
  const int64_t* s = v.shape;
  for (int64_t i = begin; i < end; ++i)
    f(i / (s[1] * s[2] * s[3]), i / (s[2] * s[3]) % s[1], i / s[3] % s[2], i % s[3]);
}

}  // namespace detail

// Checks a windowed pooling call (max or average; `output` is the pooled tensor, `input`
// the full-size one, whichever the kernel computes) and returns its geometry.
inline PoolGeometry check_pool2d(const char* op, const StridedView& input,
                                 const StridedView& output, IntList kernel, IntList stride,
                                 IntList padding, IntList dilation, bool ceil_mode) {
  detail::check_pool_tensors(op, input, output);
  if (kernel.size() != 2 || stride.size() != 2 || padding.size() != 2 || dilation.size() != 2)
    throw detail::pool_error(op,
                             "kernel_size, stride, padding and dilation reach kernels with "
                             "2 entries");
  PoolGeometry g{input.shape[0],  input.shape[1], input.shape[2], input.shape[3], output.shape[2],
                 output.shape[3], kernel[0],      kernel[1],      stride[0],      stride[1],
                 padding[0],      padding[1],     dilation[0],    dilation[1]};
  const bool ok =
      g.kernel_h > 0 && g.kernel_w > 0 && g.stride_h > 0 && g.stride_w > 0 && g.dilation_h > 0 &&
      g.dilation_w > 0 && g.pad_h >= 0 && g.pad_w >= 0 &&
      g.out_h == pooled_size(g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.dilation_h, ceil_mode) &&
      g.out_w == pooled_size(g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w, ceil_mode);
  if (!ok)
    throw detail::pool_error(op, "input " + shape_text(input) + " and output " +
                                     shape_text(output) +
                                     " do not fit the kernel_size, stride, padding, dilation "
                                     "and ceil_mode given");
  return g;
}

// The dilation of average pooling, which has none.
inline constexpr int64_t kUnitDilation[2] = {1, 1};
inline constexpr IntList kNoDilation{kUnitDilation, 2};

// max pooling's indices: i64, of the pooled tensor's shape.
inline void check_pool_indices(const char* op, const StridedView& indices,
                               const StridedView& pooled) {
  bool ok = indices.dtype == BP_DTYPE_I64 && indices.ndim == 4;
  for (int32_t d = 0; ok && d < 4; ++d) ok = indices.shape[d] == pooled.shape[d];
  if (!ok)
    throw detail::pool_error(op, std::string("indices (") + dtype_name(indices.dtype) + " " +
                                     shape_text(indices) + ") must be i64 of shape " +
                                     shape_text(pooled));
}

// Checks an adaptive pooling call and returns its geometry (no window parameters).
inline PoolGeometry check_adaptive_pool2d(const char* op, const StridedView& input,
                                          const StridedView& output) {
  detail::check_pool_tensors(op, input, output);
  PoolGeometry g;
  g.batch = input.shape[0], g.channels = input.shape[1];
  g.in_h = input.shape[2], g.in_w = input.shape[3];
  g.out_h = output.shape[2], g.out_w = output.shape[3];
  if ((g.out_h > 0 || g.out_w > 0) && (g.in_h == 0 || g.in_w == 0))
    throw detail::pool_error(op, "an empty input " + shape_text(input) + " has no windows");
  return g;
}

// out = the largest element of each window, the padding never chosen, NaN the largest (the
// last NaN of the window, as PyTorch's CPU kernel); ties give the first. indices = its flat
// position h * W + w in the (n, c) plane. For the output positions [begin, end).
template <typename T>
void max_pool2d_loop(const PoolGeometry& g, const StridedView& input, const StridedView& out,
                     const StridedView& indices, int64_t begin, int64_t end) {
  detail::for_each_pool_position(
      out, begin, end, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
        const int64_t h0 = oh * g.stride_h - g.pad_h, w0 = ow * g.stride_w - g.pad_w;
        double best = -std::numeric_limits<double>::infinity();
        T best_value{};
        int64_t best_index = -1;
        for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
          const int64_t ih = h0 + kh * g.dilation_h;
          if (ih < 0 || ih >= g.in_h) continue;
          for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
            const int64_t iw = w0 + kw * g.dilation_w;
            if (iw < 0 || iw >= g.in_w) continue;
            const T value = at4<T>(input, n, c, ih, iw);
            const double x = static_cast<double>(value);
            if (best_index < 0 || x > best || std::isnan(x)) {
              best = x, best_value = value, best_index = ih * g.in_w + iw;
            }
          }
        }
        at4<T>(out, n, c, oh, ow) = best_value;
        at4<int64_t>(indices, n, c, oh, ow) = best_index;
      });
}

// grad_input[n, c, ih, iw] = the sum, over the windows holding (ih, iw) in the output's
// row-major order, of grad_output where indices names (ih, iw). For the input positions
// [begin, end).
template <typename T>
void max_pool2d_backward_loop(const PoolGeometry& g, const StridedView& grad_output,
                              const StridedView& indices, const StridedView& grad_input,
                              int64_t begin, int64_t end) {
  detail::for_each_pool_position(
      grad_input, begin, end, [&](int64_t n, int64_t c, int64_t ih, int64_t iw) {
        const int64_t flat = ih * g.in_w + iw;
        double sum = 0.0;
        // Kernel rows from the last: output rows ascending.
        for (int64_t kh = g.kernel_h - 1; kh >= 0; --kh) {
          const int64_t th = ih + g.pad_h - kh * g.dilation_h;
          if (th < 0 || th % g.stride_h != 0 || th / g.stride_h >= g.out_h) continue;
          const int64_t oh = th / g.stride_h;
          for (int64_t kw = g.kernel_w - 1; kw >= 0; --kw) {
            const int64_t tw = iw + g.pad_w - kw * g.dilation_w;
            if (tw < 0 || tw % g.stride_w != 0 || tw / g.stride_w >= g.out_w) continue;
            const int64_t ow = tw / g.stride_w;
            if (at4<int64_t>(indices, n, c, oh, ow) == flat)
              sum += static_cast<double>(at4<T>(grad_output, n, c, oh, ow));
          }
        }
        at4<T>(grad_input, n, c, ih, iw) = T(sum);
      });
}

// The rows [start, end) of output row `o` of an average pool, clipped to the input, and the
// count PyTorch divides by: divisor_override, or the window's size within the padded input
// (count_include_pad), or its size within the input.
struct AvgWindow {
  int64_t h0, h1, w0, w1, divisor;
};
inline AvgWindow avg_window(const PoolGeometry& g, int64_t oh, int64_t ow, bool count_include_pad,
                            std::optional<int64_t> divisor_override) {
  int64_t h0 = oh * g.stride_h - g.pad_h, w0 = ow * g.stride_w - g.pad_w;
  int64_t h1 = std::min(h0 + g.kernel_h, g.in_h + g.pad_h);
  int64_t w1 = std::min(w0 + g.kernel_w, g.in_w + g.pad_w);
  const int64_t padded = (h1 - h0) * (w1 - w0);
  h0 = std::max<int64_t>(h0, 0), w0 = std::max<int64_t>(w0, 0);
  h1 = std::min(h1, g.in_h), w1 = std::min(w1, g.in_w);
  const int64_t divisor = divisor_override    ? *divisor_override
                          : count_include_pad ? padded
                                              : (h1 - h0) * (w1 - w0);
  return {h0, h1, w0, w1, divisor};
}

// out = the window's sum / its divisor (0 for a window with no input element). For the
// output positions [begin, end).
template <typename T>
void avg_pool2d_loop(const PoolGeometry& g, const StridedView& input, const StridedView& out,
                     bool count_include_pad, std::optional<int64_t> divisor_override, int64_t begin,
                     int64_t end) {
  detail::for_each_pool_position(
      out, begin, end, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
        const AvgWindow win = avg_window(g, oh, ow, count_include_pad, divisor_override);
        double sum = 0.0;
        for (int64_t ih = win.h0; ih < win.h1; ++ih)
          for (int64_t iw = win.w0; iw < win.w1; ++iw)
            sum += static_cast<double>(at4<T>(input, n, c, ih, iw));
        const bool empty = win.h0 >= win.h1 || win.w0 >= win.w1;
        at4<T>(out, n, c, oh, ow) = T(empty ? 0.0 : sum / static_cast<double>(win.divisor));
      });
}

// grad_input[n, c, ih, iw] = the sum over the windows holding (ih, iw), in the output's
// row-major order, of grad_output / the window's divisor. For the input positions
// [begin, end).
template <typename T>
void avg_pool2d_backward_loop(const PoolGeometry& g, const StridedView& grad_output,
                              const StridedView& grad_input, bool count_include_pad,
                              std::optional<int64_t> divisor_override, int64_t begin, int64_t end) {
  detail::for_each_pool_position(
      grad_input, begin, end, [&](int64_t n, int64_t c, int64_t ih, int64_t iw) {
        // Windows [o s - p, o s - p + k) holding i: o from floor((i + p - k) / s) + 1 to
        // floor((i + p) / s).
        const int64_t oh0 =
            std::max<int64_t>(0, detail::floor_div(ih + g.pad_h - g.kernel_h, g.stride_h) + 1);
        const int64_t oh1 = std::min(g.out_h - 1, detail::floor_div(ih + g.pad_h, g.stride_h));
        const int64_t ow0 =
            std::max<int64_t>(0, detail::floor_div(iw + g.pad_w - g.kernel_w, g.stride_w) + 1);
        const int64_t ow1 = std::min(g.out_w - 1, detail::floor_div(iw + g.pad_w, g.stride_w));
        double sum = 0.0;
        for (int64_t oh = oh0; oh <= oh1; ++oh)
          for (int64_t ow = ow0; ow <= ow1; ++ow) {
            const AvgWindow win = avg_window(g, oh, ow, count_include_pad, divisor_override);
            sum += static_cast<double>(at4<T>(grad_output, n, c, oh, ow)) /
                   static_cast<double>(win.divisor);
          }
        at4<T>(grad_input, n, c, ih, iw) = T(sum);
      });
}

// Adaptive pooling's window of output row o among `out` over `in` rows:
// [floor(o in / out), ceil((o + 1) in / out)).
inline int64_t adaptive_start(int64_t o, int64_t out, int64_t in) {
  return o * in / out;
}
inline int64_t adaptive_end(int64_t o, int64_t out, int64_t in) {
  return ((o + 1) * in + out - 1) / out;
}

// out = the mean of each adaptive window. For the output positions [begin, end).
template <typename T>
void adaptive_avg_pool2d_loop(const PoolGeometry& g, const StridedView& input,
                              const StridedView& out, int64_t begin, int64_t end) {
  detail::for_each_pool_position(
      out, begin, end, [&](int64_t n, int64_t c, int64_t oh, int64_t ow) {
        const int64_t h0 = adaptive_start(oh, g.out_h, g.in_h),
                      h1 = adaptive_end(oh, g.out_h, g.in_h);
        const int64_t w0 = adaptive_start(ow, g.out_w, g.in_w),
                      w1 = adaptive_end(ow, g.out_w, g.in_w);
        double sum = 0.0;
        for (int64_t ih = h0; ih < h1; ++ih)
          for (int64_t iw = w0; iw < w1; ++iw)
            sum += static_cast<double>(at4<T>(input, n, c, ih, iw));
        at4<T>(out, n, c, oh, ow) = T(sum / static_cast<double>((h1 - h0) * (w1 - w0)));
      });
}

// grad_input[n, c, ih, iw] = the sum over the adaptive windows holding (ih, iw), in the
// output's row-major order, of grad_output / the window's size. Output rows holding input
// row i: from floor(i out / in) to below ceil((i + 1) out / in). For the input positions
// [begin, end).
template <typename T>
void adaptive_avg_pool2d_backward_loop(const PoolGeometry& g, const StridedView& grad_output,
                                       const StridedView& grad_input, int64_t begin, int64_t end) {
  detail::for_each_pool_position(
      grad_input, begin, end, [&](int64_t n, int64_t c, int64_t ih, int64_t iw) {
        const int64_t oh0 = adaptive_start(ih, g.in_h, g.out_h);
        const int64_t oh1 = std::min(g.out_h, adaptive_end(ih, g.in_h, g.out_h));
        const int64_t ow0 = adaptive_start(iw, g.in_w, g.out_w);
        const int64_t ow1 = std::min(g.out_w, adaptive_end(iw, g.in_w, g.out_w));
        double sum = 0.0;
        for (int64_t oh = oh0; oh < oh1; ++oh) {
          const int64_t rows =
              adaptive_end(oh, g.out_h, g.in_h) - adaptive_start(oh, g.out_h, g.in_h);
          if (ih < adaptive_start(oh, g.out_h, g.in_h) || ih >= adaptive_end(oh, g.out_h, g.in_h))
            continue;
          for (int64_t ow = ow0; ow < ow1; ++ow) {
            const int64_t w0 = adaptive_start(ow, g.out_w, g.in_w),
                          w1 = adaptive_end(ow, g.out_w, g.in_w);
            if (iw < w0 || iw >= w1) continue;
            sum += static_cast<double>(at4<T>(grad_output, n, c, oh, ow)) /
                   static_cast<double>(rows * (w1 - w0));
          }
        }
        at4<T>(grad_input, n, c, ih, iw) = T(sum);
      });
}

}  // namespace bp::sdk
