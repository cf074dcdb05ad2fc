// Conformance records of the losses and the optimizer pointwise ops: mse_loss and its
// gradient, nll_loss_forward/nll_loss_backward (each reduction, class weights, ignored rows,
// a 1-D input, empty batches), nll_loss and cross_entropy_loss over them, addcmul, addcdiv,
// lerp.Scalar (both sides of its weight switch) and zero_, each with the error inputs of
// its meta rule. reduced_elements is the number of rows a reduced loss sums.
#include "elementwise_common.hpp"

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;

constexpr int64_t kNone = 0, kMean = 1, kSum = 2;

const char* reduction_name(int64_t reduction) {
  return reduction == kNone ? "none" : reduction == kMean ? "mean" : "sum";
}

// ---- mse_loss / mse_loss_backward ------------------------------------------------------------

std::vector<Sample> mse_samples(ScalarType dt, bool backward) {
  std::vector<Sample> out;
  auto add = [&](std::string name, bool quick, Shape a, Shape b, int64_t reduction,
                 Layout layout = Layout::Contiguous, Values values = Values::Normal) {
    const Shape shape = broadcast_shapes(as_ref(a), as_ref(b), "mse_loss");
    const int64_t k = reduction == kNone ? 1 : std::max<int64_t>(1, numel_of(a));
    MakeArgs make = [=](InputMaker& in) {
      Args args{in.tensor(as_ref(a), dt, values, layout), in.tensor(as_ref(b), dt, values)};
      if (backward) {
        const Shape g = reduction == kNone ? shape : Shape{};
        args.insert(args.begin(), in.tensor(as_ref(g), dt));
      }
      args.push_back(IValue(reduction));
      return args;
    };
    name = std::string(reduction_name(reduction)) + "_" + name;
    out.push_back(quick ? quick_sample(name, make, k) : full_sample(name, make, k));
  };
  for (const int64_t reduction : {kNone, kMean, kSum}) {
    add("contiguous_7x13", true, {7, 13}, {7, 13}, reduction);
    add("scalar_0d", true, {}, {}, reduction);
    add("transposed_17x9", true, {17, 9}, {17, 9}, reduction, Layout::Transposed);
    add("special_values_4x8", true, {4, 8}, {4, 8}, reduction, Layout::Contiguous, Values::Special);
    add("large_256x1031", false, {256, 1031}, {256, 1031}, reduction);
  }
  // The shapes PyTorch broadcasts (with a warning): same values for each reduction.
  add("broadcast_6x1_9", true, {6, 1}, {9}, kNone);
  add("empty_0x5", true, {0, 5}, {0, 5}, kSum);
  add("empty_0x5", true, {0, 5}, {0, 5}, kMean);  // NaN: the mean of nothing
  out.push_back(error_sample("error_reduction", "reduction", [=](InputMaker& in) {
    Args args{in.tensor({3}, dt), in.tensor({3}, dt), IValue(int64_t{3})};
    if (backward) args.insert(args.begin(), in.tensor({3}, dt));
    return args;
  }));
  if (backward) {
    // The gradient's three inputs share one dtype (PyTorch refuses mixed ones).
    const ScalarType partner = partner_dtype(dt);
    out.push_back(error_sample("error_mixed_dtypes", "one dtype", [=](InputMaker& in) {
      return Args{in.tensor({3}, partner), in.tensor({3}, dt), in.tensor({3}, dt), IValue(kSum)};
    }));
  } else {
    // Promotion: a target of another dtype, an integral self with a floating target.
    const ScalarType partner = partner_dtype(dt);
    out.push_back(quick_sample(
        "mixed_" + std::string(dtype_name(partner)) + "_6x5",
        [=](InputMaker& in) {
          return Args{in.tensor({6, 5}, dt), in.tensor({6, 5}, partner), IValue(kMean)};
        },
        30));
    out.push_back(error_sample("error_integral", "floating", [=](InputMaker& in) {
      return Args{in.tensor({3}, ScalarType::Int64), in.tensor({3}, ScalarType::Int64),
                  IValue(kMean)};
    }));
  }
  return out;
}

