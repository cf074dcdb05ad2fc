// Conformance records of the nn group: softmax.int and log_softmax.int, layer_norm,
// rms_norm, matmul (every rank combination PyTorch has, broadcast batch dims, transposed
// operands, K = 0, odd and large sizes), addmm, linear and scaled_dot_product_attention,
// each with the error inputs of its shape and dtype checks. reduced_elements is the length
// each output folds over (row length, normalized size, K, key length).
#include "elementwise_common.hpp"

#include <algorithm>
#include <limits>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;

// ---- softmax.int / log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) ----------

// softmax(x, dim) or log_softmax(x, dim) of a tensor made when the case runs.
MakeArgs softmax_of(ScalarType dt, Shape sizes, int64_t dim, Layout layout, Values values,
                    IValue dtype) {
  return [=](InputMaker& in) {
    return Args{in.tensor(as_ref(sizes), dt, values, layout), IValue(dim), dtype};
  };
}

// Whole rows of one special value, and rows mixing them: all -inf and all NaN rows are
// NaN; an +inf row is NaN (inf - inf); one finite value among -inf takes all the mass.
std::vector<Sample> softmax_special_row_samples(ScalarType dt, const IValue& dtype_arg) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> rows = {-kInf, -kInf, -kInf, -kInf, -kInf, -kInf,  // all -inf
                                    kNaN,  kNaN,  kNaN,  kNaN,  kNaN,  kNaN,   // all NaN
                                    kInf,  kInf,  kInf,  kInf,  kInf,  kInf,   // all +inf
                                    -kInf, -kInf, 0.5,   -kInf, -kInf, -kInf,  // one finite
                                    -kInf, kNaN,  1.0,   2.0,   -kInf, 3.0,    // a NaN
                                    kInf,  1.0,   2.0,   -kInf, 0.0,   -0.0};  // an +inf
  std::vector<Sample> out;
  for (const int64_t dim : {int64_t{1}, int64_t{0}}) {
    out.push_back(quick_sample(
        dim == 1 ? "special_rows_6x6" : "special_columns_6x6",
        [=](InputMaker& in) {
          return Args{in.from_doubles({6, 6}, dt, rows), IValue(dim), dtype_arg};
        },
        6));
  }
  return out;
}

// A `dtype` argument that is missing where it is needed, or not floating; a dim out of range.
std::vector<Sample> softmax_error_samples(ScalarType dt, const IValue& dtype_arg) {
  std::vector<Sample> out;
  if (!is_floating(dt)) {
    out.push_back(
        error_sample("error_integral_without_dtype", "floating",
                     softmax_of(dt, {3, 4}, 1, Layout::Contiguous, Values::Normal, IValue())));
  }
  out.push_back(
      error_sample("error_dim_out_of_range", "argument 'dim'",
                   softmax_of(dt, {3, 4}, 2, Layout::Contiguous, Values::Normal, dtype_arg)));
  out.push_back(error_sample(
      "error_integral_dtype", "floating",
      softmax_of(dt, {3, 4}, 1, Layout::Contiguous, Values::Normal, IValue(ScalarType::Int32))));
  return out;
}

