// 2-D pooling of op set v2 (issue 28), primitives in PyTorch's schemas:
//   max_pool2d_with_indices           the largest element of each window and its flat index
//   max_pool2d_with_indices_backward  the gradient, gathered through those indices
//   avg_pool2d, avg_pool2d_backward   the windows' means (count_include_pad,
//                                     divisor_override) and their gradient
//   _adaptive_avg_pool2d, _adaptive_avg_pool2d_backward
//                                     the means of windows that tile the input
// Floating dtypes only, as PyTorch 1.13's CPU. The meta rules hand kernels 4-D tensors (an
// unbatched [C, H, W] input as N = 1) and two-entry parameter lists (docs/pooling.md).
#include "meta_util.hpp"
#include "register.hpp"

#include <algorithm>
#include <optional>
#include <string_view>

namespace bp::ops {
namespace {

// One entry per spatial dim from a list of one or two (PyTorch accepts both), each at least
// `min_value`. `fallback` stands in for an empty list (stride=[] is the kernel size).
Shape pool_list(const OpDef& op, std::span<const IValue> args, size_t i, int64_t min_value,
                const Shape* fallback = nullptr) {
  const Shape& given = args[i].int_list();
  if (given.empty() && fallback) return *fallback;
  BP_CHECK(given.size() == 1 || given.size() == 2, ErrorCode::InvalidArgument,
           "{}: argument '{}' = {} must have 1 or 2 entries", op.name, arg_name(op, i),
           shape_str(given));
  for (const int64_t v : given)
    BP_CHECK(v >= min_value, ErrorCode::InvalidArgument, "{}: argument '{}' = {} must be {}",
             op.name, arg_name(op, i), shape_str(given),
             min_value > 0 ? "positive" : "non-negative");
  return given.size() == 2 ? given : Shape{given[0], given[0]};
}

// The pooled input: [C, H, W] or [N, C, H, W], floating, every dim but the batch non-empty.
void check_pool_input(const OpDef& op, const Tensor& self) {
  const std::string_view name = "self";
  BP_CHECK(self.dim() == 3 || self.dim() == 4, ErrorCode::Shape,
           "{}: {} has shape {}; pooling takes [C, H, W] or [N, C, H, W]", op.name, name,
           shape_str(self.sizes()));
  check_floating(op, "input 'self'", self.dtype());
  for (int64_t d = self.dim() - 3; d < self.dim(); ++d)
    BP_CHECK(self.size(d) > 0, ErrorCode::Shape,
             "{}: {} has shape {}; only the batch dim may be empty", op.name, name,
             shape_str(self.sizes()));
}

struct Window {
  Shape kernel, stride, padding, dilation{1, 1};
};

// kernel_size, stride, padding (and dilation) from args[first...]; padding at most half
// the kernel, as PyTorch requires.
Window read_window(const OpDef& op, std::span<const IValue> args, size_t first, bool has_dilation) {
  Window w;
  w.kernel = pool_list(op, args, first, 1);
  w.stride = pool_list(op, args, first + 1, 1, &w.kernel);
  w.padding = pool_list(op, args, first + 2, 0);
  if (has_dilation) w.dilation = pool_list(op, args, first + 3, 1);
  for (size_t d = 0; d < 2; ++d)
    BP_CHECK(w.padding[d] <= w.kernel[d] / 2, ErrorCode::InvalidArgument,
             "{}: padding {} must be at most half the kernel size {}", op.name,
             shape_str(w.padding), shape_str(w.kernel));
  return w;
}

// PyTorch's pooled size of one dim (pooling_output_shape).
int64_t pooled(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const int64_t span = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (span >= 0 ? span / s : -((-span + s - 1) / s)) + 1;
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

// The pooled shape of `self` (3-D or 4-D): N, C and each pooled spatial dim, which must be
// positive.
Shape pooled_shape(const OpDef& op, const Tensor& self, const Window& w, bool ceil_mode) {
  Shape out(self.sizes().begin(), self.sizes().end() - 2);
  for (size_t d = 0; d < 2; ++d) {
    const int64_t in = self.size(self.dim() - 2 + static_cast<int64_t>(d));
    const int64_t size =
        pooled(in, w.kernel[d], w.stride[d], w.padding[d], w.dilation[d], ceil_mode);
    BP_CHECK(size > 0, ErrorCode::Shape,
             "{}: input of shape {} with kernel_size {}, stride {}, padding {}, dilation {} "
             "gives an output of size {} in spatial dim {}; it must be positive",
             op.name, shape_str(self.sizes()), shape_str(w.kernel), shape_str(w.stride),
             shape_str(w.padding), shape_str(w.dilation), size, d);
    out.push_back(size);
  }
  return out;
}

// `sizes` as the kernel sees it: an unbatched [C, H, W] as [1, C, H, W].
TensorMeta pool_output(Shape sizes, ScalarType dtype) {
  if (sizes.size() == 4) return TensorMeta{std::move(sizes), dtype, std::nullopt};
  Shape kernel{1, sizes[0], sizes[1], sizes[2]};
  return TensorMeta{std::move(sizes), dtype, std::move(kernel)};
}

// Rewrites the call into the kernels' form: 3-D tensors get a size-1 batch dim, the window
// lists two entries each.
void to_kernel_form(std::span<IValue> args, std::initializer_list<size_t> tensors, size_t first,
                    const Window& w, bool has_dilation) {
  for (const size_t i : tensors)
    if (args[i].tensor().dim() == 3) args[i] = IValue(args[i].tensor().unsqueeze(0));
  args[first] = IValue(w.kernel);
  args[first + 1] = IValue(w.stride);
  args[first + 2] = IValue(w.padding);
  if (has_dilation) args[first + 3] = IValue(w.dilation);
}

// A tensor argument that must have `shape` (the forward's output) and `dtype`.
void check_like(const OpDef& op, std::span<const IValue> args, size_t i, const Shape& shape,
                ScalarType dtype) {
  const Tensor& t = tensor_arg(op, args, i);
  BP_CHECK(t.sizes() == shape, ErrorCode::Shape,
           "{}: argument '{}' has shape {}, but the pooled output has {}", op.name, arg_name(op, i),
           shape_str(t.sizes()), shape_str(shape));
  BP_CHECK(t.dtype() == dtype, ErrorCode::Type, "{}: argument '{}' has dtype {}; expected {}",
           op.name, arg_name(op, i), dtype_name(t.dtype()), dtype_name(dtype));
}

// max_pool2d_with_indices(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=[0],
//     int[] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)
MetaResult max_pool_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_pool_input(op, self);
  const Window w = read_window(op, args, 1, true);
  Shape out = pooled_shape(op, self, w, args[5].to_bool());
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(pool_output(out, self.dtype()));
  r.outputs.push_back(pool_output(std::move(out), ScalarType::Int64));
  to_kernel_form(args, {0}, 1, w, true);
  return r;
}

// max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[] kernel_size,
//     int[] stride, int[] padding, int[] dilation, bool ceil_mode, Tensor indices)
MetaResult max_pool_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 1);
  check_pool_input(op, self);
  const Window w = read_window(op, args, 2, true);
  const Shape out = pooled_shape(op, self, w, args[6].to_bool());
  check_like(op, args, 0, out, self.dtype());
  check_like(op, args, 7, out, ScalarType::Int64);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(pool_output(self.sizes(), self.dtype()));
  to_kernel_form(args, {0, 1, 7}, 2, w, true);
  return r;
}