// ---- nll_loss_forward / nll_loss_backward / nll_loss / cross_entropy_loss -------------------

// One nll sample: `rows` x `classes` scores (rows = -1: a 1-D input), targets in [0,
// classes) with every third row set to ignore_index when `ignore`, class weights when
// `weighted`.
struct NllCase {
  const char* name;
  bool quick;
  int64_t rows, classes;
  bool weighted, ignore;
  Layout layout = Layout::Contiguous;
};

const NllCase kNllCases[] = {
    {"plain_8x5", true, 8, 5, false, false},
    {"weighted_8x5", true, 8, 5, true, false},
    {"ignored_9x4", true, 9, 4, true, true},
    {"one_row_1d_6", true, -1, 6, true, false},
    {"empty_0x3", true, 0, 3, false, false},
    {"transposed_7x11", true, 7, 11, false, true, Layout::Transposed},
    {"large_1031x33", false, 1031, 33, true, true},
};

constexpr int64_t kIgnoreIndex = -100;

// Every class in turn (a stride coprime to most class counts), every third row ignored.
Tensor nll_targets(InputMaker& in, const NllCase& c) {
  const int64_t rows = c.rows < 0 ? 1 : c.rows;
  std::vector<double> values;
  for (int64_t i = 0; i < rows; ++i)
    values.push_back(c.ignore && i % 3 == 0 ? kIgnoreIndex
                                            : static_cast<double>((i * 7 + 3) % c.classes));
  Tensor t = in.from_doubles({rows}, ScalarType::Int64, values);
  return c.rows < 0 ? t.view({}) : t;
}

// (self, target, weight, reduction, ignore_index) of one case.
Args nll_args(InputMaker& in, ScalarType dt, const NllCase& c, int64_t reduction) {
  const Shape sizes = c.rows < 0 ? Shape{c.classes} : Shape{c.rows, c.classes};
  Tensor self = in.tensor(as_ref(sizes), dt, Values::Normal, c.layout);
  Tensor target = nll_targets(in, c);
  IValue weight = c.weighted ? IValue(in.tensor({c.classes}, dt, Values::Positive)) : IValue();
  return Args{self, target, weight, IValue(reduction), IValue(kIgnoreIndex)};
}

enum class NllForm { Forward, Backward, Loss, CrossEntropy };

// The backward's extra inputs: grad_output of the loss's shape, and total_weight as the
// forward computes it (on the reference device).
Args nll_backward_args(InputMaker& in, ScalarType dt, const NllCase& c, int64_t reduction) {
  Args a = nll_args(in, dt, c, reduction);
  const Tensor total =
      bp::nll_loss_forward(a[0].tensor(), a[1].tensor(),
                           a[2].is_none() ? std::nullopt : std::optional<Tensor>(a[2].tensor()),
                           reduction, kIgnoreIndex)[1];
  const bool per_row = reduction == kNone && c.rows >= 0;
  Tensor grad = in.tensor(per_row ? Shape{c.rows} : Shape{}, dt);
  return Args{grad, a[0], a[1], a[2], a[3], a[4], total};
}

