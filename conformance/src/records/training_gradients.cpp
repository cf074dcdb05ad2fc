// Conformance records of the gradient ops autograd calls: the activation gradients
// (threshold_backward, gelu_backward in both forms, silu_backward, sigmoid_backward,
// tanh_backward) and the softmax gradients (_softmax_backward_data,
// _log_softmax_backward_data). Each runs over layouts, 0-d, empty, broadcasting, special
// values, mixed dtypes and large sizes, with the error inputs of its meta rule. The
// gradients' agreement with the forward ops' derivatives is checked separately
// (tests/conformance/test_gradient_check.cpp, finite differences on the reference).
#include "elementwise_common.hpp"

#include <limits>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;

// An activation gradient: (grad_output, x, tail...), x drawn from `x_values`.
struct GradientOp {
  const char* name;
  DtypeSet dtypes;
  Values x_values;
  std::vector<IValue> tail;  // the arguments after the two tensors
  std::string prefix = {};   // prepended to sample names (gelu's tanh form)
};

Args gradient_args(Tensor grad, Tensor x, const std::vector<IValue>& tail) {
  Args args{IValue(std::move(grad)), IValue(std::move(x))};
  args.insert(args.end(), tail.begin(), tail.end());
  return args;
}

void add_gradient_samples(std::vector<Sample>& out, const GradientOp& op, ScalarType dt) {
  const Values xv = op.x_values;
  const std::vector<IValue> tail = op.tail;
  auto add = [&](const char* name, bool quick, Shape g, Shape x, Layout lg = Layout::Contiguous,
                 Layout lx = Layout::Contiguous, Values values = Values::Normal) {
    const Values x_values = values == Values::Normal ? xv : values;
    MakeArgs make = [=](InputMaker& in) {
      return gradient_args(in.tensor(as_ref(g), dt, Values::Normal, lg),
                           in.tensor(as_ref(x), dt, x_values, lx), tail);
    };
    const std::string full = op.prefix + name;
    out.push_back(quick ? quick_sample(full, make) : full_sample(full, make));
  };
  add("contiguous_7x13", true, {7, 13}, {7, 13});
  add("scalar_0d", true, {}, {});
  add("empty_0x5", true, {0, 5}, {0, 5});
  add("transposed_17x9", true, {17, 9}, {17, 9}, Layout::Transposed, Layout::Contiguous);
  add("strided_5x8", true, {5, 8}, {5, 8}, Layout::Contiguous, Layout::Strided);
  add("broadcast_grad_1x9", true, {1, 9}, {6, 9});
  add("broadcast_x_6x1", true, {6, 9}, {6, 1});
  add("special_values_4x8", true, {4, 8}, {4, 8}, Layout::Contiguous, Layout::Contiguous,
      Values::Special);
  add("offset_33", false, {33}, {33}, Layout::Offset, Layout::Offset);
  add("permuted_3x4x5", false, {3, 4, 5}, {3, 4, 5}, Layout::Permuted, Layout::Permuted);
  add("wide_9x127", false, {9, 127}, {9, 127}, Layout::Contiguous, Layout::Contiguous,
      Values::Wide);
  add("large_256x1031", false, {256, 1031}, {256, 1031});
  // The gradient of another dtype: both are converted to the promoted dtype.
  const ScalarType partner = partner_dtype(dt);
  out.push_back(quick_sample(
      op.prefix + "mixed_" + std::string(dtype_name(partner)) + "_6x5", [=](InputMaker& in) {
        return gradient_args(in.tensor({6, 5}, partner), in.tensor({6, 5}, dt, xv), tail);
      }));
  out.push_back(error_sample(op.prefix + "error_shapes", "broadcast", [=](InputMaker& in) {
    return gradient_args(in.tensor({3, 4}, dt), in.tensor({5}, dt, xv), tail);
  }));
}

// threshold_backward's own samples: thresholds at, above and below the values, integral
// thresholds of integer dtypes, and one that does not fit the dtype.
void add_threshold_samples(std::vector<Sample>& out, ScalarType dt) {
  const Scalar at = is_floating(dt) ? Scalar(0.5) : Scalar(int64_t{2});
  out.push_back(quick_sample("threshold_ties_6x5", [=](InputMaker& in) {
    return Args{in.tensor({6, 5}, dt), in.tensor({6, 5}, dt, Values::Ties), at};
  }));
  if (dt != ScalarType::Int64 && !is_floating(dt)) {
    out.push_back(error_sample("error_threshold_overflow", "overflow", [=](InputMaker& in) {
      return Args{in.tensor({3}, dt), in.tensor({3}, dt), Scalar(int64_t{1} << 40)};
    }));
  }
}