std::vector<Sample> softmax_samples(ScalarType dt) {
  std::vector<Sample> out;
  // Integral and bool inputs are only accepted with a floating `dtype`; floating ones run
  // without (and one sample converts f16/bf16 up to f32).
  const IValue dtype_arg = is_floating(dt) ? IValue() : IValue(ScalarType::Float32);
  auto add = [&](const char* name, bool quick, Shape sizes, int64_t dim,
                 Layout layout = Layout::Contiguous, Values values = Values::Normal) {
    const int64_t k = row_length(sizes, dim);
    MakeArgs make = softmax_of(dt, sizes, dim, layout, values, dtype_arg);
    out.push_back(quick ? quick_sample(name, make, k) : full_sample(name, make, k));
  };
  add("last_dim_7x13", true, {7, 13}, -1);
  add("first_dim_7x13", true, {7, 13}, 0);
  add("scalar_0d", true, {}, 0);
  add("empty_0x5", true, {0, 5}, 1);
  add("empty_rows_5x0", true, {5, 0}, 1);
  add("transposed_17x9", true, {17, 9}, -1, Layout::Transposed);
  add("strided_5x8", true, {5, 8}, 1, Layout::Strided);
  // NaN and -inf in a row: NaN rows, zero probabilities; all -inf rows give NaN.
  add("special_values_4x8", true, {4, 8}, 1, Layout::Contiguous, Values::Special);
  if (is_floating(dt)) append_samples(out, softmax_special_row_samples(dt, dtype_arg));
  add("middle_dim_3x5x4", false, {3, 5, 4}, 1);
  add("offset_33", false, {33}, 0, Layout::Offset);
  add("permuted_3x4x5", false, {3, 4, 5}, 2, Layout::Permuted);
  // Values ~ N(0, 1000): the max subtraction keeps exp() in range.
  add("wide_9x127", false, {9, 127}, 1, Layout::Contiguous, Values::Wide);
  add("odd_row_3x1031", false, {3, 1031}, 1);
  add("large_256x1031", false, {256, 1031}, 1);
  add("large_dim0_1031x64", false, {1031, 64}, 0);
  if (dt == ScalarType::Float16 || dt == ScalarType::BFloat16) {
    out.push_back(quick_sample("dtype_f32_7x13",
                               softmax_of(dt, {7, 13}, -1, Layout::Contiguous, Values::Normal,
                                          IValue(ScalarType::Float32)),
                               13));
  }
  append_samples(out, softmax_error_samples(dt, dtype_arg));
  return out;
}

// ---- layer_norm / rms_norm -----------------------------------------------------------------

// One norm sample: input `sizes`, normalized over the trailing `norm` dims, with optional
// weight (and bias, layer_norm only) of normalized shape; `eps` None = default.
struct NormCase {
  const char* name;
  bool quick;
  Shape sizes;
  Shape norm;
  bool weight;
  bool bias;
  Layout layout = Layout::Contiguous;
  Values values = Values::Normal;
};

const std::vector<NormCase>& norm_cases() {
  static const std::vector<NormCase> cases = {
      {"plain_7x13", true, {7, 13}, {13}, false, false},
      {"affine_7x13", true, {7, 13}, {13}, true, true},
      {"weight_only_5x9", true, {5, 9}, {9}, true, false},
      {"two_dims_3x4x5", true, {3, 4, 5}, {4, 5}, true, true},
      {"vector_33", true, {33}, {33}, true, true},
      {"empty_batch_0x5", true, {0, 5}, {5}, true, true},
      {"transposed_17x9", true, {17, 9}, {9}, true, true, Layout::Transposed},
      {"strided_5x8", true, {5, 8}, {8}, false, false, Layout::Strided},
      // NaN/Inf in a row make that row NaN.
      {"special_values_4x8", true, {4, 8}, {8}, false, false, Layout::Contiguous, Values::Special},
      // Rows of few distinct values, some constant (zero variance: eps alone).
      {"ties_6x4", false, {6, 4}, {4}, true, true, Layout::Contiguous, Values::Ties},
      {"offset_6x7", false, {6, 7}, {7}, true, true, Layout::Offset},
      {"permuted_3x4x5", false, {3, 4, 5}, {5}, true, true, Layout::Permuted},
      {"wide_9x127", false, {9, 127}, {127}, true, true, Layout::Contiguous, Values::Wide},
      {"odd_3x1031", false, {3, 1031}, {1031}, true, true},
      {"large_256x1031", false, {256, 1031}, {1031}, true, true},
  };
  return cases;
}

Args norm_args(InputMaker& in, ScalarType dt, const NormCase& c, bool layer) {
  Args args{in.tensor(as_ref(c.sizes), dt, c.values, c.layout), IValue(c.norm)};
  args.push_back(c.weight ? IValue(in.tensor(as_ref(c.norm), dt)) : IValue());
  if (layer) args.push_back(c.bias ? IValue(in.tensor(as_ref(c.norm), dt)) : IValue());
  return args;
}