// A non-zero divisor_override (argument i), as PyTorch requires.
void check_divisor(const OpDef& op, std::span<const IValue> args, size_t i) {
  BP_CHECK(args[i].is_none() || args[i].to_int() != 0, ErrorCode::InvalidArgument,
           "{}: argument 'divisor_override' is 0; it must be non-zero (or None)", op.name);
}

// avg_pool2d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=[0],
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None)
MetaResult avg_pool_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_pool_input(op, self);
  const Window w = read_window(op, args, 1, false);
  check_divisor(op, args, 6);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(pool_output(pooled_shape(op, self, w, args[4].to_bool()), self.dtype()));
  to_kernel_form(args, {0}, 1, w, false);
  return r;
}

// avg_pool2d_backward(Tensor grad_output, Tensor self, int[] kernel_size, int[] stride,
//     int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override)
MetaResult avg_pool_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 1);
  check_pool_input(op, self);
  const Window w = read_window(op, args, 2, false);
  check_divisor(op, args, 7);
  check_like(op, args, 0, pooled_shape(op, self, w, args[5].to_bool()), self.dtype());
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(pool_output(self.sizes(), self.dtype()));
  to_kernel_form(args, {0, 1}, 2, w, false);
  return r;
}

// _adaptive_avg_pool2d(Tensor self, int[2] output_size): non-negative sizes.
MetaResult adaptive_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& self = tensor_arg(op, args, 0);
  check_pool_input(op, self);
  const Shape& size = args[1].int_list();
  BP_CHECK(size[0] >= 0 && size[1] >= 0, ErrorCode::InvalidArgument,
           "{}: argument 'output_size' = {} must not be negative", op.name, shape_str(size));
  Shape out(self.sizes().begin(), self.sizes().end() - 2);
  out.push_back(size[0]);
  out.push_back(size[1]);
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(pool_output(std::move(out), self.dtype()));
  if (self.dim() == 3) args[0] = IValue(self.unsqueeze(0));
  return r;
}