std::vector<Sample> gradient_samples(const GradientOp& op, ScalarType dt) {
  std::vector<Sample> out;
  add_gradient_samples(out, op, dt);
  if (std::string_view(op.name) == "threshold_backward") add_threshold_samples(out, dt);
  return out;
}

// ---- _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim,
//      input_dtype) ----------------------------------------------------------------------------

// output: a softmax (or log_softmax) of random logits, as autograd hands it.
MakeArgs softmax_backward_of(ScalarType dt, Shape sizes, int64_t dim, bool log, Layout layout,
                             Values values = Values::Normal) {
  return [=](InputMaker& in) {
    Tensor logits = in.tensor(as_ref(sizes), dt, values, layout);
    Tensor y = log ? bp::log_softmax(logits, dim) : bp::softmax(logits, dim);
    return Args{in.tensor(as_ref(sizes), dt, Values::Normal, layout), y, IValue(dim), dt};
  };
}

std::vector<Sample> softmax_backward_samples(ScalarType dt, bool log) {
  std::vector<Sample> out;
  auto add = [&](const char* name, bool quick, Shape sizes, int64_t dim,
                 Layout layout = Layout::Contiguous, Values values = Values::Normal) {
    const int64_t k = row_length(sizes, dim);
    MakeArgs make = softmax_backward_of(dt, sizes, dim, log, layout, values);
    out.push_back(quick ? quick_sample(name, make, k) : full_sample(name, make, k));
  };
  add("last_dim_7x13", true, {7, 13}, -1);
  add("first_dim_7x13", true, {7, 13}, 0);
  add("scalar_0d", true, {}, 0);
  add("empty_0x5", true, {0, 5}, 1);
  add("transposed_17x9", true, {17, 9}, -1, Layout::Transposed);
  add("strided_5x8", true, {5, 8}, 1, Layout::Strided);
  add("special_values_4x8", true, {4, 8}, 1, Layout::Contiguous, Values::Special);
  add("middle_dim_3x5x4", false, {3, 5, 4}, 1);
  add("permuted_3x4x5", false, {3, 4, 5}, 2, Layout::Permuted);
  add("large_256x1031", false, {256, 1031}, 1);
  // input_dtype is not read (the result has the gradient's dtype), except that an f32
  // gradient of an f16 input (half_to_float) is refused.
  const ScalarType other = dt == ScalarType::Float64 ? ScalarType::Float32 : ScalarType::Float64;
  out.push_back(quick_sample(
      "input_dtype_" + std::string(dtype_name(other)) + "_7x13",
      [=](InputMaker& in) {
        Args args = softmax_backward_of(dt, {7, 13}, 1, log, Layout::Contiguous)(in);
        args[3] = other;
        return args;
      },
      13));
  if (dt == ScalarType::Float32) {
    out.push_back(error_sample("error_half_to_float", "half_to_float", [=](InputMaker& in) {
      return Args{in.tensor({3, 4}, dt), in.tensor({3, 4}, dt), IValue(int64_t{1}),
                  ScalarType::Float16};
    }));
  }
  out.push_back(error_sample("error_shapes", "must be equal", [=](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), in.tensor({4, 3}, dt), IValue(int64_t{1}), dt};
  }));
  out.push_back(error_sample("error_dim_out_of_range", "argument 'dim'", [=](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), in.tensor({3, 4}, dt), IValue(int64_t{2}), dt};
  }));
  return out;
}

// ---- native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
//      output_mask) ---------------------------------------------------------------------------
// mean and rstd come from the reference's native_layer_norm of the input, as autograd saves
// them. Every sample asks for all three gradients: the runner compares every output, and a
// masked one is undefined (the differential and bridge tests cover the masks).
struct LayerNormGradCase {
  const char* name;
  bool quick;
  Shape sizes, norm;
  bool weight, bias;
  Layout layout = Layout::Contiguous;
};