std::vector<Sample> norm_samples(ScalarType dt, bool layer) {
  std::vector<Sample> out;
  for (const NormCase& c : norm_cases()) {
    MakeArgs make = [dt, c, layer](InputMaker& in) { return norm_args(in, dt, c, layer); };
    const int64_t k = numel_of(c.norm);
    out.push_back(c.quick ? quick_sample(c.name, make, k) : full_sample(c.name, make, k));
  }
  // An explicit eps (layer_norm: 1e-5 by default; rms_norm: the dtype's machine epsilon).
  out.push_back(quick_sample(
      "eps_0.1_5x6",
      [dt, layer](InputMaker& in) {
        Args args{in.tensor({5, 6}, dt, Values::Unit), IValue(Shape{6}),
                  IValue(in.tensor({6}, dt))};
        if (layer) args.push_back(IValue());
        args.push_back(IValue(0.1));
        return args;
      },
      6));
  const char* norm_text = "normalized_shape";
  out.push_back(
      error_sample("error_wrong_normalized_shape", norm_text, [dt, layer](InputMaker& in) {
        Args args{in.tensor({3, 4}, dt), IValue(Shape{3})};
        if (layer) args.insert(args.end(), {IValue(), IValue()});
        return args;
      }));
  out.push_back(error_sample("error_empty_normalized_shape", norm_text, [dt](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), IValue(Shape{})};
  }));
  out.push_back(
      error_sample("error_weight_shape", "argument 'weight'", [dt, layer](InputMaker& in) {
        Args args{in.tensor({3, 4}, dt), IValue(Shape{4}), IValue(in.tensor({3}, dt))};
        if (layer) args.push_back(IValue());
        return args;
      }));
  // weight and bias must have the input's dtype (no promotion).
  const ScalarType other = dt == ScalarType::Float64 ? ScalarType::Float32 : ScalarType::Float64;
  out.push_back(error_sample("error_weight_dtype", "must match", [dt, other](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), IValue(Shape{4}), IValue(in.tensor({4}, other))};
  }));
  return out;
}

// ---- matmul, addmm, linear -------------------------------------------------------------------

struct MatmulCase {
  const char* name;
  bool quick;
  Shape a, b;
  Layout la = Layout::Contiguous, lb = Layout::Contiguous;
  Values values = Values::Normal;
};

const std::vector<MatmulCase>& matmul_cases() {
  static const std::vector<MatmulCase> cases = {
      {"dot_13", true, {13}, {13}},
      {"vector_matrix_7_7x5", true, {7}, {7, 5}},
      {"matrix_vector_6x7_7", true, {6, 7}, {7}},
      {"matrix_5x7_7x3", true, {5, 7}, {7, 3}},
      {"batched_2x3x4_2x4x5", true, {2, 3, 4}, {2, 4, 5}},
      // Batch dims broadcast: [3, 1] with [2] -> [3, 2].
      {"broadcast_batch_3x1x4x5_2x5x6", true, {3, 1, 4, 5}, {2, 5, 6}},
      {"transposed_9x17_17x6", true, {9, 17}, {17, 6}, Layout::Transposed, Layout::Transposed},
      // K = 0: a sum over nothing, every element 0.
      {"empty_k_3x0_0x4", true, {3, 0}, {0, 4}},
      {"special_values_4x8_8x4",
       true,
       {4, 8},
       {8, 4},
       Layout::Contiguous,
       Layout::Contiguous,
       Values::Special},
      {"empty_rows_0x5_5x3", false, {0, 5}, {5, 3}},
      {"batched_matrix_2x3x4_4x5", false, {2, 3, 4}, {4, 5}},
      {"matrix_batched_3x4_2x4x5", false, {3, 4}, {2, 4, 5}},
      {"vector_batched_4_2x4x5", false, {4}, {2, 4, 5}},
      {"batched_vector_2x3x4_4", false, {2, 3, 4}, {4}},
      {"odd_17x33_33x9", false, {17, 33}, {33, 9}},
      {"strided_6x8_8x5", false, {6, 8}, {8, 5}, Layout::Strided, Layout::Offset},
      {"permuted_2x5x7_2x7x3", false, {2, 5, 7}, {2, 7, 3}, Layout::Permuted, Layout::Transposed},
      {"large_256x256_256x256", false, {256, 256}, {256, 256}},
      {"large_batched_4x65x127_4x127x33", false, {4, 65, 127}, {4, 127, 33}},
  };
  return cases;
}

