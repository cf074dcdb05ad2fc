// The list of gradient checks (gradient_checks.hpp): each backward op of the training op set
// (docs/training.md) with the forward op it differentiates, over a few shapes and each
// variant of its arguments (gelu's approximation, softmax's dim, a loss's reduction, class
// weights and ignored rows).
#include "backplane/conformance/gradient_checks.hpp"

#include <array>
#include <optional>
#include <utility>

namespace bp::conformance {
namespace {

constexpr ScalarType kF64 = ScalarType::Float64;

Tensor on(const Tensor& t, Device device) {
  return bp::to(t, device);
}

// x ~ N(0, 1) moved 0.25 away from 0, so no direction of the check crosses relu's kink.
Tensor away_from_zero(InputMaker& in, const Shape& sizes) {
  const Tensor x = in.tensor(as_ref(sizes), kF64);
  return bp::add(x, bp::sign(x), 0.25);
}

using Forward = std::function<Tensor(const Tensor&)>;
using Backward = std::function<Tensor(const Tensor&, const Tensor&, Device)>;

GradientCheck check(std::string op, std::string sample, Shape sizes, Forward f, Backward b,
                    bool avoid_zero = false) {
  std::string name = op + "." + sample;
  return GradientCheck{std::move(name), std::move(op), [=](InputMaker& in) {
                         Tensor x = avoid_zero ? away_from_zero(in, sizes)
                                               : in.tensor(as_ref(sizes), kF64);
                         return GradientProblem{x, f, b};
                       }};
}

void add_activation_checks(std::vector<GradientCheck>& out) {
  const Shape s{6, 7};
  out.push_back(check(
      "threshold_backward", "relu_6x7", s, [](const Tensor& x) { return bp::relu(x); },
      [](const Tensor& g, const Tensor& x, Device d) {
        return bp::threshold_backward(on(g, d), on(x, d), 0);
      },
      /*avoid_zero=*/true));
  for (const char* approximate : {"none", "tanh"}) {
    const std::string form = approximate;
    out.push_back(check(
        "gelu_backward", form + "_6x7", s, [form](const Tensor& x) { return bp::gelu(x, form); },
        [form](const Tensor& g, const Tensor& x, Device d) {
          return bp::gelu_backward(on(g, d), on(x, d), form);
        }));
  }
  out.push_back(check(
      "silu_backward", "rows_6x7", s, [](const Tensor& x) { return bp::silu(x); },
      [](const Tensor& g, const Tensor& x, Device d) {
        return bp::silu_backward(on(g, d), on(x, d));
      }));
  // sigmoid and tanh take the forward output, computed on the reference.
  out.push_back(check(
      "sigmoid_backward", "rows_6x7", s, [](const Tensor& x) { return bp::sigmoid(x); },
      [](const Tensor& g, const Tensor& x, Device d) {
        return bp::sigmoid_backward(on(g, d), on(bp::sigmoid(x), d));
      }));
  out.push_back(check(
      "tanh_backward", "rows_6x7", s, [](const Tensor& x) { return bp::tanh(x); },
      [](const Tensor& g, const Tensor& x, Device d) {
        return bp::tanh_backward(on(g, d), on(bp::tanh(x), d));
      }));
}

void add_softmax_checks(std::vector<GradientCheck>& out) {
  const std::pair<const char*, std::pair<Shape, int64_t>> cases[] = {
      {"dim1_5x8", {{5, 8}, 1}}, {"dim0_5x8", {{5, 8}, 0}}, {"middle_3x4x5", {{3, 4, 5}, 1}}};
  for (const bool log : {false, true}) {
    const std::string op = log ? "_log_softmax_backward_data" : "_softmax_backward_data";
    for (const auto& [sample, shape_dim] : cases) {
      const int64_t dim = shape_dim.second;
      auto forward = [log, dim](const Tensor& x) {
        return log ? bp::log_softmax(x, dim) : bp::softmax(x, dim);
      };
      out.push_back(check(op, sample, shape_dim.first, forward,
                          [log, dim, forward](const Tensor& g, const Tensor& x, Device d) {
                            const Tensor y = on(forward(x), d);
                            return log ? bp::_log_softmax_backward_data(on(g, d), y, dim, kF64)
                                       : bp::_softmax_backward_data(on(g, d), y, dim, kF64);
                          }));
    }
  }
}

// The checks' fixed tensors (targets, weights, the inputs a check does not differentiate)
// are drawn when a case runs, from these seeds: the list itself holds no tensor (a static
// one would outlive the runtime's allocator).
constexpr uint64_t kMseSeed = 27, kNllSeed = 28, kLayerNormSeed = 29, kEmbeddingSeed = 30,
                   kConvolutionSeed = 31, kBatchNormSeed = 32, kGroupNormSeed = 33,
                   kIndexingSeed = 34;

struct Reduction {
  int64_t value;
  const char* name;
};
constexpr Reduction kReductions[] = {
    {kReductionNone, "none"}, {kReductionMean, "mean"}, {kReductionSum, "sum"}};

// mse_loss over each reduction, with a target of the input's shape and a broadcast one.
void add_mse_checks(std::vector<GradientCheck>& out) {
  for (const Reduction& reduction : kReductions) {
    for (const bool row : {false, true}) {
      const int64_t r = reduction.value;
      const std::string op = "mse_loss_backward";
      out.push_back(GradientCheck{
          op + "." + reduction.name + (row ? "_row_target_5x6" : "_5x6"), op,
          [r, row](InputMaker& in) {
            InputMaker fixed(kMseSeed);
            const Tensor t = row ? fixed.tensor({6}, kF64) : fixed.tensor({5, 6}, kF64);
            return GradientProblem{in.tensor({5, 6}, kF64),
                                   [t, r](const Tensor& x) { return bp::mse_loss(x, t, r); },
                                   [t, r](const Tensor& g, const Tensor& x, Device d) {
                                     return bp::mse_loss_backward(on(g, d), on(x, d), on(t, d), r);
                                   }};
          }});
    }
  }
}

// nll_loss over each reduction, with class weights and an ignored row; and one 1-D row.
GradientProblem nll_problem(InputMaker& in, int64_t r, bool row) {
  InputMaker fixed(kNllSeed);
  const Tensor weight = fixed.tensor({5}, kF64, Values::Positive);
  const Tensor t = row ? fixed.from_doubles({}, ScalarType::Int64, {3})
                       : fixed.from_doubles({7}, ScalarType::Int64, {1, 4, -100, 0, 3, 1, 2});
  auto nll = [weight, t, r](const Tensor& x) {
    return bp::nll_loss_forward(x, t, weight, r, -100);
  };
  return GradientProblem{in.tensor(row ? Shape{5} : Shape{7, 5}, kF64),
                         [nll](const Tensor& x) { return nll(x)[0]; },
                         [nll, t, weight, r](const Tensor& g, const Tensor& x, Device d) {
                           return bp::nll_loss_backward(on(g, d), on(x, d), on(t, d), on(weight, d),
                                                        r, -100, on(nll(x)[1], d));
                         }};
}

void add_nll_checks(std::vector<GradientCheck>& out) {
  for (const Reduction& reduction : kReductions) {
    for (const bool row : {false, true}) {
      const int64_t r = reduction.value;
      const std::string op = "nll_loss_backward";
      out.push_back(GradientCheck{op + "." + reduction.name + (row ? "_row_5" : "_weighted_7x5"),
                                  op,
                                  [r, row](InputMaker& in) { return nll_problem(in, r, row); }});
    }
  }
}

// native_layer_norm over two normalized dims, differentiated with respect to argument
// `which` (0 input, 1 weight, 2 bias), the others fixed; the gradient with its mask alone set.
GradientProblem layer_norm_problem(InputMaker& in, size_t which) {
  InputMaker fixed(kLayerNormSeed);
  std::array<Tensor, 3> fixed_args = {fixed.tensor({4, 3, 5}, kF64), fixed.tensor({3, 5}, kF64),
                                      fixed.tensor({3, 5}, kF64)};
  const std::vector<int64_t> norm{3, 5};
  // The call's (input, weight, bias) with `v` as argument `which`.
  auto with = [fixed_args, which](const Tensor& v) {
    std::array<Tensor, 3> a = fixed_args;
    a[which] = v;
    return a;
  };
  auto forward = [with, norm](const Tensor& v) {
    const auto a = with(v);
    return bp::native_layer_norm(a[0], norm, a[1], a[2], 1e-5)[0];
  };
  auto backward = [with, norm, which](const Tensor& g, const Tensor& v, Device d) {
    const auto a = with(v);
    const std::vector<Tensor> stats = bp::native_layer_norm(a[0], norm, a[1], a[2], 1e-5);
    std::array<bool, 3> mask{};
    mask[which] = true;
    return bp::native_layer_norm_backward(on(g, d), on(a[0], d), norm, on(stats[1], d),
                                          on(stats[2], d), on(a[1], d), on(a[2], d), mask)[which];
  };
  return GradientProblem{in.tensor(as_ref(fixed_args[which].sizes()), kF64), forward, backward};
}

void add_layer_norm_checks(std::vector<GradientCheck>& out) {
  const std::string op = "native_layer_norm_backward";
  const char* samples[] = {"input_4x3x5", "weight_3x5", "bias_3x5"};
  for (size_t which = 0; which < 3; ++which)
    out.push_back(GradientCheck{op + "." + samples[which], op,
                                [which](InputMaker& in) { return layer_norm_problem(in, which); }});
}

// embedding's gradient with respect to its weight [9, 4], over 12 indices with repeats (rows
// 0..5 only, so rows 6..8 get none); no padding_idx or frequency scaling, which are not the
// derivative of the forward op.
void add_embedding_checks(std::vector<GradientCheck>& out) {
  const std::string op = "embedding_dense_backward";
  out.push_back(GradientCheck{
      op + ".repeated_indices_3x4", op, [](InputMaker& in) {
        InputMaker fixed(kEmbeddingSeed);
        const Tensor indices = fixed.indices({3, 4}, 0, 5);
        return GradientProblem{in.tensor({9, 4}, kF64),
                               [indices](const Tensor& w) { return bp::embedding(w, indices); },
                               [indices](const Tensor& g, const Tensor& w, Device d) {
                                 return bp::embedding_dense_backward(on(g, d), on(indices, d),
                                                                     w.size(0), -1, false);
                               }};
      }});
}

std::vector<int64_t> sizes_of(const Tensor& t) {
  return {t.sizes().begin(), t.sizes().end()};
}

// A convolution whose gradients are checked: the arguments of bp::convolution.
struct ConvolutionCase {
  const char* name;
  Shape input, weight;
  std::vector<int64_t> stride, padding, dilation;
  bool transposed;
  std::vector<int64_t> output_padding;
  int64_t groups;
};

// A strided, padded, dilated, grouped 2-D convolution and a transposed 1-D one.
const ConvolutionCase kConvolutionCases[] = {
    {"groups2_stride2_dilated_2x4x7x6",
     {2, 4, 7, 6},
     {6, 2, 3, 2},
     {2, 1},
     {1, 0},
     {1, 2},
     false,
     {0},
     2},
    {"transposed_conv1d_2x3x5", {2, 3, 5}, {3, 2, 3}, {2}, {1}, {1}, true, {1}, 1},
};

// convolution's gradient (convolution_backward) with respect to argument `which` (0 input,
// 1 weight, 2 bias), the others fixed, with its mask alone set; or, with `primitive`, the
// primitive of that gradient (convolution_backward_input / _weight) differentiating
// convolution_forward.
GradientProblem convolution_problem(InputMaker& in, const ConvolutionCase& c, size_t which,
                                    bool primitive) {
  InputMaker fixed(kConvolutionSeed);
  const int64_t channels = c.transposed ? c.weight[1] * c.groups : c.weight[0];
  std::array<Tensor, 3> fixed_args = {fixed.tensor(as_ref(c.input), kF64),
                                      fixed.tensor(as_ref(c.weight), kF64),
                                      fixed.tensor({channels}, kF64)};
  auto with = [fixed_args, which](const Tensor& v) {
    std::array<Tensor, 3> a = fixed_args;
    a[which] = v;
    return a;
  };
  auto forward = [with, c](const Tensor& v) {
    const auto a = with(v);
    return bp::convolution(a[0], a[1], a[2], c.stride, c.padding, c.dilation, c.transposed,
                           c.output_padding, c.groups);
  };
  auto backward = [with, c, which, channels, primitive](const Tensor& g, const Tensor& v,
                                                        Device d) {
    const auto a = with(v);
    if (primitive)
      return which == 0
                 ? bp::convolution_backward_input(on(g, d), on(a[1], d), sizes_of(a[0]), c.stride,
                                                  c.padding, c.dilation, c.groups)
                 : bp::convolution_backward_weight(on(g, d), on(a[0], d), sizes_of(a[1]), c.stride,
                                                   c.padding, c.dilation, c.groups);
    std::array<bool, 3> mask{};
    mask[which] = true;
    return bp::convolution_backward(on(g, d), on(a[0], d), on(a[1], d),
                                    std::vector<int64_t>{channels}, c.stride, c.padding, c.dilation,
                                    c.transposed, c.output_padding, c.groups, mask)[which];
  };
  return GradientProblem{in.tensor(as_ref(fixed_args[which].sizes()), kF64), forward, backward};
}

void add_convolution_checks(std::vector<GradientCheck>& out) {
  const char* arguments[] = {"input", "weight", "bias"};
  for (const ConvolutionCase& c : kConvolutionCases)
    for (size_t which = 0; which < 3; ++which) {
      const std::string op = "convolution_backward";
      out.push_back(GradientCheck{
          op + "." + arguments[which] + "_" + c.name, op,
          [c, which](InputMaker& in) { return convolution_problem(in, c, which, false); }});
    }
  const ConvolutionCase& plain = kConvolutionCases[0];
  for (size_t which = 0; which < 2; ++which) {
    const std::string op =
        which == 0 ? "convolution_backward_input" : "convolution_backward_weight";
    out.push_back(GradientCheck{op + "." + plain.name, op, [plain, which](InputMaker& in) {
                                  return convolution_problem(in, plain, which, true);
                                }});
  }
}

// The pooling gradients: max pooling (its indices from the reference's forward at x, whose
// values are distinct, so each window's maximum is a smooth function of x), average pooling
// with ceil_mode and the padding not counted, and adaptive pooling with overlapping windows.
void add_pooling_checks(std::vector<GradientCheck>& out) {
  const Shape s{2, 3, 7, 7};
  out.push_back(check(
      "max_pool2d_with_indices_backward", "k3_s2_p1_2x3x7x7", s,
      [](const Tensor& x) { return bp::max_pool2d_with_indices(x, {3}, {2}, {1})[0]; },
      [](const Tensor& g, const Tensor& x, Device d) {
        const Tensor indices = bp::max_pool2d_with_indices(x, {3}, {2}, {1})[1];
        return bp::max_pool2d_with_indices_backward(on(g, d), on(x, d), {3}, {2}, {1}, {1}, false,
                                                    on(indices, d));
      }));
  out.push_back(check(
      "avg_pool2d_backward", "ceil_exclude_pad_2x3x7x7", s,
      [](const Tensor& x) { return bp::avg_pool2d(x, {3}, {2}, {1}, true, false); },
      [](const Tensor& g, const Tensor& x, Device d) {
        return bp::avg_pool2d_backward(on(g, d), on(x, d), {3}, {2}, {1}, true, false,
                                       std::nullopt);
      }));
  out.push_back(check(
      "_adaptive_avg_pool2d_backward", "overlapping_to_3x5_2x3x7x7", s,
      [](const Tensor& x) {
        return bp::_adaptive_avg_pool2d(x, {3, 5});
      },
      [](const Tensor& g, const Tensor& x, Device d) {
        return bp::_adaptive_avg_pool2d_backward(on(g, d), on(x, d));
      }));
}

// native_batch_norm in training (the statistics of the input) and in evaluation (fixed
// running statistics), differentiated with respect to argument `which` (0 input, 1 weight,
// 2 bias), the others fixed; the gradient with its mask alone set.
GradientProblem batch_norm_problem(InputMaker& in, size_t which, bool training) {
  InputMaker fixed(kBatchNormSeed);
  std::array<Tensor, 3> fixed_args = {fixed.tensor({3, 4, 2, 3}, kF64), fixed.tensor({4}, kF64),
                                      fixed.tensor({4}, kF64)};
  const Tensor running_mean = fixed.tensor({4}, kF64, Values::Unit);
  const Tensor running_var = fixed.tensor({4}, kF64, Values::Positive);
  auto with = [fixed_args, which](const Tensor& v) {
    std::array<Tensor, 3> a = fixed_args;
    a[which] = v;
    return a;
  };
  // Each call gets its own running statistics: training updates them in place.
  auto forward_of = [=](const std::array<Tensor, 3>& a) {
    return bp::native_batch_norm(a[0], a[1], a[2], bp::clone(running_mean), bp::clone(running_var),
                                 training, 0.1, 1e-5);
  };
  auto forward = [with, forward_of](const Tensor& v) { return forward_of(with(v))[0]; };
  auto backward = [=](const Tensor& g, const Tensor& v, Device d) {
    const auto a = with(v);
    const std::vector<Tensor> saved = forward_of(a);
    std::array<bool, 3> mask{};
    mask[which] = true;
    const auto saved_or_none = [&](size_t i) {
      return training ? std::optional<Tensor>(on(saved[i], d)) : std::nullopt;
    };
    return bp::native_batch_norm_backward(on(g, d), on(a[0], d), on(a[1], d), on(running_mean, d),
                                          on(running_var, d), saved_or_none(1), saved_or_none(2),
                                          training, 1e-5, mask)[which];
  };
  return GradientProblem{in.tensor(as_ref(fixed_args[which].sizes()), kF64), forward, backward};
}

void add_batch_norm_checks(std::vector<GradientCheck>& out) {
  const std::string op = "native_batch_norm_backward";
  const char* samples[] = {"input", "weight", "bias"};
  for (const bool training : {true, false})
    for (size_t which = 0; which < 3; ++which)
      out.push_back(GradientCheck{
          op + "." + samples[which] + (training ? "_train" : "_eval") + "_3x4x2x3", op,
          [which, training](InputMaker& in) { return batch_norm_problem(in, which, training); }});
}

// native_group_norm of [3, 4, 2, 3] in 2 groups, differentiated with respect to argument
// `which` (0 input, 1 weight, 2 bias), the others fixed.
GradientProblem group_norm_problem(InputMaker& in, size_t which) {
  InputMaker fixed(kGroupNormSeed);
  std::array<Tensor, 3> fixed_args = {fixed.tensor({3, 4, 2, 3}, kF64), fixed.tensor({4}, kF64),
                                      fixed.tensor({4}, kF64)};
  auto with = [fixed_args, which](const Tensor& v) {
    std::array<Tensor, 3> a = fixed_args;
    a[which] = v;
    return a;
  };
  auto forward_of = [](const std::array<Tensor, 3>& a) {
    return bp::native_group_norm(a[0], a[1], a[2], 3, 4, 6, 2, 1e-5);
  };
  auto forward = [with, forward_of](const Tensor& v) { return forward_of(with(v))[0]; };
  auto backward = [with, forward_of, which](const Tensor& g, const Tensor& v, Device d) {
    const auto a = with(v);
    const std::vector<Tensor> saved = forward_of(a);
    std::array<bool, 3> mask{};
    mask[which] = true;
    return bp::native_group_norm_backward(on(g, d), on(a[0], d), on(saved[1], d), on(saved[2], d),
                                          on(a[1], d), 3, 4, 6, 2, mask)[which];
  };
  return GradientProblem{in.tensor(as_ref(fixed_args[which].sizes()), kF64), forward, backward};
}

void add_group_norm_checks(std::vector<GradientCheck>& out) {
  const std::string op = "native_group_norm_backward";
  const char* samples[] = {"input", "weight", "bias"};
  for (size_t which = 0; which < 3; ++which)
    out.push_back(GradientCheck{op + "." + samples[which] + "_groups2_3x4x2x3", op,
                                [which](InputMaker& in) { return group_norm_problem(in, which); }});
}

// What PyTorch's autograd calls for the gradients of advanced indexing: index.Tensor's is
// index_put with accumulate into zeros (repeated and negative rows add up), masked_select's
// is masked_scatter into zeros.
void add_indexing_checks(std::vector<GradientCheck>& out) {
  out.push_back(GradientCheck{
      "index_put.index_gradient_repeats_5x4", "index_put", [](InputMaker& in) {
        InputMaker fixed(kIndexingSeed);
        const Tensor rows = fixed.indices({7}, -5, 4);
        return GradientProblem{in.tensor({5, 4}, kF64),
                               [rows](const Tensor& x) { return bp::index(x, {rows}); },
                               [rows](const Tensor& g, const Tensor& x, Device d) {
                                 return bp::index_put(bp::zeros(as_ref(x.sizes()), kF64, d),
                                                      {on(rows, d)}, on(g, d), true);
                               }};
      }});
  out.push_back(GradientCheck{
      "masked_scatter.masked_select_gradient_5x4", "masked_scatter", [](InputMaker& in) {
        InputMaker fixed(kIndexingSeed);
        const Tensor mask = fixed.mask({5, 4});
        return GradientProblem{in.tensor({5, 4}, kF64),
                               [mask](const Tensor& x) { return bp::masked_select(x, mask); },
                               [mask](const Tensor& g, const Tensor& x, Device d) {
                                 return bp::masked_scatter(bp::zeros(as_ref(x.sizes()), kF64, d),
                                                           on(mask, d), on(g, d));
                               }};
      }});
}

}  // namespace

const std::vector<GradientCheck>& gradient_checks() {
  static const std::vector<GradientCheck> checks = [] {
    std::vector<GradientCheck> out;
    add_activation_checks(out);
    add_softmax_checks(out);
    add_mse_checks(out);
    add_nll_checks(out);
    add_layer_norm_checks(out);
    add_embedding_checks(out);
    add_convolution_checks(out);
    add_pooling_checks(out);
    add_batch_norm_checks(out);
    add_group_norm_checks(out);
    add_indexing_checks(out);
    return out;
  }();
  return checks;
}

}  // namespace bp::conformance
