// Convolution of op set v2 (issue 28), 1-D and 2-D, in PyTorch's layout (input [N, C, *],
// weight [O, C/groups, *]):
//   convolution_forward          primitive: out = bias + sum over the group's channels and
//                                the kernel window of input * weight
//   convolution_backward_input   primitive: the gradient of the input (a transposed
//                                convolution of grad_output by the weight)
//   convolution_backward_weight  primitive: the gradient of the weight (input correlated with
//                                grad_output over the batch and the output positions)
//   convolution                  composite, PyTorch's schema: transposed=false is
//                                convolution_forward, transposed=true is
//                                convolution_backward_input (+ bias)
//   convolution_backward         composite, the arguments of PyTorch's
//                                convolution_backward_overrideable: the three primitives and a
//                                sum over grad_output for the bias
// The primitives' meta rules hand kernels 4-D tensors (a 1-D convolution as H = 1) and
// two-entry stride, padding and dilation lists (docs/convolution.md).
#include "composite_util.hpp"
#include "meta_util.hpp"
#include "register.hpp"

#include <array>
#include <string>

namespace bp::ops {
namespace {

// Stride, padding and dilation for the spatial dims, as the user gave them (one entry, or
// one per spatial dim), read from args[first], args[first + 1], args[first + 2].
struct ConvParams {
  Shape stride, padding, dilation;
};

// One entry per spatial dim: a single entry applies to every dim, as in PyTorch. Positive
// stride and dilation, non-negative padding.
Shape spatial_list(const OpDef& op, std::span<const IValue> args, size_t i, size_t spatial,
                   int64_t min_value) {
  const Shape& given = args[i].int_list();
  BP_CHECK(given.size() == 1 || given.size() == spatial, ErrorCode::InvalidArgument,
           "{}: argument '{}' = {} must have 1 or {} entries, one per spatial dim", op.name,
           arg_name(op, i), shape_str(given), spatial);
  for (const int64_t v : given)
    BP_CHECK(v >= min_value, ErrorCode::InvalidArgument, "{}: argument '{}' = {} must be {}",
             op.name, arg_name(op, i), shape_str(given),
             min_value > 0 ? "positive" : "non-negative");
  return given.size() == spatial ? given : Shape(spatial, given[0]);
}

ConvParams read_params(const OpDef& op, std::span<const IValue> args, size_t first,
                       size_t spatial) {
  return {spatial_list(op, args, first, spatial, 1), spatial_list(op, args, first + 1, spatial, 0),
          spatial_list(op, args, first + 2, spatial, 1)};
}

// The shape of a convolution's input ([N, C, *]) or weight ([O, C/groups, *]): 3 or 4 dims,
// the weight's rank equal to the input's.
void check_conv_rank(const OpDef& op, std::string_view what, IntArrayRef sizes,
                     size_t expected_rank) {
  BP_CHECK(sizes.size() == 3 || sizes.size() == 4, ErrorCode::Shape,
           "{}: {} has shape {}; a 1-D convolution takes 3 dims [N, C, L] and a 2-D one 4 dims "
           "[N, C, H, W]",
           op.name, what, shape_str(sizes));
  BP_CHECK(expected_rank == 0 || sizes.size() == expected_rank, ErrorCode::Shape,
           "{}: {} has shape {}, but the other operand has {} dims; they must agree", op.name, what,
           shape_str(sizes), expected_rank);
}

// Groups divide the weight's output channels; input channels = weight.size(1) * groups.
void check_channels(const OpDef& op, IntArrayRef input, IntArrayRef weight, int64_t groups) {
  BP_CHECK(groups > 0, ErrorCode::InvalidArgument, "{}: argument 'groups' = {} must be positive",
           op.name, groups);
  BP_CHECK(weight[0] % groups == 0, ErrorCode::Shape,
           "{}: weight of shape {} has {} output channels, which groups = {} does not divide",
           op.name, shape_str(weight), weight[0], groups);
  BP_CHECK(input[1] == weight[1] * groups, ErrorCode::Shape,
           "{}: input of shape {} has {} channels, but weight of shape {} with groups = {} "
           "expects {}",
           op.name, shape_str(input), input[1], shape_str(weight), groups, weight[1] * groups);
}

// The output [N, O, *] of convolving `input` with `weight`; each spatial dim is
// (in + 2 padding - dilation (kernel - 1) - 1) / stride + 1, and the padded input must hold
// the dilated kernel.
Shape conv_output_shape(const OpDef& op, IntArrayRef input, IntArrayRef weight,
                        const ConvParams& p) {
  Shape out{input[0], weight[0]};
  for (size_t d = 0; d + 2 < input.size(); ++d) {
    const int64_t padded = input[d + 2] + 2 * p.padding[d];
    const int64_t span = p.dilation[d] * (weight[d + 2] - 1) + 1;
    BP_CHECK(padded >= span, ErrorCode::Shape,
             "{}: spatial dim {} of the input is {} after padding, smaller than the dilated "
             "kernel ({}); input {}, weight {}",
             op.name, d, padded, span, shape_str(input), shape_str(weight));
    out.push_back((padded - span) / p.stride[d] + 1);
  }
  return out;
}

// A tensor argument's dtype must be `dtype` (PyTorch does not promote convolution operands).
void check_same_dtype_as(const OpDef& op, std::span<const IValue> args, size_t i, ScalarType dtype,
                         std::string_view other) {
  const Tensor& t = tensor_arg(op, args, i);
  BP_CHECK(t.dtype() == dtype, ErrorCode::Type,
           "{}: argument '{}' has dtype {}, but '{}' has {}; they must match", op.name,
           arg_name(op, i), dtype_name(t.dtype()), other, dtype_name(dtype));
}

// Rewrites the call into the kernels' form: 3-D tensors get a size-1 dim 2, the parameter
// lists two entries ([1, s], [0, p], [1, d] for a 1-D convolution).
void to_kernel_form(std::span<IValue> args, std::initializer_list<size_t> tensors, size_t first,
                    const ConvParams& p) {
  const bool one_d = p.stride.size() == 1;
  for (const size_t i : tensors)
    if (one_d) args[i] = IValue(args[i].tensor().unsqueeze(2));
  args[first] = IValue(one_d ? Shape{1, p.stride[0]} : p.stride);
  args[first + 1] = IValue(one_d ? Shape{0, p.padding[0]} : p.padding);
  args[first + 2] = IValue(one_d ? Shape{1, p.dilation[0]} : p.dilation);
}

// `sizes` as the kernel sees it: a 1-D convolution's [N, C, L] as [N, C, 1, L].
TensorMeta kernel_output(Shape sizes, ScalarType dtype) {
  if (sizes.size() != 3) return TensorMeta{std::move(sizes), dtype, std::nullopt};
  Shape kernel{sizes[0], sizes[1], 1, sizes[2]};
  return TensorMeta{std::move(sizes), dtype, std::move(kernel)};
}

// convolution_forward(Tensor input, Tensor weight, Tensor? bias, int[] stride,
//     int[] padding, int[] dilation, int groups): every dtype but bool, one dtype for all.
MetaResult forward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& input = tensor_arg(op, args, 0);
  const Tensor& weight = tensor_arg(op, args, 1);
  check_conv_rank(op, "input", as_ref(input.sizes()), 0);
  check_conv_rank(op, "weight", as_ref(weight.sizes()), input.sizes().size());
  check_not_bool(op, "input 'input'", input.dtype());
  check_same_dtype_as(op, args, 1, input.dtype(), "input");
  if (const Tensor* bias = optional_tensor_arg(op, args, 2)) {
    check_same_dtype_as(op, args, 2, input.dtype(), "input");
    BP_CHECK(bias->sizes() == Shape{weight.size(0)}, ErrorCode::Shape,
             "{}: bias has shape {}, but weight of shape {} needs [{}]", op.name,
             shape_str(bias->sizes()), shape_str(weight.sizes()), weight.size(0));
  }
  check_channels(op, as_ref(input.sizes()), as_ref(weight.sizes()), args[6].to_int());
  const ConvParams p = read_params(op, args, 3, input.sizes().size() - 2);
  Shape out = conv_output_shape(op, as_ref(input.sizes()), as_ref(weight.sizes()), p);
  MetaResult r;
  r.compute_dtype = input.dtype();
  r.outputs.push_back(kernel_output(std::move(out), input.dtype()));
  to_kernel_form(args, {0, 1}, 3, p);
  return r;
}

// The gradient primitives: grad_output (argument 0) and a second operand of one floating
// dtype... or any dtype but bool (transposed convolution uses backward_input); `sizes`
// (argument 2) is the shape of the result, whose forward convolution must give
// grad_output's shape.
MetaResult backward_meta(const OpDef& op, std::span<IValue> args, bool wants_input) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& other = tensor_arg(op, args, 1);
  const Shape& sizes = args[2].int_list();
  check_not_bool(op, "input 'grad_output'", grad.dtype());
  check_same_dtype_as(op, args, 1, grad.dtype(), "grad_output");
  check_conv_rank(op, wants_input ? "'input_size'" : "'weight_size'", as_ref(sizes), 0);
  check_conv_rank(op, wants_input ? "weight" : "input", as_ref(other.sizes()), sizes.size());
  for (const int64_t s : sizes)
    BP_CHECK(s >= 0, ErrorCode::InvalidArgument, "{}: argument '{}' = {} has a negative size",
             op.name, arg_name(op, 2), shape_str(sizes));
  const IntArrayRef input = wants_input ? as_ref(sizes) : as_ref(other.sizes());
  const IntArrayRef weight = wants_input ? as_ref(other.sizes()) : as_ref(sizes);
  check_channels(op, input, weight, args[6].to_int());
  const ConvParams p = read_params(op, args, 3, sizes.size() - 2);
  const Shape expected = conv_output_shape(op, input, weight, p);
  BP_CHECK(grad.sizes() == expected, ErrorCode::Shape,
           "{}: grad_output has shape {}, but the convolution of input {} by weight {} gives {}",
           op.name, shape_str(grad.sizes()), shape_str(input), shape_str(weight),
           shape_str(expected));
  MetaResult r;
  r.compute_dtype = grad.dtype();
  r.outputs.push_back(kernel_output(sizes, grad.dtype()));
  to_kernel_form(args, {0, 1}, 3, p);
  if (sizes.size() == 3) args[2] = IValue(Shape{sizes[0], sizes[1], 1, sizes[2]});
  return r;
}

