// Conformance records of hardtanh and hardtanh_backward (op set v2: mobilenet_v2's ReLU6):
// special values at and beyond the limits, ReLU6's (0, 6) and the default (-1, 1), integer
// limits on integer dtypes, broadcasting gradients, 0-d, empty, and the error inputs.
#include "records_internal.hpp"

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using L = Layout;
using T = ScalarType;

// hardtanh: special values against (-1, 1) and ReLU6's (0, 6), integer limits on integers.
std::vector<Sample> hardtanh_samples(ScalarType t) {
  const bool floating = is_floating(t);
  const Scalar lo = floating ? Scalar(-1.0) : Scalar(int64_t{-1});
  const Scalar hi = floating ? Scalar(1.0) : Scalar(int64_t{1});
  const Scalar relu6_lo = floating ? Scalar(0.0) : Scalar(int64_t{0});
  const Scalar relu6_hi = floating ? Scalar(6.0) : Scalar(int64_t{6});
  auto sample = [t](std::string name, bool quick, Shape sizes, Scalar a, Scalar b,
                    Values values = Values::Wide, L layout = L::Contiguous) {
    MakeArgs make = [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, values, layout), a, b};
    };
    return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
  };
  std::vector<Sample> out = {
      sample("relu6_7x13", true, {7, 13}, relu6_lo, relu6_hi, Values::Normal),
      sample("relu6_special_16", true, {16}, relu6_lo, relu6_hi, Values::Special),
      sample("scalar_0d", true, {}, relu6_lo, relu6_hi),
      sample("empty_0x5", true, {0, 5}, relu6_lo, relu6_hi),
      sample("transposed_17x9", false, {17, 9}, relu6_lo, relu6_hi, Values::Normal, L::Transposed),
      error_sample("error_bool_self", "bool",
                   [](InputMaker& m) -> Args {
                     return {m.tensor({4}, T::Bool), Scalar(0.0), Scalar(6.0)};
                   }),
  };
  if (t != T::UInt8)
    out.push_back(sample("unit_range_wide_6x7", true, {6, 7}, lo, hi));
  else
    out.push_back(
        error_sample("error_negative_limits_u8", "limits >= 0", [](InputMaker& m) -> Args {
          return {m.tensor({4}, T::UInt8), Scalar(int64_t{-1}), Scalar(int64_t{1})};
        }));
  return out;
}

std::vector<Sample> hardtanh_backward_samples(ScalarType t) {
  auto sample = [t](std::string name, bool quick, Shape grad_sizes, Shape sizes, double lo,
                    double hi) {
    MakeArgs make = [=](InputMaker& m) -> Args {
      return {m.tensor(grad_sizes, t), m.tensor(sizes, t, Values::Special), Scalar(lo), Scalar(hi)};
    };
    return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
  };
  return {
      sample("relu6_special_4x8", true, {4, 8}, {4, 8}, 0.0, 6.0),
      sample("odd_sized_5x7", true, {5, 7}, {5, 7}, 0.0, 6.0),
      sample("unit_range_special_4x8", true, {4, 8}, {4, 8}, -1.0, 1.0),
      sample("broadcast_grad_4x8", true, {8}, {4, 8}, 0.0, 6.0),
      sample("scalar_0d", true, {}, {}, 0.0, 6.0),
      sample("empty_0x5", true, {0, 5}, {0, 5}, 0.0, 6.0),
      error_sample(
          "error_integer_dtype", "floating",
          [](InputMaker& m) -> Args {
            return {m.tensor({4}, T::Int32), m.tensor({4}, T::Int32), Scalar(0.0), Scalar(6.0)};
          }),
  };
}

}  // namespace

void add_hardtanh_records(std::vector<OpRecord>& out) {
  out.push_back({"hardtanh", numeric_dtypes(), hardtanh_samples});
  out.push_back({"hardtanh_backward", floating_dtypes(), hardtanh_backward_samples});
}

}  // namespace bp::conformance::detail
