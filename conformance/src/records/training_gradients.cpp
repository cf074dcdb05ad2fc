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
  out.push_back(OpRecord{"_log_softmax_backward_data", floating_dtypes(),
                         [](ScalarType dt) { return softmax_backward_samples(dt, /*log=*/true); }});
}

}  // namespace bp::conformance::detail
