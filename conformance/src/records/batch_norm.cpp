// Conformance records of op set v2's batch norm (native_batch_norm and its backward),
// floating dtypes: training and evaluation, with and without weight, bias and running
// statistics, 2-D to 5-D inputs, and the error inputs. The backward's saved statistics come
// from the reference's forward. A run compares the outputs; the running statistics the
// forward writes in place are checked by the C++ and bridge tests.
#include "records_internal.hpp"

#include "backplane/ops.hpp"

#include <optional>
#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;

struct NormCase {
  const char* name;
  bool quick;
  Shape input;
  bool training, affine, running;
};

const std::vector<NormCase>& norm_cases() {
  static const std::vector<NormCase> cases = {
      {"train_2x3x4x5", true, {2, 3, 4, 5}, true, true, true},
      {"train_no_affine_no_running_4x3x5", true, {4, 3, 5}, true, false, false},
      {"train_2d_8x6", true, {8, 6}, true, true, true},
      {"eval_2x3x4x5", true, {2, 3, 4, 5}, false, true, true},
      {"eval_no_affine_3x4x2x2x2", true, {3, 4, 2, 2, 2}, false, false, true},
      // An empty batch in evaluation: an empty output, and zero weight and bias gradients
      // (PyTorch 1.13's CPU dies of SIGFPE on it).
      {"eval_empty_batch_0x3x4", true, {0, 3, 4}, false, true, true},
      {"train_resnet_4x64x14x14", false, {4, 64, 14, 14}, true, true, true},
  };
  return cases;
}

int64_t per_channel_count(const Shape& s) {
  return std::max<int64_t>(1, numel_of(s) / std::max<int64_t>(s[1], 1));
}

// The forward's arguments: input, weight, bias, running_mean (zeros-ish values), running_var
// (positive), training, momentum 0.1, eps 1e-5.
Args forward_args(InputMaker& m, const NormCase& c, ScalarType t) {
  const Shape channels{c.input[1]};
  const Tensor x = m.tensor(c.input, t);
  const IValue w = c.affine ? IValue(m.tensor(channels, t)) : IValue();
  const IValue b = c.affine ? IValue(m.tensor(channels, t)) : IValue();
  const IValue mean = c.running ? IValue(m.tensor(channels, t, Values::Unit)) : IValue();
  const IValue var = c.running ? IValue(m.tensor(channels, t, Values::Positive)) : IValue();
  return {x, w, b, mean, var, c.training, 0.1, 1e-5};
}

std::optional<Tensor> optional(const IValue& v) {
  if (!v.is_tensor() || !v.tensor().defined()) return std::nullopt;
  return v.tensor();
}

std::vector<Sample> forward_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const NormCase& c : norm_cases())
    out.push_back(Sample{c.name, c.quick,
                         [c, t](InputMaker& m) -> Args { return forward_args(m, c, t); },
                         std::nullopt, per_channel_count(c.input)});
  out.push_back(
      error_sample("error_eval_without_running_stats", "must be given", [t](InputMaker& m) -> Args {
        return {m.tensor({2, 3}, t), IValue(), IValue(), IValue(), IValue(), false, 0.1, 1e-5};
      }));
  out.push_back(error_sample("error_weight_size", "one per channel", [t](InputMaker& m) -> Args {
    return {
        m.tensor({2, 3, 4}, t), m.tensor({4}, t), IValue(), IValue(), IValue(), true, 0.1, 1e-5};
  }));
  out.push_back(error_sample("error_1d_input", "at least 2 dims", [t](InputMaker& m) -> Args {
    return {m.tensor({5}, t), IValue(), IValue(), IValue(), IValue(), true, 0.1, 1e-5};
  }));
  return out;
}

// The backward of each case with every gradient wanted (without a weight, the weight's
// gradient is still sum(grad * xhat), as PyTorch computes it), given the reference forward's
// saved statistics (training) or the running ones (evaluation).
std::vector<Sample> backward_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const NormCase& c : norm_cases()) {
    MakeArgs make = [c, t](InputMaker& m) -> Args {
      Args a = forward_args(m, c, t);
      // The forward runs on copies: it updates running statistics in place.
      const auto copy = [](const IValue& v) -> std::optional<Tensor> {
        if (const std::optional<Tensor> given = optional(v)) return bp::clone(*given);
        return std::nullopt;
      };
      const std::vector<Tensor> saved =
          bp::native_batch_norm(a[0].tensor(), optional(a[1]), optional(a[2]), copy(a[3]),
                                copy(a[4]), c.training, 0.1, 1e-5);
      const Tensor grad = m.tensor(c.input, t);
      const IValue save_mean = c.training ? IValue(saved[1]) : IValue();
      const IValue save_invstd = c.training ? IValue(saved[2]) : IValue();
      return {grad,      a[0],        a[1],       a[3], a[4],
              save_mean, save_invstd, c.training, 1e-5, Shape{1, 1, 1}};
    };
    out.push_back(
        Sample{c.name, c.quick, std::move(make), std::nullopt, per_channel_count(c.input)});
  }
  return out;
}

}  // namespace

void add_batch_norm_records(std::vector<OpRecord>& out) {
  out.push_back({"native_batch_norm", floating_dtypes(), forward_samples});
  out.push_back({"native_batch_norm_backward", floating_dtypes(), backward_samples});
}

}  // namespace bp::conformance::detail