MetaResult backward_input_meta(const OpDef& op, std::span<IValue> args) {
  return backward_meta(op, args, true);
}
MetaResult backward_weight_meta(const OpDef& op, std::span<IValue> args) {
  return backward_meta(op, args, false);
}

// The output [N, O, *] of convolution(input, weight, ..., transposed, output_padding,
// groups) with input at args[input_i], weight after it and stride, padding, dilation,
// transposed, output_padding and groups from args[first_param] on, in that order. A
// transposed weight is [C_in, C_out / groups, *], and each spatial dim of the output is
// (in - 1) stride - 2 padding + dilation (kernel - 1) + output_padding + 1.
Shape convolution_output(const OpDef& op, std::span<const IValue> args, size_t input_i,
                         size_t first_param) {
  const Tensor& input = tensor_arg(op, args, input_i);
  const Tensor& weight = tensor_arg(op, args, input_i + 1);
  const IntArrayRef in = as_ref(input.sizes()), w = as_ref(weight.sizes());
  check_conv_rank(op, "input", in, 0);
  check_conv_rank(op, "weight", w, in.size());
  const size_t spatial = in.size() - 2;
  const ConvParams p = read_params(op, args, first_param, spatial);
  const Shape output_padding = spatial_list(op, args, first_param + 4, spatial, 0);
  const int64_t groups = args[first_param + 5].to_int();
  if (!args[first_param + 3].to_bool()) {
    check_channels(op, in, w, groups);
    return conv_output_shape(op, in, w, p);
  }
  // Transposed: the forward convolution of the output by the weight gives the input.
  BP_CHECK(groups > 0, ErrorCode::InvalidArgument, "{}: argument 'groups' = {} must be positive",
           op.name, groups);
  BP_CHECK(w[0] == in[1] && w[0] % groups == 0, ErrorCode::Shape,
           "{}: input of shape {} has {} channels, but a transposed convolution's weight "
           "[C_in, C_out / groups, *] has shape {}: its dim 0 must be the {} input channels, "
           "divisible by groups = {}",
           op.name, shape_str(in), in[1], shape_str(w), in[1], groups);
  Shape out{in[0], w[1] * groups};
  for (size_t d = 0; d < spatial; ++d) {
    BP_CHECK(output_padding[d] < p.stride[d], ErrorCode::InvalidArgument,
             "{}: output_padding = {} must be smaller than stride = {} in every dim (PyTorch "
             "also takes it below dilation; docs/convolution.md)",
             op.name, shape_str(output_padding), shape_str(p.stride));
    const int64_t size = (in[d + 2] - 1) * p.stride[d] - 2 * p.padding[d] +
                         p.dilation[d] * (w[d + 2] - 1) + output_padding[d] + 1;
    BP_CHECK(size > 0, ErrorCode::Shape,
             "{}: the transposed convolution of input {} by weight {} has spatial dim {} of "
             "size {}; it must be positive",
             op.name, shape_str(in), shape_str(w), d, size);
    out.push_back(size);
  }
  return out;
}

// convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding,
//     int[] dilation, bool transposed, int[] output_padding, int groups): PyTorch's form.
MetaResult convolution_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& input = tensor_arg(op, args, 0);
  check_not_bool(op, "input 'input'", input.dtype());
  check_same_dtype_as(op, args, 1, input.dtype(), "input");
  Shape out = convolution_output(op, args, 0, 3);
  if (const Tensor* bias = optional_tensor_arg(op, args, 2)) {
    check_same_dtype_as(op, args, 2, input.dtype(), "input");
    BP_CHECK(bias->sizes() == Shape{out[1]}, ErrorCode::Shape,
             "{}: bias has shape {}, but the output has {} channels", op.name,
             shape_str(bias->sizes()), out[1]);
  }
  MetaResult r;
  r.compute_dtype = input.dtype();
  r.outputs.push_back(TensorMeta{std::move(out), input.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> convolution_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kForward = op_id("convolution_forward");
  static const OpId kBackwardInput = op_id("convolution_backward_input");
  static const OpId kAdd = op_id("add.Tensor");
  if (!args[6].to_bool())
    return {ctx.call1(kForward, {args[0], args[1], args[2], args[3], args[4], args[5], args[8]})};
  const OpDef& op = Catalog::get().at("convolution");
  const Shape out_size = convolution_output(op, args, 0, 3);
  Tensor out = ctx.call1(kBackwardInput,
                         {args[0], args[1], IValue(out_size), args[3], args[4], args[5], args[8]});
  const Tensor* bias = optional_tensor(args[2]);
  if (!bias) return {out};
  Shape bias_view(out_size.size(), 1);
  bias_view[1] = out_size[1];
  return {ctx.call1(kAdd, {out, bias->view(as_ref(bias_view)), Scalar(1)})};
}

// convolution_backward(Tensor grad_output, Tensor input, Tensor weight, int[]? bias_sizes,
//     int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding,
//     int groups, bool[3] output_mask) -> (grad_input, grad_weight, grad_bias): floating
// operands of one dtype, grad_output of the forward's output shape, bias_sizes (when given
// and the bias gradient wanted) one entry per output channel; a gradient whose mask is false is
// left undefined, as PyTorch leaves it.
MetaResult convolution_backward_meta(const OpDef& op, std::span<IValue> args) {
  const Tensor& grad = tensor_arg(op, args, 0);
  const Tensor& input = tensor_arg(op, args, 1);
  const Tensor& weight = tensor_arg(op, args, 2);
  check_floating(op, "input 'grad_output'", grad.dtype());
  check_same_dtype_as(op, args, 1, grad.dtype(), "grad_output");
  check_same_dtype_as(op, args, 2, grad.dtype(), "grad_output");
  const Shape expected = convolution_output(op, args, 1, 4);
  BP_CHECK(grad.sizes() == expected, ErrorCode::Shape,
           "{}: grad_output has shape {}, but the convolution's output has {}", op.name,
           shape_str(grad.sizes()), shape_str(expected));
  // PyTorch's autograd passes [0] for a convolution without bias (whose gradient it does not
  // ask for): the sizes are checked only when the bias gradient is wanted.
  const bool bias_wanted = args[10].int_list().size() == 3 && args[10].int_list()[2] != 0;
  BP_CHECK(!bias_wanted || args[3].is_none() || args[3].int_list() == Shape{expected[1]},
           ErrorCode::Shape, "{}: argument 'bias_sizes' = {}, but the output has {} channels",
           op.name, args[3].is_none() ? std::string("None") : shape_str(args[3].int_list()),
           expected[1]);
  MetaResult r;
  r.compute_dtype = grad.dtype();
  r.outputs.push_back(TensorMeta{input.sizes(), grad.dtype(), std::nullopt});
  r.outputs.push_back(TensorMeta{weight.sizes(), grad.dtype(), std::nullopt});
  r.outputs.push_back(TensorMeta{Shape{expected[1]}, grad.dtype(), std::nullopt});
  return r;
}

std::vector<Tensor> convolution_backward_decompose(OpContext& ctx, std::span<const IValue> args) {
  static const OpId kForward = op_id("convolution_forward");
  static const OpId kBackwardInput = op_id("convolution_backward_input");
  static const OpId kBackwardWeight = op_id("convolution_backward_weight");
  static const OpId kSum = op_id("sum.dim_IntList");
  const IValue &grad = args[0], &input = args[1], &weight = args[2];
  const IValue &stride = args[4], &padding = args[5], &dilation = args[6], &groups = args[9];
  const Shape& mask = args[10].int_list();
  const bool transposed = args[7].to_bool();
  const IValue input_size(input.tensor().sizes()), weight_size(weight.tensor().sizes());
  std::vector<Tensor> out(3);
  if (mask[0])
    out[0] = transposed
                 ? ctx.call1(kForward, {grad, weight, IValue(), stride, padding, dilation, groups})
                 : ctx.call1(kBackwardInput,
                             {grad, weight, input_size, stride, padding, dilation, groups});
  // A transposed convolution's weight gradient is the forward's with the roles of input and
  // grad_output exchanged.
  if (mask[1])
    out[1] = ctx.call1(kBackwardWeight, {transposed ? input : grad, transposed ? grad : input,
                                         weight_size, stride, padding, dilation, groups});
  if (mask[2]) {
    const int64_t rank = grad.tensor().dim();
    Shape dims{0};
    for (int64_t d = 2; d < rank; ++d) dims.push_back(d);
    out[2] = ctx.call1(kSum, {grad, IValue(std::move(dims)), false, IValue()});
  }
  return out;
}

}  // namespace

void register_convolution_primitives(Catalog& c) {
  c.add(
      {"convolution_forward(Tensor input, Tensor weight, Tensor? bias, int[] stride, "
       "int[] padding, int[] dilation, int groups) -> Tensor",
       OpKind::Primitive, forward_meta});
  c.add(
      {"convolution_backward_input(Tensor grad_output, Tensor weight, int[] input_size, "
       "int[] stride, int[] padding, int[] dilation, int groups) -> Tensor",
       OpKind::Primitive, backward_input_meta});
  c.add(
      {"convolution_backward_weight(Tensor grad_output, Tensor input, int[] weight_size, "
       "int[] stride, int[] padding, int[] dilation, int groups) -> Tensor",
       OpKind::Primitive, backward_weight_meta});
}

void register_convolution_composites(Catalog& c) {
  c.add(
      {"convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
       "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
       OpKind::Composite, convolution_meta, convolution_decompose});
  c.add(
      {"convolution_backward(Tensor grad_output, Tensor input, Tensor weight, "
       "int[]? bias_sizes, int[] stride, int[] padding, int[] dilation, bool transposed, "
       "int[] output_padding, int groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
       OpKind::Composite, convolution_backward_meta, convolution_backward_decompose});
}

}  // namespace bp::ops