Args layer_norm_backward_args(InputMaker& in, ScalarType dt, const LayerNormGradCase& c) {
  const Tensor x = in.tensor(as_ref(c.sizes), dt, Values::Normal, c.layout);
  const std::optional<Tensor> w =
      c.weight ? std::optional<Tensor>(in.tensor(as_ref(c.norm), dt)) : std::nullopt;
  const std::optional<Tensor> b =
      c.bias ? std::optional<Tensor>(in.tensor(as_ref(c.norm), dt)) : std::nullopt;
  const std::vector<Tensor> stats =
      bp::native_layer_norm(x, std::vector<int64_t>(c.norm.begin(), c.norm.end()), w, b, 1e-5);
  const Tensor grad = in.tensor(as_ref(c.sizes), dt, Values::Normal, c.layout);
  return Args{grad,
              x,
              IValue(c.norm),
              stats[1],
              stats[2],
              w ? IValue(*w) : IValue(),
              b ? IValue(*b) : IValue(),
              IValue(Shape{1, 1, 1})};
}

std::vector<Sample> layer_norm_backward_samples(ScalarType dt) {
  static const LayerNormGradCase cases[] = {
      {"affine_7x13", true, {7, 13}, {13}, true, true},
      {"plain_5x9", true, {5, 9}, {9}, false, false},
      {"two_dims_3x4x5", true, {3, 4, 5}, {4, 5}, true, true},
      {"vector_33", true, {33}, {33}, true, true},
      {"empty_batch_0x5", true, {0, 5}, {5}, true, true},
      {"transposed_17x9", true, {17, 9}, {9}, true, true, Layout::Transposed},
      {"permuted_3x4x5", false, {3, 4, 5}, {5}, true, false, Layout::Permuted},
      {"large_256x1031", false, {256, 1031}, {1031}, true, true},
  };
  std::vector<Sample> out;
  for (const LayerNormGradCase& c : cases) {
    MakeArgs make = [dt, c](InputMaker& in) { return layer_norm_backward_args(in, dt, c); };
    const int64_t k =
        std::max(numel_of(c.sizes) / std::max<int64_t>(numel_of(c.norm), 1), numel_of(c.norm));
    out.push_back(c.quick ? quick_sample(c.name, make, k) : full_sample(c.name, make, k));
  }
  out.push_back(error_sample("error_stats_shape", "does not fit", [dt](InputMaker& in) {
    Args args = layer_norm_backward_args(in, dt, {"", true, {4, 6}, {6}, false, false});
    args[3] = in.tensor({6, 4}, dt);
    return args;
  }));
  out.push_back(error_sample("error_mask_value", "bool list", [dt](InputMaker& in) {
    Args args = layer_norm_backward_args(in, dt, {"", true, {4, 6}, {6}, false, false});
    args[7] = IValue(Shape{1, 2, 0});
    return args;
  }));
  return out;
}

}  // namespace

void add_gradient_records(std::vector<OpRecord>& out) {
  const GradientOp ops[] = {
      {"threshold_backward", DtypeSet::NoBool, Values::Ties, {IValue(Scalar(int64_t{0}))}},
      {"silu_backward", DtypeSet::Floating, Values::Normal, {}},
      {"sigmoid_backward", DtypeSet::Floating, Values::Unit, {}},
      {"tanh_backward", DtypeSet::Floating, Values::Unit, {}},
  };
  for (const GradientOp& op : ops)
    out.push_back(OpRecord{op.name, dtypes_of(op.dtypes),
                           [op](ScalarType dt) { return gradient_samples(op, dt); }});
  out.push_back(OpRecord{
      "gelu_backward", floating_dtypes(), [](ScalarType dt) {
        std::vector<Sample> samples;
        const GradientOp erf{"gelu_backward", DtypeSet::Floating, Values::Normal, {}};
        const GradientOp tanh{"gelu_backward",
                              DtypeSet::Floating,
                              Values::Normal,
                              {IValue(std::string("tanh"))},
                              "tanh_"};
        add_gradient_samples(samples, erf, dt);
        add_gradient_samples(samples, tanh, dt);
        samples.push_back(error_sample("error_approximate", "approximate", [dt](InputMaker& in) {
          return Args{in.tensor({3}, dt), in.tensor({3}, dt), IValue(std::string("exact"))};
        }));
        return samples;
      }});
  out.push_back(OpRecord{"_softmax_backward_data", floating_dtypes(), [](ScalarType dt) {
                           return softmax_backward_samples(dt, /*log=*/false);
                         }});
  out.push_back(
      OpRecord{"native_layer_norm_backward", floating_dtypes(), layer_norm_backward_samples});
  out.push_back(OpRecord{"_log_softmax_backward_data", floating_dtypes(),
                         [](ScalarType dt) { return softmax_backward_samples(dt, /*log=*/true); }});
}

}  // namespace bp::conformance::detail
