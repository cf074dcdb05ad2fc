// The list of gradient checks (gradient_checks.hpp): each backward op of the training op set
// (docs/training.md) with the forward op it differentiates, over a few shapes and each
// variant of its arguments (gelu's approximation, softmax's dim, a loss's reduction, class
// weights and ignored rows).
#include "backplane/conformance/gradient_checks.hpp"

#include <array>
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

// mse_loss over each reduction, with a target of the input's shape and a broadcast one.
void add_mse_checks(std::vector<GradientCheck>& out, InputMaker targets) {
  const Tensor target = targets.tensor({5, 6}, kF64);
  const Tensor row_target = targets.tensor({6}, kF64);
  for (const auto& [reduction_value, name] :
       {std::pair<int64_t, const char*>{kReductionNone, "none"},
        {kReductionMean, "mean"},
        {kReductionSum, "sum"}}) {
    const int64_t reduction = reduction_value;  // a plain copy: lambdas capture it
    for (const Tensor& t : {target, row_target}) {
      const std::string sample = std::string(name) + (t.dim() == 1 ? "_row_target_5x6" : "_5x6");
      out.push_back(check(
          "mse_loss_backward", sample, {5, 6},
          [t, r = reduction](const Tensor& x) { return bp::mse_loss(x, t, r); },
          [t, r = reduction](const Tensor& g, const Tensor& x, Device d) {
            return bp::mse_loss_backward(on(g, d), on(x, d), on(t, d), r);
          }));
    }
  }
}

// nll_loss over each reduction, with class weights and an ignored row; and one 1-D row.
void add_nll_checks(std::vector<GradientCheck>& out, InputMaker weights) {
  const Tensor weight = weights.tensor({5}, kF64, Values::Positive);
  const Tensor target = weights.from_doubles({7}, ScalarType::Int64, {1, 4, -100, 0, 3, 1, 2});
  const Tensor one_target = weights.from_doubles({}, ScalarType::Int64, {3});
  auto nll = [weight](const Tensor& x, const Tensor& t, int64_t r) {
    return bp::nll_loss_forward(x, t, weight, r, -100);
  };
  for (const auto& [reduction_value, name] :
       {std::pair<int64_t, const char*>{kReductionNone, "none"},
        {kReductionMean, "mean"},
        {kReductionSum, "sum"}}) {
    const int64_t reduction = reduction_value;  // a plain copy: lambdas capture it
    for (const Tensor& t : {target, one_target}) {
      const Shape sizes = t.dim() == 1 ? Shape{7, 5} : Shape{5};
      const std::string sample = std::string(name) + (t.dim() == 1 ? "_weighted_7x5" : "_row_5");
      out.push_back(check(
          "nll_loss_backward", sample, sizes,
          [nll, t, r = reduction](const Tensor& x) { return nll(x, t, r)[0]; },
          [nll, t, weight, r = reduction](const Tensor& g, const Tensor& x, Device d) {
            const Tensor total = nll(x, t, r)[1];
            return bp::nll_loss_backward(on(g, d), on(x, d), on(t, d), on(weight, d), r, -100,
                                         on(total, d));
          }));
    }
  }
}

// native_layer_norm over two normalized dims, differentiated in turn with respect to the
// input, the weight and the bias (the others fixed): each gradient with its mask alone set.
void add_layer_norm_checks(std::vector<GradientCheck>& out, InputMaker fixed) {
  const Tensor x0 = fixed.tensor({4, 3, 5}, kF64);
  const Tensor w0 = fixed.tensor({3, 5}, kF64);
  const Tensor b0 = fixed.tensor({3, 5}, kF64);
  const std::vector<int64_t> norm{3, 5};
  auto forward = [norm](const Tensor& x, const Tensor& w, const Tensor& b) {
    return bp::native_layer_norm(x, norm, w, b, 1e-5)[0];
  };
  auto backward = [norm](size_t which, const Tensor& g, const Tensor& x, const Tensor& w,
                         const Tensor& b, Device d) {
    const std::vector<Tensor> stats = bp::native_layer_norm(x, norm, w, b, 1e-5);
    std::array<bool, 3> mask{};
    mask[which] = true;
    return bp::native_layer_norm_backward(on(g, d), on(x, d), norm, on(stats[1], d),
                                          on(stats[2], d), on(w, d), on(b, d), mask)[which];
  };
  const std::string op = "native_layer_norm_backward";
  out.push_back(check(
      op, "input_4x3x5", {4, 3, 5}, [=](const Tensor& x) { return forward(x, w0, b0); },
      [=](const Tensor& g, const Tensor& x, Device d) { return backward(0, g, x, w0, b0, d); }));
  out.push_back(check(
      op, "weight_3x5", {3, 5}, [=](const Tensor& w) { return forward(x0, w, b0); },
      [=](const Tensor& g, const Tensor& w, Device d) { return backward(1, g, x0, w, b0, d); }));
  out.push_back(check(
      op, "bias_3x5", {3, 5}, [=](const Tensor& b) { return forward(x0, w0, b); },
      [=](const Tensor& g, const Tensor& b, Device d) { return backward(2, g, x0, w0, b, d); }));
}

}  // namespace

const std::vector<GradientCheck>& gradient_checks() {
  static const std::vector<GradientCheck> checks = [] {
    std::vector<GradientCheck> out;
    add_activation_checks(out);
    add_softmax_checks(out);
    // Fixed targets and weights (the seed of each case draws only x, g and the directions).
    add_mse_checks(out, InputMaker(27));
    add_nll_checks(out, InputMaker(28));
    add_layer_norm_checks(out, InputMaker(29));
    return out;
  }();
  return checks;
}

}  // namespace bp::conformance