std::vector<Sample> matmul_samples(ScalarType dt) {
  std::vector<Sample> out;
  for (const MatmulCase& c : matmul_cases()) {
    MakeArgs make = [dt, c](InputMaker& in) {
      Tensor a = in.tensor(as_ref(c.a), dt, c.values, c.la);
      return Args{a, in.tensor(as_ref(c.b), dt, c.values, c.lb)};
    };
    const int64_t k = std::max<int64_t>(1, c.a.back());
    out.push_back(c.quick ? quick_sample(c.name, make, k) : full_sample(c.name, make, k));
  }
  if (!is_floating(dt)) {
    // Integers over their whole range: products and sums wrap around. (For floats this
    // would only measure cancellation, which a tolerance relative to the result cannot
    // bound.)
    out.push_back(full_sample(
        "wide_9x31_31x7",
        [dt](InputMaker& in) {
          Tensor a = in.tensor({9, 31}, dt, Values::Wide);
          return Args{a, in.tensor({31, 7}, dt, Values::Wide)};
        },
        31));
  }
  out.push_back(error_sample("error_inner_mismatch_3x4_5x6", "contracted", [dt](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), in.tensor({5, 6}, dt)};
  }));
  out.push_back(error_sample("error_scalar_0d", "at least 1 dim", [dt](InputMaker& in) {
    return Args{in.tensor({}, dt), in.tensor({3}, dt)};
  }));
  out.push_back(error_sample("error_batch_broadcast", "cannot broadcast", [dt](InputMaker& in) {
    return Args{in.tensor({2, 3, 4}, dt), in.tensor({3, 4, 5}, dt)};
  }));
  const ScalarType other = dt == ScalarType::Float32 ? ScalarType::Float64 : ScalarType::Float32;
  out.push_back(error_sample("error_dtype_mismatch", "promote", [dt, other](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), in.tensor({4, 5}, other)};
  }));
  return out;
}

