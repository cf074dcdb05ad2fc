// Conformance records of the elementwise group: the unary ops (elementwise_unary.cpp), the
// binary ops in every overload (elementwise_binary.cpp) and, here, clamp, whose bounds are
// optional Python numbers: min only, max only, both, min > max (the result is max), NaN and
// infinite bounds, float bounds on integer tensors (promotion), and the bound checks.
#include "elementwise_common.hpp"

#include <limits>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;

struct Bounds {
  Scalar lo, hi;
};

// Bounds inside the range of the values the samples draw (Normal), per dtype.
Bounds bounds_for(ScalarType dt) {
  if (is_floating(dt)) return {Scalar(-0.5), Scalar(0.75)};
  if (dt == ScalarType::UInt8) return {Scalar(int64_t{2}), Scalar(int64_t{6})};
  // A bool tensor with int bounds computes in i64 (the bounds promote it).
  if (dt == ScalarType::Bool) return {Scalar(int64_t{0}), Scalar(int64_t{1})};
  return {Scalar(int64_t{-3}), Scalar(int64_t{4})};
}

IValue opt(std::optional<Scalar> s) {
  return s ? IValue(*s) : IValue();
}

std::vector<Sample> clamp_samples(ScalarType dt) {
  const Bounds b = bounds_for(dt);
  std::vector<Sample> out;
  auto clamp_of = [dt](Shape sizes, Layout layout, Values values, std::optional<Scalar> lo,
                       std::optional<Scalar> hi) {
    return [=](InputMaker& in) {
      return Args{in.tensor(as_ref(sizes), dt, values, layout), opt(lo), opt(hi)};
    };
  };
  const Values nv = Values::Normal;
  const Layout cl = Layout::Contiguous;
  out.push_back(quick_sample("min_only_7x13", clamp_of({7, 13}, cl, nv, b.lo, std::nullopt)));
  out.push_back(quick_sample("max_only_7x13", clamp_of({7, 13}, cl, nv, std::nullopt, b.hi)));
  out.push_back(quick_sample("both_7x13", clamp_of({7, 13}, cl, nv, b.lo, b.hi)));
  // min > max: every element becomes max (min(max(x, lo), hi)), as in PyTorch.
  out.push_back(quick_sample("min_gt_max_7x13", clamp_of({7, 13}, cl, nv, b.hi, b.lo)));
  out.push_back(quick_sample("scalar_0d", clamp_of({}, cl, nv, b.lo, b.hi)));
  out.push_back(quick_sample("empty_0x5", clamp_of({0, 5}, cl, nv, b.lo, b.hi)));
  out.push_back(
      quick_sample("transposed_17x9", clamp_of({17, 9}, Layout::Transposed, nv, b.lo, b.hi)));
  out.push_back(quick_sample("special_values", clamp_of({4, 8}, cl, Values::Special, b.lo, b.hi)));
  out.push_back(full_sample("strided_5x8", clamp_of({5, 8}, Layout::Strided, nv, b.lo, b.hi)));
  out.push_back(full_sample("offset_33", clamp_of({33}, Layout::Offset, nv, b.lo, std::nullopt)));
  out.push_back(
      full_sample("permuted_3x4x5", clamp_of({3, 4, 5}, Layout::Permuted, nv, b.lo, b.hi)));
  out.push_back(full_sample("wide_1031", clamp_of({1031}, cl, Values::Wide, b.lo, b.hi)));
  out.push_back(full_sample("large_263x251", clamp_of({263, 251}, cl, nv, b.lo, b.hi)));
  if (is_floating(dt)) {
    const double inf = std::numeric_limits<double>::infinity();
    out.push_back(full_sample("infinite_bounds_6x5",
                              clamp_of({6, 5}, cl, Values::Special, Scalar(-inf), Scalar(inf))));
    // A NaN bound makes every result NaN in the reference (docs/reference.md).
    out.push_back(full_sample(
        "nan_min_6x5",
        clamp_of({6, 5}, cl, nv, Scalar(std::numeric_limits<double>::quiet_NaN()), std::nullopt)));
  } else {
    // Float bounds promote an integral tensor to the default float dtype.
    out.push_back(
        quick_sample("float_bounds_7x13", clamp_of({7, 13}, cl, nv, Scalar(-1.5), Scalar(2.25))));
  }
  out.push_back(error_sample("error_no_bounds", "at least one",
                             clamp_of({3, 4}, cl, nv, std::nullopt, std::nullopt)));
  if (dt == ScalarType::Bool) {
    out.push_back(error_sample("error_bool_bounds", "bool tensors are not supported",
                               clamp_of({3, 4}, cl, nv, Scalar(false), Scalar(true))));
  } else if (dt != ScalarType::Int64 && !is_floating(dt)) {
    // A bound the computation dtype cannot hold is refused, not wrapped.
    out.push_back(error_sample("error_min_out_of_range", "overflow",
                               clamp_of({3, 4}, cl, nv, Scalar(int64_t{1} << 40), std::nullopt)));
  }
  return out;
}

}  // namespace

void add_clamp_record(std::vector<OpRecord>& out) {
  out.push_back(OpRecord{"clamp", all_dtypes(), clamp_samples});
}

void add_elementwise_records(std::vector<OpRecord>& out) {
  add_unary_records(out);
  add_binary_records(out);
  add_clamp_record(out);
}

}  // namespace bp::conformance::detail
