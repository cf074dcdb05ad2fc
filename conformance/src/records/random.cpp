// Conformance records of the random ops (uniform_, normal_, random_.from, random_.to,
// random_, bernoulli_.float, bernoulli_.Tensor, native_dropout, native_dropout_backward).
// Random ops are pure functions of (seed, offset), so the
// device must give the reference's bits: every layout of self (element i is row-major i
// whatever the strides), 0-d, empty, large (threaded) calls, seeds with their high bits set,
// an offset whose counter wraps past 2^64, and each op's error inputs. docs/random.md.
#include "records_internal.hpp"

#include <cstdint>
#include <limits>
#include <optional>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using L = Layout;
using T = ScalarType;

// Seeds and offsets: the schema's ints carry their 64 bits.
constexpr int64_t kSeed = 20261206;
constexpr int64_t kHighSeed = -3;    // 0xFFFF...FD: both key words nonzero
constexpr int64_t kWrapOffset = -5;  // counters 2^64 - 5 ... wrap to 0

// A random op on self [sizes] in `layout`, with `middle` between self and (seed, offset).
Sample random_sample(std::string name, bool quick, ScalarType t, Shape sizes, Args middle,
                     int64_t seed = kSeed, int64_t offset = 0, L layout = L::Contiguous) {
  MakeArgs make = [=](InputMaker& m) -> Args {
    Args args{m.tensor(sizes, t, Values::Normal, layout)};
    for (const IValue& v : middle) args.push_back(v);
    args.emplace_back(seed);
    args.emplace_back(offset);
    return args;
  };
  return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
}

// The samples every random op shares: shapes, layouts, seeds and offsets.
std::vector<Sample> common_random_samples(ScalarType t, const Args& middle) {
  return {
      random_sample("contiguous_7x13", true, t, {7, 13}, middle),
      random_sample("scalar_0d", true, t, {}, middle),
      random_sample("empty_0x5", true, t, {0, 5}, middle),
      random_sample("offset_1000_5x8", true, t, {5, 8}, middle, kSeed, 1000),
      random_sample("high_seed_9x5", true, t, {9, 5}, middle, kHighSeed, 3),
      random_sample("wrapping_counter_4x4", true, t, {4, 4}, middle, 11, kWrapOffset),
      random_sample("transposed_17x9", false, t, {17, 9}, middle, kSeed, 0, L::Transposed),
      random_sample("strided_6x10", false, t, {6, 10}, middle, kSeed, 0, L::Strided),
      random_sample("permuted_3x4x5", false, t, {3, 4, 5}, middle, kSeed, 0, L::Permuted),
      random_sample("large_1031x257", false, t, {1031, 257}, middle),
  };
}

Sample random_error(std::string name, std::string expect, ScalarType t, Args middle) {
  return error_sample(std::move(name), std::move(expect), [=](InputMaker& m) -> Args {
    Args args{m.tensor({4, 3}, t)};
    for (const IValue& v : middle) args.push_back(v);
    args.emplace_back(kSeed);
    args.emplace_back(int64_t{0});
    return args;
  });
}

std::vector<Sample> uniform_samples(ScalarType t) {
  std::vector<Sample> out = common_random_samples(t, {0.0, 1.0});
  append_samples(out, {
                          random_sample("range_minus3_5_6x7", true, t, {6, 7}, {-3.0, 5.0}),
                          random_sample("equal_bounds_5", true, t, {5}, {2.5, 2.5}),
                          random_error("error_from_above_to", "from", t, {2.0, 1.0}),
                          random_error("error_infinite_to", "finite", t,
                                       {0.0, std::numeric_limits<double>::infinity()}),
                          random_error("error_integer_self", "floating", T::Int32, {0.0, 1.0}),
                      });
  return out;
}

std::vector<Sample> normal_samples(ScalarType t) {
  std::vector<Sample> out = common_random_samples(t, {0.0, 1.0});
  append_samples(out, {
                          random_sample("mean_2.5_std_0.5_6x7", true, t, {6, 7}, {2.5, 0.5}),
                          random_sample("std_0_5", true, t, {5}, {-1.0, 0.0}),
                          random_error("error_negative_std", "std", t, {0.0, -1.0}),
                          random_error("error_nan_std", "std", t,
                                       {0.0, std::numeric_limits<double>::quiet_NaN()}),
                          random_error("error_integer_self", "floating", T::Int32, {0.0, 1.0}),
                      });
  return out;
}

std::vector<Sample> random_from_samples(ScalarType t) {
  const bool is_bool = t == T::Bool;
  const int64_t lo = is_bool || t == T::UInt8 ? 0 : -5;
  const int64_t hi = is_bool ? 2 : 5;
  std::vector<Sample> out = common_random_samples(t, {lo, hi});
  append_samples(
      out, {
               random_sample("to_none_from_0_6x7", true, t, {6, 7}, {int64_t{0}, IValue()}),
               random_error("error_from_not_below_to", "less than", t, {int64_t{1}, int64_t{1}}),
           });
  if (!is_bool && t != T::Int8 && t != T::UInt8)
    out.push_back(
        random_sample("range_minus300_300_6x7", true, t, {6, 7}, {int64_t{-300}, int64_t{300}}));
  if (t == T::Int64 || t == T::Float64)  // a range of 2^40 draws 64 bits
    out.push_back(
        random_sample("range_2pow40_6x7", true, t, {6, 7}, {int64_t{0}, int64_t{1} << 40}));
  if (t == T::Int64 || t == T::Float64 || t == T::Float32 || t == T::BFloat16)
    out.push_back(random_sample("full_64_bits_6x7", true, t, {6, 7},
                                {std::numeric_limits<int64_t>::min(), IValue()}));
  if (t == T::UInt8)
    out.push_back(
        random_error("error_to_out_of_bounds", "out of bounds", t, {int64_t{0}, int64_t{300}}));
  return out;
}