std::vector<Sample> nll_samples(ScalarType dt, NllForm form) {
  std::vector<Sample> out;
  for (const int64_t reduction : {kNone, kMean, kSum}) {
    for (const NllCase& c : kNllCases) {
      MakeArgs make = [dt, c, reduction, form](InputMaker& in) {
        if (form == NllForm::Backward) return nll_backward_args(in, dt, c, reduction);
        Args a = nll_args(in, dt, c, reduction);
        if (form == NllForm::CrossEntropy) a.push_back(IValue(0.0));
        return a;
      };
      const int64_t k = reduction == kNone ? 1 : std::max<int64_t>(1, c.rows);
      const std::string name = std::string(reduction_name(reduction)) + "_" + c.name;
      out.push_back(c.quick ? quick_sample(name, make, k) : full_sample(name, make, k));
    }
  }
  auto error = [&](const char* name, const char* expect, auto make) {
    out.push_back(error_sample(name, expect, [dt, form, make](InputMaker& in) {
      Args a = make(in);
      if (form == NllForm::CrossEntropy) a.push_back(IValue(0.0));
      if (form == NllForm::Backward) {
        a.insert(a.begin(), in.tensor({}, dt));
        a.push_back(in.tensor({}, dt));
      }
      return a;
    }));
  };
  error("error_target_dtype", "must be i64", [dt](InputMaker& in) {
    return Args{in.tensor({4, 3}, dt), in.indices({4}, 0, 3, ScalarType::Int32), IValue(),
                IValue(kMean), IValue(kIgnoreIndex)};
  });
  error("error_rows", "one class index per row", [dt](InputMaker& in) {
    return Args{in.tensor({4, 3}, dt), in.indices({5}, 0, 3), IValue(), IValue(kMean),
                IValue(kIgnoreIndex)};
  });
  error("error_weight_shape", "one value per class", [dt](InputMaker& in) {
    return Args{in.tensor({4, 3}, dt), in.indices({4}, 0, 3), in.tensor({4}, dt), IValue(kMean),
                IValue(kIgnoreIndex)};
  });
  error("error_self_3d", "must have 1", [dt](InputMaker& in) {
    return Args{in.tensor({2, 4, 3}, dt), in.indices({2}, 0, 3), IValue(), IValue(kMean),
                IValue(kIgnoreIndex)};
  });
  if (form == NllForm::CrossEntropy) {
    out.push_back(error_sample("error_label_smoothing", "label_smoothing", [dt](InputMaker& in) {
      return Args{in.tensor({4, 3}, dt), in.indices({4}, 0, 3), IValue(),
                  IValue(kMean),         IValue(kIgnoreIndex),  IValue(0.1)};
    }));
  }
  return out;
}

// ---- addcmul / addcdiv / lerp.Scalar / zero_ ---------------------------------------------------

std::vector<Sample> addc_samples(ScalarType dt, bool divide) {
  std::vector<Sample> out;
  const Values divisor = divide ? Values::Positive : Values::Normal;
  const Scalar value = is_floating(dt) ? Scalar(-0.5) : Scalar(int64_t{3});
  auto add = [&](const char* name, bool quick, Shape a, Shape b, Shape c,
                 Layout layout = Layout::Contiguous, Values values = Values::Normal) {
    MakeArgs make = [=](InputMaker& in) {
      return Args{in.tensor(as_ref(a), dt, values, layout), in.tensor(as_ref(b), dt, values),
                  in.tensor(as_ref(c), dt, divisor), value};
    };
    out.push_back(quick ? quick_sample(name, make) : full_sample(name, make));
  };
  add("contiguous_7x13", true, {7, 13}, {7, 13}, {7, 13});
  add("scalar_0d", true, {}, {}, {});
  add("empty_0x5", true, {0, 5}, {0, 5}, {0, 5});
  add("broadcast_6x1_9_1x9", true, {6, 1}, {9}, {1, 9});
  add("transposed_17x9", true, {17, 9}, {17, 9}, {17, 9}, Layout::Transposed);
  add("special_values_4x8", true, {4, 8}, {4, 8}, {4, 8}, Layout::Contiguous, Values::Special);
  add("large_256x1031", false, {256, 1031}, {256, 1031}, {256, 1031});
  // Promotion: tensor1 of another dtype; every input is converted to the promoted dtype.
  const ScalarType partner = partner_dtype(dt);
  out.push_back(quick_sample("mixed_" + std::string(dtype_name(partner)) + "_6x5",
                             [dt, partner, divisor, value](InputMaker& in) {
                               return Args{in.tensor({6, 5}, dt), in.tensor({6, 5}, partner),
                                           in.tensor({6, 5}, dt, divisor), value};
                             }));
  out.push_back(quick_sample("default_value_5x6", [dt, divisor](InputMaker& in) {
    return Args{in.tensor({5, 6}, dt), in.tensor({5, 6}, dt), in.tensor({5, 6}, dt, divisor)};
  }));
  if (!is_floating(dt)) {
    out.push_back(error_sample("error_float_value", "floating-point", [dt](InputMaker& in) {
      return Args{in.tensor({3}, dt), in.tensor({3}, dt), in.tensor({3}, dt, Values::Positive),
                  Scalar(0.5)};
    }));
  }
  return out;
}

