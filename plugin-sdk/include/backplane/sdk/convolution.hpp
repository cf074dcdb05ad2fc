// The geometry of a convolution as the kernels of convolution_forward,
// convolution_backward_input and convolution_backward_weight receive it, and the checks that
// refuse a call outside that contract. Core's meta rules hand every kernel 4-D tensors
// (input [N, C, H, W], weight [O, C / groups, KH, KW], output [N, O, OH, OW]; a 1-D
// convolution has H = KH = OH = 1) and two-entry stride, padding and dilation lists
// (docs/convolution.md). Each kernel names its three tensors by role: the forward computes
// the output, backward_input the input, backward_weight the weight.
//
// It also holds the direct loops of the three ops, for every dtype but bool: products summed
// in double and rounded once (integers in uint64, wrapping as PyTorch's), over a range of
// the result's elements so that a backend can split the result among threads. They are the
// reference backend's kernels and the CPU plugin's path for what oneDNN does not run.
// Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/convert.hpp>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/half.hpp>
#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/strided_view.hpp>

#include <compare>
#include <cstdint>
#include <string>
#include <type_traits>

namespace bp::sdk {

struct ConvGeometry {
  int64_t batch = 0, in_channels = 0, in_h = 0, in_w = 0;
  int64_t out_channels = 0, kernel_h = 0, kernel_w = 0, out_h = 0, out_w = 0;
  int64_t groups = 1;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0, dilation_h = 1, dilation_w = 1;

  int64_t in_per_group() const { return in_channels / groups; }
  int64_t out_per_group() const { return out_channels / groups; }
  // The input row (column) output row `oh` reads at kernel row `kh`; may be outside the
  // input (the zero padding).
  int64_t in_row(int64_t oh, int64_t kh) const { return oh * stride_h - pad_h + kh * dilation_h; }
  int64_t in_col(int64_t ow, int64_t kw) const { return ow * stride_w - pad_w + kw * dilation_w; }
  // The products summed into one element of each op's result: the forward's output, the
  // input gradient, the weight gradient (at most; the padding removes some).
  int64_t forward_terms() const { return in_per_group() * kernel_h * kernel_w; }
  int64_t backward_input_terms() const { return out_per_group() * kernel_h * kernel_w; }
  int64_t backward_weight_terms() const { return batch * out_h * out_w; }
  // Field by field: a geometry can key a cache of prepared convolutions.
  friend auto operator<=>(const ConvGeometry&, const ConvGeometry&) = default;
};

namespace detail {

inline Error conv_error(const char* op, const std::string& what) {
  return Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": " + what);
}

inline std::string list_text(IntList v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

}  // namespace detail

// Checks a call's three tensors (by role) and parameters against each other and returns
// the geometry: all 4-D, one dtype that is not bool, groups dividing the channels, the
// output of the size the input, kernel and parameters give.
inline ConvGeometry check_convolution(const char* op, const StridedView& input,
                                      const StridedView& weight, const StridedView& output,
                                      IntList stride, IntList padding, IntList dilation,
                                      int64_t groups) {
  for (const StridedView* v : {&input, &weight, &output})
    if (v->ndim != 4)
      throw detail::conv_error(op, "a tensor of shape " + shape_text(*v) +
                                       " reached the kernel; kernels receive 4-D tensors "
                                       "(a 1-D convolution as H = 1)");
  if (input.dtype != weight.dtype || input.dtype != output.dtype)
    throw detail::conv_error(op, std::string("dtypes differ: input ") + dtype_name(input.dtype) +
                                     ", weight " + dtype_name(weight.dtype) + ", output " +
                                     dtype_name(output.dtype));
  if (input.dtype == BP_DTYPE_BOOL)
    throw Error(BP_ERR_UNSUPPORTED, std::string(op) + ": bool is not supported (as in PyTorch)");
  if (stride.size() != 2 || padding.size() != 2 || dilation.size() != 2)
    throw detail::conv_error(op, "stride, padding and dilation reach kernels with 2 entries");
  if (stride[0] < 1 || stride[1] < 1 || dilation[0] < 1 || dilation[1] < 1 || padding[0] < 0 ||
      padding[1] < 0 || groups < 1)
    throw detail::conv_error(op, "stride " + detail::list_text(stride) + ", padding " +
                                     detail::list_text(padding) + ", dilation " +
                                     detail::list_text(dilation) + " or groups " +
                                     std::to_string(groups) + " is out of range");
  ConvGeometry g;
  g.batch = input.shape[0], g.in_channels = input.shape[1];
  g.in_h = input.shape[2], g.in_w = input.shape[3];
  g.out_channels = weight.shape[0], g.kernel_h = weight.shape[2], g.kernel_w = weight.shape[3];
  g.groups = groups;
  g.stride_h = stride[0], g.stride_w = stride[1], g.pad_h = padding[0], g.pad_w = padding[1];
  g.dilation_h = dilation[0], g.dilation_w = dilation[1];
  const int64_t span_h = g.dilation_h * (g.kernel_h - 1) + 1;
  const int64_t span_w = g.dilation_w * (g.kernel_w - 1) + 1;
  g.out_h = (g.in_h + 2 * g.pad_h - span_h) / g.stride_h + 1;
  g.out_w = (g.in_w + 2 * g.pad_w - span_w) / g.stride_w + 1;
  const bool fits = g.out_channels % groups == 0 && g.in_channels == weight.shape[1] * groups &&
                    g.in_h + 2 * g.pad_h >= span_h && g.in_w + 2 * g.pad_w >= span_w &&
                    output.shape[0] == g.batch && output.shape[1] == g.out_channels &&
                    output.shape[2] == g.out_h && output.shape[3] == g.out_w;
  if (!fits)
    throw detail::conv_error(
        op, "input " + shape_text(input) + ", weight " + shape_text(weight) + " and output " +
                shape_text(output) + " do not form a convolution with groups = " +
                std::to_string(groups) + ", stride " + detail::list_text(stride) + ", padding " +
                detail::list_text(padding) + ", dilation " + detail::list_text(dilation));
  return g;
}

// convolution_forward's bias: none, or one value per output channel of the input's dtype.
inline void check_convolution_bias(const char* op, const StridedView* bias, const ConvGeometry& g,
                                   bp_dtype dtype) {
  if (!bias) return;
  if (bias->ndim != 1 || bias->shape[0] != g.out_channels || bias->dtype != dtype)
    throw detail::conv_error(op, "bias of shape " + shape_text(*bias) + " and dtype " +
                                     dtype_name(bias->dtype) + " does not fit " +
                                     std::to_string(g.out_channels) + " output channels of " +
                                     dtype_name(dtype));
}

// A sum of products of T, in double (floating T) or in wrapping uint64 (integers).
template <typename T>
class ConvSum {
 public:
  void add(T a, T b) {
    if constexpr (kIsFloating<T>)
      real_ += static_cast<double>(a) * static_cast<double>(b);
    else
      integer_ += static_cast<uint64_t>(static_cast<int64_t>(a)) *
                  static_cast<uint64_t>(static_cast<int64_t>(b));
  }
  void add(T a) {
    if constexpr (kIsFloating<T>)
      real_ += static_cast<double>(a);
    else
      integer_ += static_cast<uint64_t>(static_cast<int64_t>(a));
  }
  T result() const {
    if constexpr (kIsFloating<T>)
      return T(real_);
    else
      return static_cast<T>(integer_);  // modular since C++20
  }