std::vector<Sample> addmm_samples(ScalarType dt) {
  std::vector<Sample> out;
  auto addmm = [dt](Shape self, int64_t n, int64_t k, int64_t m, std::optional<Scalar> beta,
                    std::optional<Scalar> alpha, Values self_values = Values::Normal,
                    Layout layout = Layout::Contiguous) {
    // Large products take Positive operands (with a Positive self): no cancellation
    // between the product and self, which f16's tolerance relative to the result cannot
    // absorb (the product is rounded to f16 before self is added).
    const Values mat_values = self_values == Values::Positive ? Values::Positive : Values::Normal;
    return [=](InputMaker& in) {
      Args args{in.tensor(as_ref(self), dt, self_values), in.tensor({n, k}, dt, mat_values, layout),
                in.tensor({k, m}, dt, mat_values, layout)};
      if (beta) args.push_back(IValue(*beta));
      if (alpha) {
        if (!beta) args.push_back(IValue(Scalar(int64_t{1})));
        args.push_back(IValue(*alpha));
      }
      return args;
    };
  };
  const bool fp = is_floating(dt);
  const Scalar two(int64_t{2});
  const Scalar beta_half = fp ? Scalar(0.5) : Scalar(int64_t{-1});
  out.push_back(
      quick_sample("plain_5x7_7x3", addmm({5, 3}, 5, 7, 3, std::nullopt, std::nullopt), 7));
  out.push_back(quick_sample("bias_row_3", addmm({3}, 5, 7, 3, std::nullopt, std::nullopt), 7));
  out.push_back(quick_sample("beta_alpha_5x7_7x3", addmm({5, 3}, 5, 7, 3, beta_half, two), 7));
  // beta = 0 ignores self: NaN and Inf in it do not reach the result (as PyTorch).
  out.push_back(
      quick_sample("beta_0_special_self_4x8",
                   addmm({4, 8}, 4, 5, 8, Scalar(int64_t{0}), std::nullopt, Values::Special), 5));
  out.push_back(
      quick_sample("empty_k_3x0_0x4", addmm({3, 4}, 3, 0, 4, std::nullopt, std::nullopt), 1));
  out.push_back(quick_sample("self_0d", addmm({}, 4, 6, 2, std::nullopt, std::nullopt), 6));
  out.push_back(quick_sample(
      "transposed_9x17_17x6",
      addmm({9, 6}, 9, 17, 6, std::nullopt, std::nullopt, Values::Normal, Layout::Transposed), 17));
  out.push_back(full_sample("odd_17x33_33x9", addmm({17, 9}, 17, 33, 9, std::nullopt, two), 33));
  out.push_back(full_sample(
      "strided_6x8_8x5",
      addmm({6, 5}, 6, 8, 5, beta_half, std::nullopt, Values::Normal, Layout::Strided), 8));
  out.push_back(
      full_sample("large_256x256_256x256",
                  addmm({256}, 256, 256, 256, std::nullopt, std::nullopt, Values::Positive), 256));
  out.push_back(error_sample("error_inner_mismatch", "mat2", [dt](InputMaker& in) {
    return Args{in.tensor({3, 5}, dt), in.tensor({3, 4}, dt), in.tensor({6, 5}, dt)};
  }));
  out.push_back(error_sample("error_mat1_not_matrix", "must be a matrix", [dt](InputMaker& in) {
    return Args{in.tensor({3, 5}, dt), in.tensor({4}, dt), in.tensor({4, 5}, dt)};
  }));
  out.push_back(error_sample("error_self_shape", "does not broadcast", [dt](InputMaker& in) {
    return Args{in.tensor({4, 5}, dt), in.tensor({3, 4}, dt), in.tensor({4, 5}, dt)};
  }));
  return out;
}

std::vector<Sample> linear_samples(ScalarType dt) {
  std::vector<Sample> out;
  auto linear = [dt](Shape input, Shape weight, std::optional<Shape> bias,
                     Layout layout = Layout::Contiguous, Values values = Values::Normal) {
    // Special values go into the input only; Positive (large samples, no cancellation
    // between product and bias, see addmm) into every operand.
    const Values params = values == Values::Positive ? Values::Positive : Values::Normal;
    return [=](InputMaker& in) {
      Args args{in.tensor(as_ref(input), dt, values, layout),
                in.tensor(as_ref(weight), dt, params, layout)};
      args.push_back(bias ? IValue(in.tensor(as_ref(*bias), dt, params)) : IValue());
      return args;
    };
  };
  out.push_back(quick_sample("bias_5x7_3x7", linear({5, 7}, {3, 7}, Shape{3}), 7));
  out.push_back(quick_sample("no_bias_5x7_3x7", linear({5, 7}, {3, 7}, std::nullopt), 7));
  out.push_back(quick_sample("vector_input_7", linear({7}, {3, 7}, Shape{3}), 7));
  out.push_back(quick_sample("vector_weight_5x7_7", linear({5, 7}, {7}, Shape{}), 7));
  out.push_back(quick_sample("batched_2x3x8_4x8", linear({2, 3, 8}, {4, 8}, Shape{4}), 8));
  out.push_back(quick_sample("empty_batch_0x6", linear({0, 6}, {4, 6}, Shape{4}), 6));
  out.push_back(quick_sample("transposed_9x17_6x17",
                             linear({9, 17}, {6, 17}, Shape{6}, Layout::Transposed), 17));
  out.push_back(quick_sample("special_values_4x8",
                             linear({4, 8}, {3, 8}, Shape{3}, Layout::Contiguous, Values::Special),
                             8));
  out.push_back(full_sample("odd_17x33_9x33", linear({17, 33}, {9, 33}, Shape{9}), 33));
  out.push_back(
      full_sample("strided_6x8_5x8", linear({6, 8}, {5, 8}, std::nullopt, Layout::Strided), 8));
  out.push_back(full_sample(
      "large_256x256_256x256",
      linear({256, 256}, {256, 256}, Shape{256}, Layout::Contiguous, Values::Positive), 256));
  out.push_back(error_sample("error_in_features_mismatch", "in_features", [dt](InputMaker& in) {
    return Args{in.tensor({5, 7}, dt), in.tensor({3, 6}, dt), IValue()};
  }));
  out.push_back(error_sample("error_bias_shape", "argument 'bias'", [dt](InputMaker& in) {
    return Args{in.tensor({5, 7}, dt), in.tensor({3, 7}, dt), in.tensor({4}, dt)};
  }));
  out.push_back(error_sample("error_weight_3d", "1 or 2 dims", [dt](InputMaker& in) {
    return Args{in.tensor({5, 7}, dt), in.tensor({2, 3, 7}, dt), IValue()};
  }));
  return out;
}