std::vector<Sample> lerp_samples(ScalarType dt) {
  std::vector<Sample> out;
  const std::pair<const char*, double> weights[] = {
      {"weight_0.25_", 0.25}, {"weight_0.75_", 0.75}, {"weight_neg1.5_", -1.5}};
  for (const auto& entry : weights) {
    // Plain copies: lambdas may not capture structured bindings (clang before 16).
    const char* prefix = entry.first;
    const double weight = entry.second;
    auto add = [&](std::string name, bool quick, Shape a, Shape b,
                   Layout layout = Layout::Contiguous, Values values = Values::Normal) {
      MakeArgs make = [=](InputMaker& in) {
        return Args{in.tensor(as_ref(a), dt, values, layout), in.tensor(as_ref(b), dt, values),
                    Scalar(weight)};
      };
      name = prefix + name;
      out.push_back(quick ? quick_sample(name, make) : full_sample(name, make));
    };
    add("contiguous_7x13", true, {7, 13}, {7, 13});
    add("scalar_0d", true, {}, {});
    add("empty_0x5", true, {0, 5}, {0, 5});
    add("broadcast_6x1_9", true, {6, 1}, {9});
    add("special_values_4x8", true, {4, 8}, {4, 8}, Layout::Contiguous, Values::Special);
    add("transposed_17x9", false, {17, 9}, {17, 9}, Layout::Transposed);
  }
  const ScalarType other = dt == ScalarType::Float64 ? ScalarType::Float32 : ScalarType::Float64;
  out.push_back(error_sample("error_end_dtype", "must match", [dt, other](InputMaker& in) {
    return Args{in.tensor({3}, dt), in.tensor({3}, other), Scalar(0.5)};
  }));
  return out;
}

std::vector<Sample> zero_samples(ScalarType dt) {
  std::vector<Sample> out;
  auto add = [&](const char* name, Shape sizes, Layout layout = Layout::Contiguous) {
    out.push_back(quick_sample(name, [=](InputMaker& in) {
      return Args{in.tensor(as_ref(sizes), dt, Values::Normal, layout)};
    }));
  };
  add("contiguous_7x13", {7, 13});
  add("scalar_0d", {});
  add("empty_0x5", {0, 5});
  add("strided_5x8", {5, 8}, Layout::Strided);
  add("transposed_17x9", {17, 9}, Layout::Transposed);
  return out;
}

}  // namespace

void add_loss_and_optimizer_records(std::vector<OpRecord>& out) {
  const std::vector<ScalarType> floating = floating_dtypes();
  out.push_back(
      OpRecord{"mse_loss", floating, [](ScalarType dt) { return mse_samples(dt, false); }});
  out.push_back(OpRecord{"mse_loss_backward", numeric_dtypes(),
                         [](ScalarType dt) { return mse_samples(dt, true); }});
  const std::pair<const char*, NllForm> nll_ops[] = {
      {"nll_loss_forward", NllForm::Forward},
      {"nll_loss_backward", NllForm::Backward},
      {"nll_loss", NllForm::Loss},
      {"cross_entropy_loss", NllForm::CrossEntropy},
  };
  for (const auto& [name, nll_form] : nll_ops) {
    const NllForm form = nll_form;  // a plain copy: lambdas may not capture a binding
    out.push_back(
        OpRecord{name, floating, [form](ScalarType dt) { return nll_samples(dt, form); }});
  }
  out.push_back(
      OpRecord{"addcmul", numeric_dtypes(), [](ScalarType dt) { return addc_samples(dt, false); }});
  out.push_back(
      OpRecord{"addcdiv", floating, [](ScalarType dt) { return addc_samples(dt, true); }});
  out.push_back(OpRecord{"lerp.Scalar", floating, lerp_samples});
  out.push_back(OpRecord{"zero_", all_dtypes(), zero_samples});
}

}  // namespace bp::conformance::detail
