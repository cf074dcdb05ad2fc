// convolution_forward, convolution_backward_input and convolution_backward_weight
// (compute-ops/convolution.cpp): one work item per element of the result sums its products
// in the SDK's direct loops' order (deterministic, no atomics), in double (float on a device
// without fp64) or, for integers, in U (wrapping: modular sums of products equal the
// wrapped result). bp_conv gives the geometry and, per role (input, weight, output), the strides
// and first-element offset in elements.

typedef struct {
  long batch, in_channels, in_h, in_w, out_channels, kernel_h, kernel_w, out_h, out_w;
  long groups, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  long in_stride[4], weight_stride[4], out_stride[4];
  long in_offset, weight_offset, out_offset, bias_offset, bias_stride, has_bias;
} bp_conv;

#ifndef BP_IS_BOOL
// Products are summed in double where the device has fp64: exact products of f32/f16/bf16
// values, in the reference's order, so the result is the reference's, overflowing partial
// sums and infinities included. Without fp64 they are summed in float.
#if !defined(__CUDACC__) && !defined(__HIPCC__)  // OpenCL C (run time and SPIR-V builds)
#pragma OPENCL FP_CONTRACT OFF
#endif
#if defined(BP_FLOATING) && defined(BP_HAS_FP64)
#define CONV_ACC double
#define CONV_TERM(x) ((double)(x))
#define CONV_OUT(acc) ((C)(acc))
#elif defined(BP_FLOATING)
#define CONV_ACC float
#define CONV_TERM(x) ((float)(x))
#define CONV_OUT(acc) (acc)
#else
#define CONV_ACC U
#define CONV_TERM(x) ((U)(x))
#define CONV_OUT(acc) ((C)(acc))
#endif

#define CONV_AT(s, off, a, b, c, d) \
  ((off) + (a) * (s)[0] + (b) * (s)[1] + (c) * (s)[2] + (d) * (s)[3])
#define IN_AT(a, b, c, d) CONV_AT(cv.in_stride, cv.in_offset, a, b, c, d)
#define WEIGHT_AT(a, b, c, d) CONV_AT(cv.weight_stride, cv.weight_offset, a, b, c, d)
#define OUT_AT(a, b, c, d) CONV_AT(cv.out_stride, cv.out_offset, a, b, c, d)
#define CONV_MAC(acc, p, i, q, j) ((acc) + CONV_TERM(LOAD(p, i)) * CONV_TERM(LOAD(q, j)))

// The output position along one dim that reads input position i at kernel position k, or
// -1 when none does.
inline long conv_output_position(long i, long k, long stride, long pad, long dilation,
                                 long out_size) {
  const long t = i + pad - k * dilation;
  if (t < 0 || t % stride != 0 || t / stride >= out_size) return -1;
  return t / stride;
}

// out[n, o, oh, ow] = bias[o] + sum over the group's channels and the window.
__kernel void convolution_forward_(__global T* out, __global const T* input,
                                   __global const T* weight, __global const T* bias,
                                   const bp_conv cv, const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  const long ow = i % cv.out_w, oh = i / cv.out_w % cv.out_h;
  const long o = i / (cv.out_w * cv.out_h) % cv.out_channels;
  const long n = i / (cv.out_w * cv.out_h * cv.out_channels);
  const long in_group = cv.in_channels / cv.groups, out_group = cv.out_channels / cv.groups;
  const long first = o / out_group * in_group;
  CONV_ACC acc = cv.has_bias ? CONV_TERM(LOAD(bias, cv.bias_offset + o * cv.bias_stride)) : 0;
  for (long c = 0; c < in_group; ++c)
    for (long kh = 0; kh < cv.kernel_h; ++kh) {
      const long ih = oh * cv.stride_h - cv.pad_h + kh * cv.dilation_h;
      if (ih < 0 || ih >= cv.in_h) continue;
      for (long kw = 0; kw < cv.kernel_w; ++kw) {
        const long iw = ow * cv.stride_w - cv.pad_w + kw * cv.dilation_w;
        if (iw >= 0 && iw < cv.in_w)
          acc = CONV_MAC(acc, input, IN_AT(n, first + c, ih, iw), weight, WEIGHT_AT(o, c, kh, kw));
      }
    }
  STORE(out, OUT_AT(n, o, oh, ow), CONV_OUT(acc));
}

// grad_input[n, ci, ih, iw] = sum over ci's group's output channels and the kernel
// positions whose output position reads (ih, iw) of grad_output * weight.
__kernel void convolution_backward_input_(__global T* grad_input, __global const T* grad_output,
                                          __global const T* weight, __global const T* unused,
                                          const bp_conv cv, const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  const long iw = i % cv.in_w, ih = i / cv.in_w % cv.in_h;
  const long ci = i / (cv.in_w * cv.in_h) % cv.in_channels;
  const long n = i / (cv.in_w * cv.in_h * cv.in_channels);
  const long in_group = cv.in_channels / cv.groups, out_group = cv.out_channels / cv.groups;
  const long group = ci / in_group, c = ci % in_group;
  CONV_ACC acc = 0;
  for (long o = group * out_group; o < (group + 1) * out_group; ++o)
    for (long kh = 0; kh < cv.kernel_h; ++kh) {
      const long oh = conv_output_position(ih, kh, cv.stride_h, cv.pad_h, cv.dilation_h, cv.out_h);
      if (oh < 0) continue;
      for (long kw = 0; kw < cv.kernel_w; ++kw) {
        const long ow =
            conv_output_position(iw, kw, cv.stride_w, cv.pad_w, cv.dilation_w, cv.out_w);
        if (ow >= 0)
          acc = CONV_MAC(acc, grad_output, OUT_AT(n, o, oh, ow), weight, WEIGHT_AT(o, c, kh, kw));
      }
    }
  STORE(grad_input, IN_AT(n, ci, ih, iw), CONV_OUT(acc));
}

// grad_weight[o, c, kh, kw] = sum over the batch and the output positions of
// grad_output[n, o, oh, ow] * input[n, g Cg + c, ih, iw].
__kernel void convolution_backward_weight_(__global T* grad_weight, __global const T* grad_output,
                                           __global const T* input, __global const T* unused,
                                           const bp_conv cv, const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  const long in_group = cv.in_channels / cv.groups, out_group = cv.out_channels / cv.groups;
  const long kw = i % cv.kernel_w, kh = i / cv.kernel_w % cv.kernel_h;
  const long c = i / (cv.kernel_w * cv.kernel_h) % in_group;
  const long o = i / (cv.kernel_w * cv.kernel_h * in_group);
  const long channel = o / out_group * in_group + c;
  CONV_ACC acc = 0;
  for (long n = 0; n < cv.batch; ++n)
    for (long oh = 0; oh < cv.out_h; ++oh) {
      const long ih = oh * cv.stride_h - cv.pad_h + kh * cv.dilation_h;
      if (ih < 0 || ih >= cv.in_h) continue;
      for (long ow = 0; ow < cv.out_w; ++ow) {
        const long iw = ow * cv.stride_w - cv.pad_w + kw * cv.dilation_w;
        if (iw >= 0 && iw < cv.in_w)
          acc = CONV_MAC(acc, grad_output, OUT_AT(n, o, oh, ow), input, IN_AT(n, channel, ih, iw));
      }
    }
  STORE(grad_weight, WEIGHT_AT(o, c, kh, kw), CONV_OUT(acc));
}
#endif