// ---- scaled_dot_product_attention ------------------------------------------------------------

struct SdpaCase {
  const char* name;
  bool quick;
  Shape q, k, v;
  enum class Mask { None, Bool, Float, Causal } mask = Mask::None;
  std::optional<double> scale = std::nullopt;
  Layout layout = Layout::Contiguous;
  Values values = Values::Normal;
};

const std::vector<SdpaCase>& sdpa_cases() {
  using M = SdpaCase::Mask;
  static const std::vector<SdpaCase> cases = {
      {"basic_2x3x5x8", true, {2, 3, 5, 8}, {2, 3, 5, 8}, {2, 3, 5, 8}},
      {"unbatched_5x8_7x8", true, {5, 8}, {7, 8}, {7, 6}},
      {"bool_mask_2x5x7", true, {2, 5, 8}, {2, 7, 8}, {2, 7, 8}, M::Bool},
      {"float_mask_2x5x7", true, {2, 5, 8}, {2, 7, 8}, {2, 7, 8}, M::Float},
      {"causal_6x6", true, {2, 6, 8}, {2, 6, 8}, {2, 6, 8}, M::Causal},
      // L > S: the last query rows attend to every key.
      {"causal_7x4", true, {7, 8}, {4, 8}, {4, 5}, M::Causal},
      {"scale_0.5", true, {2, 5, 8}, {2, 5, 8}, {2, 5, 8}, M::None, 0.5},
      {"empty_batch_0x5x8", true, {0, 5, 8}, {0, 7, 8}, {0, 7, 4}},
      {"transposed_2x9x16",
       true,
       {2, 9, 16},
       {2, 9, 16},
       {2, 9, 16},
       M::None,
       std::nullopt,
       Layout::Transposed},
      {"special_values_4x8",
       false,
       {4, 8},
       {4, 8},
       {4, 8},
       M::None,
       std::nullopt,
       Layout::Contiguous,
       Values::Special},
      // Batch dims broadcast between query, key and value.
      {"broadcast_batch", false, {2, 1, 5, 8}, {3, 7, 8}, {1, 7, 4}},
      {"odd_3x17x33_e13", false, {3, 17, 13}, {3, 33, 13}, {3, 33, 9}},
      {"single_query_1x31", false, {4, 1, 16}, {4, 31, 16}, {4, 31, 16}},
      {"strided_2x6x8",
       false,
       {2, 6, 8},
       {2, 6, 8},
       {2, 6, 8},
       M::Bool,
       std::nullopt,
       Layout::Strided},
      {"large_2x4x128x64", false, {2, 4, 128, 64}, {2, 4, 128, 64}, {2, 4, 128, 64}, M::Causal},
  };
  return cases;
}

