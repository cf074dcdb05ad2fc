// max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d and their backward ops
// (compute-ops/pooling.cpp), floating dtypes: one work item per element of the result, in
// the order of the SDK's direct loops (sdk/pooling.hpp). The gradients gather (every input
// element sums the windows holding it), so no two work items write one element: no
// atomics, deterministic. Sums in double where the device has fp64, else in float.
// bp_pool gives the geometry and, per role (input, pooled output, indices), the strides and
// first-element offset in elements.

typedef struct {
  long batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w;
  long stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  long count_include_pad, divisor;  // divisor: divisor_override, or 0 for none
  long in_stride[4], out_stride[4], idx_stride[4];
  long in_offset, out_offset, idx_offset;
} bp_pool;

#ifdef BP_FLOATING
#ifdef BP_HAS_FP64
#define POOL_ACC double
#else
#define POOL_ACC float
#endif

#define POOL_AT(s, off, a, b, c, d) \
  ((off) + (a) * (s)[0] + (b) * (s)[1] + (c) * (s)[2] + (d) * (s)[3])
#define IN_AT(a, b, c, d) POOL_AT(pl.in_stride, pl.in_offset, a, b, c, d)
#define OUT_AT(a, b, c, d) POOL_AT(pl.out_stride, pl.out_offset, a, b, c, d)
#define IDX_AT(a, b, c, d) POOL_AT(pl.idx_stride, pl.idx_offset, a, b, c, d)

// The position (n, c, h, w) of element i of a [N, C, rows, cols] result.
#define POOL_POSITION(i, rows, cols)                     \
  const long w_ = (i) % (cols);                          \
  const long h_ = (i) / (cols) % (rows);                 \
  const long c_ = (i) / ((cols) * (rows)) % pl.channels; \
  const long n_ = (i) / ((cols) * (rows)*pl.channels)

inline long pool_floor_div(long x, long y) {
  return x >= 0 ? x / y : -((-x + y - 1) / y);
}

__kernel void max_pool2d_(__global T* out, __global long* indices, __global const T* self,
                          const bp_pool pl, const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  POOL_POSITION(i, pl.out_h, pl.out_w);
  const long h0 = h_ * pl.stride_h - pl.pad_h, w0 = w_ * pl.stride_w - pl.pad_w;
  C best = (C)0;
  long best_index = -1;
  for (long kh = 0; kh < pl.kernel_h; ++kh) {
    const long ih = h0 + kh * pl.dilation_h;
    if (ih < 0 || ih >= pl.in_h) continue;
    for (long kw = 0; kw < pl.kernel_w; ++kw) {
      const long iw = w0 + kw * pl.dilation_w;
      if (iw < 0 || iw >= pl.in_w) continue;
      const C x = LOAD(self, IN_AT(n_, c_, ih, iw));
      if (best_index < 0 || x > best || isnan(x)) {
        best = x;
        best_index = ih * pl.in_w + iw;
      }
    }
  }
  STORE(out, OUT_AT(n_, c_, h_, w_), best);
  indices[IDX_AT(n_, c_, h_, w_)] = best_index;
}

__kernel void max_pool2d_backward_(__global T* grad_input, __global const T* grad_output,
                                   __global const long* indices, const bp_pool pl,
                                   const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  POOL_POSITION(i, pl.in_h, pl.in_w);
  const long flat = h_ * pl.in_w + w_;
  POOL_ACC sum = 0;
  for (long kh = pl.kernel_h - 1; kh >= 0; --kh) {
    const long th = h_ + pl.pad_h - kh * pl.dilation_h;
    if (th < 0 || th % pl.stride_h != 0 || th / pl.stride_h >= pl.out_h) continue;
    const long oh = th / pl.stride_h;
    for (long kw = pl.kernel_w - 1; kw >= 0; --kw) {
      const long tw = w_ + pl.pad_w - kw * pl.dilation_w;
      if (tw < 0 || tw % pl.stride_w != 0 || tw / pl.stride_w >= pl.out_w) continue;
      const long ow = tw / pl.stride_w;
      if (indices[IDX_AT(n_, c_, oh, ow)] == flat)
        sum += (POOL_ACC)LOAD(grad_output, OUT_AT(n_, c_, oh, ow));
    }
  }
  STORE(grad_input, IN_AT(n_, c_, h_, w_), (C)sum);
}

// The window of output (oh, ow) clipped to the input, and the count PyTorch divides by.
typedef struct {
  long h0, h1, w0, w1, divisor;
} bp_avg_window;

inline bp_avg_window avg_window(const bp_pool* pl, long oh, long ow) {
  bp_avg_window win;
  win.h0 = oh * pl->stride_h - pl->pad_h;
  win.w0 = ow * pl->stride_w - pl->pad_w;
  win.h1 = min(win.h0 + pl->kernel_h, pl->in_h + pl->pad_h);
  win.w1 = min(win.w0 + pl->kernel_w, pl->in_w + pl->pad_w);
  const long padded = (win.h1 - win.h0) * (win.w1 - win.w0);
  win.h0 = max(win.h0, 0L);
  win.w0 = max(win.w0, 0L);
  win.h1 = min(win.h1, pl->in_h);
  win.w1 = min(win.w1, pl->in_w);
  win.divisor = pl->divisor != 0        ? pl->divisor
                : pl->count_include_pad ? padded
                                        : (win.h1 - win.h0) * (win.w1 - win.w0);
  return win;
}