 private:
  double real_ = 0.0;
  uint64_t integer_ = 0;
};

namespace detail {

// Calls f(a, b, c, d) for the row-major positions [begin, end) of a 4-D shape.
template <typename F>
void for_each_position(const StridedView& v, int64_t begin, int64_t end, F&& f) {
  const int64_t* s = v.shape;
  for (int64_t i = begin; i < end; ++i)
    f(i / (s[1] * s[2] * s[3]), i / (s[2] * s[3]) % s[1], i / s[3] % s[2], i % s[3]);
}

// The output position along one dim that reads input position `i` at kernel position `k`,
// or -1 when none does (the stride skips it, or it falls outside the output).
inline int64_t output_position(int64_t i, int64_t k, int64_t stride, int64_t pad, int64_t dilation,
                               int64_t out_size) {
  const int64_t t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= out_size) return -1;
  return t / stride;
}

}  // namespace detail

// out[n, o, oh, ow] = bias[o] + sum over the group's channels c and the window (kh, kw) of
// input[n, g Cg + c, ih, iw] * weight[o, c, kh, kw], the padding read as zeros; for the
// output positions [begin, end).
template <typename T>
void convolution_forward_loop(const ConvGeometry& g, const StridedView& input,
                              const StridedView& weight, const StridedView* bias,
                              const StridedView& out, int64_t begin, int64_t end) {
  detail::for_each_position(out, begin, end, [&](int64_t n, int64_t o, int64_t oh, int64_t ow) {
    const int64_t first_channel = o / g.out_per_group() * g.in_per_group();
    ConvSum<T> sum;
    if (bias) sum.add(bias->at_offset<T>(o * bias->strides[0]));
    for (int64_t c = 0; c < g.in_per_group(); ++c)
      for (int64_t kh = 0; kh < g.kernel_h; ++kh)
        for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
          const int64_t ih = g.in_row(oh, kh), iw = g.in_col(ow, kw);
          if (ih < 0 || ih >= g.in_h || iw < 0 || iw >= g.in_w) continue;
          sum.add(at4<T>(input, n, first_channel + c, ih, iw), at4<T>(weight, o, c, kh, kw));
        }
    at4<T>(out, n, o, oh, ow) = sum.result();
  });
}