Args sdpa_args(InputMaker& in, ScalarType dt, const SdpaCase& c) {
  using M = SdpaCase::Mask;
  Args args{in.tensor(as_ref(c.q), dt, c.values, c.layout),
            in.tensor(as_ref(c.k), dt, c.values, c.layout),
            in.tensor(as_ref(c.v), dt, c.values, c.layout)};
  const int64_t L = c.q[c.q.size() - 2];
  const int64_t S = c.k[c.k.size() - 2];
  if (c.mask == M::Bool) {
    // True = attend; p = 0.8 so every row is likely to keep some key.
    args.push_back(in.mask({L, S}, 0.8));
  } else if (c.mask == M::Float) {
    args.push_back(in.tensor({L, S}, dt, Values::Unit));
  } else {
    args.push_back(IValue());
  }
  args.push_back(IValue(0.0));
  args.push_back(IValue(c.mask == M::Causal));
  args.push_back(c.scale ? IValue(*c.scale) : IValue());
  return args;
}

std::vector<Sample> sdpa_samples(ScalarType dt) {
  std::vector<Sample> out;
  for (const SdpaCase& c : sdpa_cases()) {
    MakeArgs make = [dt, c](InputMaker& in) { return sdpa_args(in, dt, c); };
    // Each output folds a softmax over S keys and products over E features.
    const int64_t s = std::max(c.k[c.k.size() - 2], c.k.back());
    out.push_back(c.quick ? quick_sample(c.name, make, s) : full_sample(c.name, make, s));
  }
  auto qkv = [dt](InputMaker& in, Shape q, Shape k, Shape v) {
    return Args{in.tensor(as_ref(q), dt), in.tensor(as_ref(k), dt), in.tensor(as_ref(v), dt)};
  };
  out.push_back(error_sample("error_embedding_mismatch", "embedding", [qkv](InputMaker& in) {
    return qkv(in, {5, 8}, {6, 7}, {6, 8});
  }));
  out.push_back(error_sample("error_value_length", "sequence length", [qkv](InputMaker& in) {
    return qkv(in, {5, 8}, {6, 8}, {7, 8});
  }));
  out.push_back(error_sample("error_dropout", "dropout", [qkv](InputMaker& in) {
    Args args = qkv(in, {5, 8}, {6, 8}, {6, 8});
    args.insert(args.end(), {IValue(), IValue(0.5)});
    return args;
  }));
  out.push_back(error_sample("error_mask_and_causal", "is_causal", [qkv](InputMaker& in) {
    Args args = qkv(in, {5, 8}, {6, 8}, {6, 8});
    args.insert(args.end(), {IValue(in.mask({5, 6})), IValue(0.0), IValue(true)});
    return args;
  }));
  out.push_back(error_sample("error_query_1d", "at least 2 dims", [qkv](InputMaker& in) {
    return qkv(in, {8}, {6, 8}, {6, 8});
  }));
  // The mask is bool (True = attend) or query's dtype (added to the scores), nothing else.
  out.push_back(error_sample("error_mask_dtype", "attn_mask", [qkv](InputMaker& in) {
    Args args = qkv(in, {5, 8}, {6, 8}, {6, 8});
    args.push_back(IValue(in.indices({5, 6}, 0, 1, ScalarType::Int32)));
    return args;
  }));
  return out;
}

}  // namespace

// native_layer_norm: layer_norm's samples with every argument given (its schema has no
// defaults): weight and bias None where left out, eps 1e-5 unless set.
std::vector<Sample> native_layer_norm_samples(ScalarType dt) {
  std::vector<Sample> out = norm_samples(dt, /*layer=*/true);
  for (Sample& s : out) {
    s.make = [make = std::move(s.make)](InputMaker& in) {
      Args args = make(in);
      while (args.size() < 4) args.push_back(IValue());
      if (args.size() < 5) args.push_back(IValue(1e-5));
      return args;
    };
  }
  return out;
}