__kernel void avg_pool2d_(__global T* out, __global const T* self, const bp_pool pl,
                          const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  POOL_POSITION(i, pl.out_h, pl.out_w);
  const bp_avg_window win = avg_window(&pl, h_, w_);
  POOL_ACC sum = 0;
  for (long ih = win.h0; ih < win.h1; ++ih)
    for (long iw = win.w0; iw < win.w1; ++iw) sum += (POOL_ACC)LOAD(self, IN_AT(n_, c_, ih, iw));
  const int empty = win.h0 >= win.h1 || win.w0 >= win.w1;
  STORE(out, OUT_AT(n_, c_, h_, w_), (C)(empty ? (POOL_ACC)0 : sum / (POOL_ACC)win.divisor));
}

__kernel void avg_pool2d_backward_(__global T* grad_input, __global const T* grad_output,
                                   const bp_pool pl, const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  POOL_POSITION(i, pl.in_h, pl.in_w);
  const long oh0 = max(0L, pool_floor_div(h_ + pl.pad_h - pl.kernel_h, pl.stride_h) + 1);
  const long oh1 = min(pl.out_h - 1, pool_floor_div(h_ + pl.pad_h, pl.stride_h));
  const long ow0 = max(0L, pool_floor_div(w_ + pl.pad_w - pl.kernel_w, pl.stride_w) + 1);
  const long ow1 = min(pl.out_w - 1, pool_floor_div(w_ + pl.pad_w, pl.stride_w));
  POOL_ACC sum = 0;
  for (long oh = oh0; oh <= oh1; ++oh)
    for (long ow = ow0; ow <= ow1; ++ow) {
      const bp_avg_window win = avg_window(&pl, oh, ow);
      sum += (POOL_ACC)LOAD(grad_output, OUT_AT(n_, c_, oh, ow)) / (POOL_ACC)win.divisor;
    }
  STORE(grad_input, IN_AT(n_, c_, h_, w_), (C)sum);
}

// Adaptive windows: output row o of `out` over `in` rows is [floor(o in / out),
// ceil((o + 1) in / out)).
inline long adaptive_start(long o, long out, long in) {
  return o * in / out;
}
inline long adaptive_end(long o, long out, long in) {
  return ((o + 1) * in + out - 1) / out;
}

__kernel void adaptive_avg_pool2d_(__global T* out, __global const T* self, const bp_pool pl,
                                   const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  POOL_POSITION(i, pl.out_h, pl.out_w);
  const long h0 = adaptive_start(h_, pl.out_h, pl.in_h), h1 = adaptive_end(h_, pl.out_h, pl.in_h);
  const long w0 = adaptive_start(w_, pl.out_w, pl.in_w), w1 = adaptive_end(w_, pl.out_w, pl.in_w);
  POOL_ACC sum = 0;
  for (long ih = h0; ih < h1; ++ih)
    for (long iw = w0; iw < w1; ++iw) sum += (POOL_ACC)LOAD(self, IN_AT(n_, c_, ih, iw));
  STORE(out, OUT_AT(n_, c_, h_, w_), (C)(sum / (POOL_ACC)((h1 - h0) * (w1 - w0))));
}

__kernel void adaptive_avg_pool2d_backward_(__global T* grad_input, __global const T* grad_output,
                                            const bp_pool pl, const long total) {
  const long i = get_global_id(0);
  if (i >= total) return;
  POOL_POSITION(i, pl.in_h, pl.in_w);
  const long oh0 = adaptive_start(h_, pl.in_h, pl.out_h);
  const long oh1 = min(pl.out_h, adaptive_end(h_, pl.in_h, pl.out_h));
  const long ow0 = adaptive_start(w_, pl.in_w, pl.out_w);
  const long ow1 = min(pl.out_w, adaptive_end(w_, pl.in_w, pl.out_w));
  POOL_ACC sum = 0;
  for (long oh = oh0; oh < oh1; ++oh) {
    const long h0 = adaptive_start(oh, pl.out_h, pl.in_h), h1 = adaptive_end(oh, pl.out_h, pl.in_h);
    if (h_ < h0 || h_ >= h1) continue;
    for (long ow = ow0; ow < ow1; ++ow) {
      const long w0 = adaptive_start(ow, pl.out_w, pl.in_w);
      const long w1 = adaptive_end(ow, pl.out_w, pl.in_w);
      if (w_ < w0 || w_ >= w1) continue;
      sum +=
          (POOL_ACC)LOAD(grad_output, OUT_AT(n_, c_, oh, ow)) / (POOL_ACC)((h1 - h0) * (w1 - w0));
    }
  }
  STORE(grad_input, IN_AT(n_, c_, h_, w_), (C)sum);
}
#endif