// _adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self): grad_output has self's
// N and C (and rank) and any positive spatial size.
MetaResult adaptive_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& self = tensor_arg(op, args, 1);
  check_pool_input(op, self);
  BP_CHECK(grad.dim() == self.dim() && grad.dtype() == self.dtype() &&
               std::equal(self.sizes().begin(), self.sizes().end() - 2, grad.sizes().begin()),
           ErrorCode::Shape,
           "{}: grad_output ({} of shape {}) does not fit self ({} of shape {}): same dtype, "
           "rank and dims before the last two",
           op.name, dtype_name(grad.dtype()), shape_str(grad.sizes()), dtype_name(self.dtype()),
           shape_str(self.sizes()));
  MetaResult r;
  r.compute_dtype = self.dtype();
  r.outputs.push_back(pool_output(self.sizes(), self.dtype()));
  for (const size_t i : {size_t{0}, size_t{1}})
    if (args[i].tensor().dim() == 3) args[i] = IValue(args[i].tensor().unsqueeze(0));
  return r;
}

}  // namespace

void register_pooling_ops(Catalog& c) {
  c.add(
      {"max_pool2d_with_indices(Tensor self, int[] kernel_size, int[] stride=[], "
       "int[] padding=[0], int[] dilation=[1], bool ceil_mode=False) -> (Tensor, Tensor)",
       OpKind::Primitive, max_pool_meta});
  c.add(
      {"max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, "
       "int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode, "
       "Tensor indices) -> Tensor",
       OpKind::Primitive, max_pool_backward_meta});
  c.add(
      {"avg_pool2d(Tensor self, int[] kernel_size, int[] stride=[], int[] padding=[0], "
       "bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) "
       "-> Tensor",
       OpKind::Primitive, avg_pool_meta});
  c.add(
      {"avg_pool2d_backward(Tensor grad_output, Tensor self, int[] kernel_size, "
       "int[] stride, int[] padding, bool ceil_mode, bool count_include_pad, "
       "int? divisor_override) -> Tensor",
       OpKind::Primitive, avg_pool_backward_meta});
  c.add({"_adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor", OpKind::Primitive,
         adaptive_meta});
  c.add({"_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor",
         OpKind::Primitive, adaptive_backward_meta});
}

}  // namespace bp::ops