// baddbmm: addmm over a batch of matrices (the composite is addmm's).
std::vector<Sample> baddbmm_samples(ScalarType dt) {
  std::vector<Sample> out;
  auto baddbmm = [dt](Shape self, Shape b1, Shape b2, std::optional<Scalar> beta,
                      Values self_values = Values::Normal, Layout layout = Layout::Contiguous) {
    return [=](InputMaker& in) {
      Args args{in.tensor(as_ref(self), dt, self_values),
                in.tensor(as_ref(b1), dt, Values::Normal, layout),
                in.tensor(as_ref(b2), dt, Values::Normal, layout)};
      if (beta) args.insert(args.end(), {IValue(*beta), IValue(Scalar(int64_t{2}))});
      return args;
    };
  };
  const Scalar beta_half = is_floating(dt) ? Scalar(0.5) : Scalar(int64_t{-1});
  out.push_back(
      quick_sample("plain_2x5x7_2x7x3", baddbmm({2, 5, 3}, {2, 5, 7}, {2, 7, 3}, std::nullopt), 7));
  out.push_back(quick_sample("mask_row_3", baddbmm({3}, {2, 5, 7}, {2, 7, 3}, std::nullopt), 7));
  out.push_back(quick_sample("beta_alpha_3x4x6_3x6x2",
                             baddbmm({3, 4, 2}, {3, 4, 6}, {3, 6, 2}, beta_half), 6));
  out.push_back(quick_sample(
      "beta_0_special_self",
      baddbmm({2, 4, 8}, {2, 4, 5}, {2, 5, 8}, Scalar(int64_t{0}), Values::Special), 5));
  out.push_back(quick_sample("self_0d", baddbmm({}, {2, 3, 4}, {2, 4, 5}, std::nullopt), 4));
  out.push_back(
      quick_sample("empty_batch_0x3x4", baddbmm({0, 3, 5}, {0, 3, 4}, {0, 4, 5}, std::nullopt), 4));
  out.push_back(quick_sample(
      "transposed_2x9x17_2x17x6",
      baddbmm({2, 9, 6}, {2, 9, 17}, {2, 17, 6}, std::nullopt, Values::Normal, Layout::Transposed),
      17));
  out.push_back(
      error_sample("error_batch_mismatch", "same number of matrices", [dt](InputMaker& in) {
        return Args{in.tensor({3, 4}, dt), in.tensor({2, 3, 5}, dt), in.tensor({3, 5, 4}, dt)};
      }));
  out.push_back(error_sample("error_not_batched", "batch of matrices", [dt](InputMaker& in) {
    return Args{in.tensor({3, 4}, dt), in.tensor({3, 5}, dt), in.tensor({5, 4}, dt)};
  }));
  return out;
}

void add_nn_records(std::vector<OpRecord>& out) {
  out.push_back(OpRecord{"softmax.int", all_dtypes(), softmax_samples});
  out.push_back(OpRecord{"log_softmax.int", all_dtypes(), softmax_samples});
  out.push_back(OpRecord{"layer_norm", floating_dtypes(),
                         [](ScalarType dt) { return norm_samples(dt, /*layer=*/true); }});
  out.push_back(OpRecord{"native_layer_norm", floating_dtypes(), native_layer_norm_samples});
  out.push_back(OpRecord{"rms_norm", floating_dtypes(),
                         [](ScalarType dt) { return norm_samples(dt, /*layer=*/false); }});
  out.push_back(OpRecord{"matmul", numeric_dtypes(), matmul_samples});
  out.push_back(OpRecord{"addmm", numeric_dtypes(), addmm_samples});
  out.push_back(OpRecord{"linear", numeric_dtypes(), linear_samples});
  out.push_back(OpRecord{"baddbmm", numeric_dtypes(), baddbmm_samples});
  out.push_back(OpRecord{"scaled_dot_product_attention", floating_dtypes(), sdpa_samples});
}

}  // namespace bp::conformance::detail