std::vector<Sample> random_to_samples(ScalarType t) {
  std::vector<Sample> out = common_random_samples(t, {int64_t{t == T::Bool ? 2 : 7}});
  out.push_back(random_error("error_to_not_above_0", "less than", t, {int64_t{0}}));
  return out;
}

std::vector<Sample> random_default_samples(ScalarType t) {
  return common_random_samples(t, {});
}

std::vector<Sample> bernoulli_float_samples(ScalarType t) {
  std::vector<Sample> out = common_random_samples(t, {0.5});
  append_samples(out, {
                          random_sample("p_0_5x5", true, t, {5, 5}, {0.0}),
                          random_sample("p_1_5x5", true, t, {5, 5}, {1.0}),
                          random_sample("p_0.1_6x7", true, t, {6, 7}, {0.1}),
                          random_error("error_p_above_1", "[0, 1]", t, {1.5}),
                      });
  return out;
}

// p: Unit values in (-1, 1) (those <= 0 give 0), broadcast or of self's shape, f32 or f64.
std::vector<Sample> bernoulli_tensor_samples(ScalarType t) {
  auto sample = [t](std::string name, bool quick, Shape sizes, Shape p_sizes, ScalarType p_dtype,
                    L layout = L::Contiguous) {
    MakeArgs make = [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, Values::Normal, layout), m.tensor(p_sizes, p_dtype, Values::Unit),
              kSeed, int64_t{7}};
    };
    return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
  };
  return {
      sample("same_shape_7x13", true, {7, 13}, {7, 13}, T::Float32),
      sample("broadcast_row_7x13", true, {7, 13}, {13}, T::Float32),
      sample("f64_p_5x6", true, {5, 6}, {5, 6}, T::Float64),
      sample("scalar_0d", true, {}, {}, T::Float32),
      sample("empty_0x5", true, {0, 5}, {5}, T::Float32),
      sample("transposed_17x9", false, {17, 9}, {17, 9}, T::Float32, L::Transposed),
      sample("large_1031x257", false, {1031, 257}, {257}, T::Float32),
      error_sample("error_integer_p", "floating",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4}, t), m.tensor({4}, T::Int32), kSeed, int64_t{0}};
                   }),
      error_sample("error_p_not_broadcastable", "broadcast",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4}, t), m.tensor({5}, T::Float32), kSeed, int64_t{0}};
                   }),
  };
}

std::vector<Sample> native_dropout_samples(ScalarType t) {
  auto sample = [t](std::string name, bool quick, Shape sizes, double p, IValue train) {
    MakeArgs make = [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, Values::Special), p, train, kSeed, int64_t{5}};
    };
    return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
  };
  return {
      sample("train_p_0.5_7x13", true, {7, 13}, 0.5, true),
      sample("train_none_p_0.2_7x13", true, {7, 13}, 0.2, IValue()),
      sample("train_p_0_5x5", true, {5, 5}, 0.0, true),
      sample("train_p_1_5x5", true, {5, 5}, 1.0, true),
      sample("eval_5x5", true, {5, 5}, 0.5, false),
      sample("scalar_0d", true, {}, 0.5, true),
      sample("empty_0x5", true, {0, 5}, 0.5, true),
      sample("large_1031x257", false, {1031, 257}, 0.1, true),
      error_sample("error_p_above_1", "[0, 1]",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4}, t), 1.5, true, kSeed, int64_t{0}};
                   }),
      error_sample("error_integer_input", "floating",
                   [](InputMaker& m) -> Args {
                     return {m.tensor({4}, T::Int32), 0.5, true, kSeed, int64_t{0}};
                   }),
  };
}

std::vector<Sample> native_dropout_backward_samples(ScalarType t) {
  auto sample = [t](std::string name, bool quick, Shape sizes, Shape mask_sizes, double scale) {
    MakeArgs make = [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, Values::Special), m.tensor(mask_sizes, T::Bool), scale};
    };
    return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
  };
  return {
      sample("same_shape_7x13", true, {7, 13}, {7, 13}, 2.0),
      sample("broadcast_mask_7x13", true, {7, 13}, {13}, 1.25),
      sample("scalar_0d", true, {}, {}, 2.0),
      sample("empty_0x5", true, {0, 5}, {0, 5}, 2.0),
      error_sample("error_float_mask", "bool",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4}, t), m.tensor({4}, t), 2.0};
                   }),
  };
}

}  // namespace

void add_random_records(std::vector<OpRecord>& out) {
  out.push_back({"uniform_", floating_dtypes(), uniform_samples});
  out.push_back({"normal_", floating_dtypes(), normal_samples});
  out.push_back({"random_.from", all_dtypes(), random_from_samples});
  out.push_back({"random_.to", all_dtypes(), random_to_samples});
  out.push_back({"random_", all_dtypes(), random_default_samples});
  out.push_back({"bernoulli_.float", all_dtypes(), bernoulli_float_samples});
  out.push_back({"bernoulli_.Tensor", all_dtypes(), bernoulli_tensor_samples});
  out.push_back({"native_dropout", floating_dtypes(), native_dropout_samples});
  out.push_back({"native_dropout_backward", floating_dtypes(), native_dropout_backward_samples});
}

}  // namespace bp::conformance::detail