// grad_input[n, ci, ih, iw] = sum over the output channels o of ci's group and the kernel
// positions whose output position (oh, ow) reads (ih, iw) of
// grad_output[n, o, oh, ow] * weight[o, ci - g Cg, kh, kw]; for the input positions
// [begin, end).
template <typename T>
void convolution_backward_input_loop(const ConvGeometry& g, const StridedView& grad_output,
                                     const StridedView& weight, const StridedView& grad_input,
                                     int64_t begin, int64_t end) {
  detail::for_each_position(
      grad_input, begin, end, [&](int64_t n, int64_t ci, int64_t ih, int64_t iw) {
        const int64_t group = ci / g.in_per_group(), c = ci % g.in_per_group();
        ConvSum<T> sum;
        for (int64_t o = group * g.out_per_group(); o < (group + 1) * g.out_per_group(); ++o)
          for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
            const int64_t oh =
                detail::output_position(ih, kh, g.stride_h, g.pad_h, g.dilation_h, g.out_h);
            if (oh < 0) continue;
            for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
              const int64_t ow =
                  detail::output_position(iw, kw, g.stride_w, g.pad_w, g.dilation_w, g.out_w);
              if (ow >= 0) sum.add(at4<T>(grad_output, n, o, oh, ow), at4<T>(weight, o, c, kh, kw));
            }
          }
        at4<T>(grad_input, n, ci, ih, iw) = sum.result();
      });
}

// grad_weight[o, c, kh, kw] = sum over the batch and the output positions of
// grad_output[n, o, oh, ow] * input[n, g Cg + c, ih, iw]; for the weight positions
// [begin, end).
template <typename T>
void convolution_backward_weight_loop(const ConvGeometry& g, const StridedView& grad_output,
                                      const StridedView& input, const StridedView& grad_weight,
                                      int64_t begin, int64_t end) {
  detail::for_each_position(
      grad_weight, begin, end, [&](int64_t o, int64_t c, int64_t kh, int64_t kw) {
        const int64_t channel = o / g.out_per_group() * g.in_per_group() + c;
        ConvSum<T> sum;
        for (int64_t n = 0; n < g.batch; ++n)
          for (int64_t oh = 0; oh < g.out_h; ++oh) {
            const int64_t ih = g.in_row(oh, kh);
            if (ih < 0 || ih >= g.in_h) continue;
            for (int64_t ow = 0; ow < g.out_w; ++ow) {
              const int64_t iw = g.in_col(ow, kw);
              if (iw >= 0 && iw < g.in_w)
                sum.add(at4<T>(grad_output, n, o, oh, ow), at4<T>(input, n, channel, ih, iw));
            }
          }
        at4<T>(grad_weight, o, c, kh, kw) = sum.result();
      });
}

namespace detail {

template <typename F>
void for_each_dtype_but_bool(bp_dtype dtype, F&& f) {
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, bool>) f(T{});
  });
}

}  // namespace detail

// The three ops over their whole result in its dtype (every dtype but bool), with
// `split(n, terms, body)` calling body(begin, end) over [0, n) on one thread or split among
// several: each element is computed by one call, so any split gives the same bits. `terms`
// (the products per element) lets a backend decide whether a split is worth it.
template <typename Split>
void convolution_forward_direct(const ConvGeometry& g, const StridedView& input,
                                const StridedView& weight, const StridedView* bias,
                                const StridedView& out, Split&& split) {
  detail::for_each_dtype_but_bool(out.dtype, [&](auto zero) {
    split(out.numel(), g.forward_terms(), [&](int64_t begin, int64_t end) {
      convolution_forward_loop<decltype(zero)>(g, input, weight, bias, out, begin, end);
    });
  });
}
template <typename Split>
void convolution_backward_input_direct(const ConvGeometry& g, const StridedView& grad_output,
                                       const StridedView& weight, const StridedView& grad_input,
                                       Split&& split) {
  detail::for_each_dtype_but_bool(grad_input.dtype, [&](auto zero) {
    split(grad_input.numel(), g.backward_input_terms(), [&](int64_t begin, int64_t end) {
      convolution_backward_input_loop<decltype(zero)>(g, grad_output, weight, grad_input, begin,
                                                      end);
    });
  });
}
template <typename Split>
void convolution_backward_weight_direct(const ConvGeometry& g, const StridedView& grad_output,
                                        const StridedView& input, const StridedView& grad_weight,
                                        Split&& split) {
  detail::for_each_dtype_but_bool(grad_weight.dtype, [&](auto zero) {
    split(grad_weight.numel(), g.backward_weight_terms(), [&](int64_t begin, int64_t end) {
      convolution_backward_weight_loop<decltype(zero)>(g, grad_output, input, grad_weight, begin,
                                                       end);
    });
  });
}

}  // namespace bp::sdk
