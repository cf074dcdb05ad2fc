// The pooling ops on the shared kernels, core's `pooling` family (core/src/ops/pooling.cpp):
// max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d and their backward ops, on
// pooling.cl. One work item per element of the result (the gradients gather), no atomics.
// Kernels receive 4-D tensors and two-entry parameter lists (sdk/pooling.hpp checks them).
#include "ops_internal.hpp"

#include <backplane/sdk/pooling.hpp>

#include <initializer_list>
#include <span>

namespace bp::clk {
namespace {

constexpr const char* kPoolingProgram = "pooling";

// pooling.cl's bp_pool, same layout.
struct PoolArgs {
  int64_t batch, channels, in_h, in_w, out_h, out_w, kernel_h, kernel_w;
  int64_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  int64_t count_include_pad, divisor;
  int64_t in_stride[4], out_stride[4], idx_stride[4];
  int64_t in_offset, out_offset, idx_offset;
};

// The arguments of a call over `input` (full size) and `pooled`, with max pooling's
// `indices` when it has them.
PoolArgs pool_args(const sdk::PoolGeometry& g, const bp_tensor& input, const bp_tensor& pooled,
                   const bp_tensor* indices) {
  PoolArgs a{g.batch,
             g.channels,
             g.in_h,
             g.in_w,
             g.out_h,
             g.out_w,
             g.kernel_h,
             g.kernel_w,
             g.stride_h,
             g.stride_w,
             g.pad_h,
             g.pad_w,
             g.dilation_h,
             g.dilation_w,
             0,
             0,
             {},
             {},
             {},
             element_offset(input),
             element_offset(pooled),
             indices ? element_offset(*indices) : 0};
  for (int d = 0; d < 4; ++d) {
    a.in_stride[d] = input.strides[d];
    a.out_stride[d] = pooled.strides[d];
    a.idx_stride[d] = indices ? indices->strides[d] : 0;
  }
  return a;
}

// Launches `kernel` over the elements of `result` with `buffers` (the result first).
void launch(const bp_call* c, const char* kernel, const bp_tensor& result,
            std::initializer_list<const void*> buffers, const PoolArgs& args) {
  ComputeDevice& device = device_for(context_of(c), result.dtype);
  const int64_t total = numel(result);
  if (total == 0) return;
  // At most three buffers and the two values: no allocation per launch.
  KernelArg kernel_args[5];
  size_t n = 0;
  for (const void* b : buffers) kernel_args[n++] = memory_arg(b);
  kernel_args[n++] = value_arg(args);
  kernel_args[n++] = value_arg(total);
  device.launch(device.kernel(kPoolingProgram, variant(result.dtype), kernel),
                std::span<const KernelArg>(kernel_args, n), whole_groups(device, total));
}

sdk::StridedView view(const bp_tensor& t) {
  return sdk::StridedView(&t);
}

// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode)
//     -> (out, indices)
bp_status max_pool_kernel(const bp_call* c) {
  return guarded([&] {
    // The outputs are the last two arguments: values, then indices.
    const bp_tensor &self = tensor_arg(c, 0), &out = *c->args[c->nargs - 2].u.tensor,
                    &indices = output(c);
    const char* op = "max_pool2d_with_indices";
    const sdk::PoolGeometry g =
        sdk::check_pool2d(op, view(self), view(out), int_list_arg(c, 1), int_list_arg(c, 2),
                          int_list_arg(c, 3), int_list_arg(c, 4), c->args[5].u.b != 0);
    sdk::check_pool_indices(op, view(indices), view(out));
    launch(c, "max_pool2d_", out, {out.data, indices.data, self.data},
           pool_args(g, self, out, &indices));
  });
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding,
//     dilation, ceil_mode, indices) -> grad_input
bp_status max_pool_backward_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &grad = tensor_arg(c, 0), &indices = tensor_arg(c, 7), &out = output(c);
    const char* op = "max_pool2d_with_indices_backward";
    const sdk::PoolGeometry g =
        sdk::check_pool2d(op, view(out), view(grad), int_list_arg(c, 2), int_list_arg(c, 3),
                          int_list_arg(c, 4), int_list_arg(c, 5), c->args[6].u.b != 0);
    sdk::check_pool_indices(op, view(indices), view(grad));
    launch(c, "max_pool2d_backward_", out, {out.data, grad.data, indices.data},
           pool_args(g, out, grad, &indices));
  });
}

// avg_pool2d's count_include_pad and divisor_override (0 for None) at args[first...].
PoolArgs with_divisor(PoolArgs a, const bp_call* c, size_t first) {
  a.count_include_pad = c->args[first].u.b != 0;
  a.divisor = c->args[first + 1].tag == BP_VALUE_INT ? c->args[first + 1].u.i : 0;
  return a;
}

// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
//     divisor_override) -> out
bp_status avg_pool_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &self = tensor_arg(c, 0), &out = output(c);
    const sdk::PoolGeometry g = sdk::check_pool2d(
        "avg_pool2d", view(self), view(out), int_list_arg(c, 1), int_list_arg(c, 2),
        int_list_arg(c, 3), sdk::kNoDilation, c->args[4].u.b != 0);
    launch(c, "avg_pool2d_", out, {out.data, self.data},
           with_divisor(pool_args(g, self, out, nullptr), c, 5));
  });
}

// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
//     count_include_pad, divisor_override) -> grad_input
bp_status avg_pool_backward_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &grad = tensor_arg(c, 0), &out = output(c);
    const sdk::PoolGeometry g = sdk::check_pool2d(
        "avg_pool2d_backward", view(out), view(grad), int_list_arg(c, 2), int_list_arg(c, 3),
        int_list_arg(c, 4), sdk::kNoDilation, c->args[5].u.b != 0);
    launch(c, "avg_pool2d_backward_", out, {out.data, grad.data},
           with_divisor(pool_args(g, out, grad, nullptr), c, 6));
  });
}

// _adaptive_avg_pool2d(self, output_size) -> out
bp_status adaptive_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &self = tensor_arg(c, 0), &out = output(c);
    const sdk::PoolGeometry g =
        sdk::check_adaptive_pool2d("_adaptive_avg_pool2d", view(self), view(out));
    launch(c, "adaptive_avg_pool2d_", out, {out.data, self.data}, pool_args(g, self, out, nullptr));
  });
}

// _adaptive_avg_pool2d_backward(grad_output, self) -> grad_input
bp_status adaptive_backward_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor &grad = tensor_arg(c, 0), &out = output(c);
    const sdk::PoolGeometry g =
        sdk::check_adaptive_pool2d("_adaptive_avg_pool2d_backward", view(out), view(grad));
    launch(c, "adaptive_avg_pool2d_backward_", out, {out.data, grad.data},
           pool_args(g, out, grad, nullptr));
  });
}

}  // namespace

void register_pooling(OpRegistrar& ops) {
  constexpr bp_dtype_mask kFloating = BP_DTYPES_FLOATING;
  ops.add("max_pool2d_with_indices", kFloating, max_pool_kernel);
  ops.add("max_pool2d_with_indices_backward", kFloating, max_pool_backward_kernel);
  ops.add("avg_pool2d", kFloating, avg_pool_kernel);
  ops.add("avg_pool2d_backward", kFloating, avg_pool_backward_kernel);
  ops.add("_adaptive_avg_pool2d", kFloating, adaptive_kernel);
  ops.add("_adaptive_avg_pool2d_backward", kFloating, adaptive_backward_kernel);
}

}  // namespace bp::clk
