// Conformance records of op set v2's pooling ops, floating dtypes: max_pool2d_with_indices,
// avg_pool2d and _adaptive_avg_pool2d and their backward ops. Windows with stride, padding,
// dilation and ceil_mode (windows that reach past the input), count_include_pad and
// divisor_override, unbatched and empty-batch inputs, ties (the first index) and special
// values (NaN is the maximum), adaptive windows that overlap (an output larger than the
// input), and the error inputs. The max gradient's indices come from the reference's forward.
#include "records_internal.hpp"

#include "backplane/ops.hpp"

#include <optional>
#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using V = Values;

struct PoolCase {
  const char* name;
  bool quick;
  Shape input, kernel, stride, padding, dilation{1};
  bool ceil_mode = false;
  V values = V::Normal;
};

const std::vector<PoolCase>& pool_cases() {
  static const std::vector<PoolCase> cases = {
      {"k2_2x3x8x8", true, {2, 3, 8, 8}, {2}, {}, {0}},
      {"k3_s2_p1_1x2x9x9", true, {1, 2, 9, 9}, {3}, {2}, {1}},
      {"asymmetric_dilated_1x2x9x8", true, {1, 2, 9, 8}, {3, 2}, {1, 2}, {1, 1}, {1, 2}},
      {"ceil_mode_1x2x7x7", true, {1, 2, 7, 7}, {3}, {2}, {1}, {1}, true},
      {"unbatched_3x6x6", true, {3, 6, 6}, {2}, {2}, {1}},
      {"empty_batch_0x2x4x4", true, {0, 2, 4, 4}, {2}, {}, {0}},
      {"ties_1x2x6x6", true, {1, 2, 6, 6}, {3}, {1}, {1}, {1}, false, V::Ties},
      {"special_values_1x2x4x4", false, {1, 2, 4, 4}, {2}, {1}, {0}, {1}, false, V::Special},
      {"resnet_stem_2x64x56x56", false, {2, 64, 56, 56}, {3}, {2}, {1}},
  };
  return cases;
}

// The pooled shape of a case (PyTorch's pooling_output_shape).
Shape pooled_of(const PoolCase& c) {
  Shape out(c.input.begin(), c.input.end() - 2);
  for (size_t d = 0; d < 2; ++d) {
    const auto pick = [d](const Shape& v, int64_t fallback) {
      return v.empty() ? fallback : v.size() == 1 ? v[0] : v[d];
    };
    const int64_t k = pick(c.kernel, 1), s = pick(c.stride, k), p = pick(c.padding, 0);
    const int64_t dil = pick(c.dilation, 1), in = c.input[c.input.size() - 2 + d];
    const int64_t span = in + 2 * p - dil * (k - 1) - 1 + (c.ceil_mode ? s - 1 : 0);
    int64_t size = span / s + 1;
    if (c.ceil_mode && (size - 1) * s >= in + p) --size;
    out.push_back(size);
  }
  return out;
}

int64_t window_of(const PoolCase& c) {
  return c.kernel.size() == 1 ? c.kernel[0] * c.kernel[0] : c.kernel[0] * c.kernel[1];
}

std::vector<Sample> max_pool_samples(ScalarType t, bool backward) {
  std::vector<Sample> out;
  for (const PoolCase& c : pool_cases()) {
    MakeArgs make = [c, t, backward](InputMaker& m) -> Args {
      const Tensor self = m.tensor(c.input, t, c.values);
      if (!backward) return {self, c.kernel, c.stride, c.padding, c.dilation, c.ceil_mode};
      const std::vector<int64_t> k(c.kernel.begin(), c.kernel.end()),
          s(c.stride.begin(), c.stride.end()), p(c.padding.begin(), c.padding.end()),
          d(c.dilation.begin(), c.dilation.end());
      const Tensor indices = bp::max_pool2d_with_indices(self, k, s, p, d, c.ceil_mode)[1];
      return {m.tensor(pooled_of(c), t),
              self,
              c.kernel,
              c.stride,
              c.padding,
              c.dilation,
              c.ceil_mode,
              indices};
    };
    out.push_back(Sample{c.name, c.quick, std::move(make), std::nullopt, window_of(c)});
  }
  if (backward) return out;
  out.push_back(
      error_sample("error_padding_over_half_kernel", "at most half", [t](InputMaker& m) -> Args {
        return {m.tensor({1, 1, 5, 5}, t), Shape{2}, Shape{}, Shape{2}, Shape{1}, false};
      }));
  out.push_back(
      error_sample("error_output_too_small", "must be positive", [t](InputMaker& m) -> Args {
        return {m.tensor({1, 1, 2, 2}, t), Shape{3}, Shape{}, Shape{0}, Shape{1}, false};
      }));
  out.push_back(error_sample("error_2d_input", "pooling takes", [t](InputMaker& m) -> Args {
    return {m.tensor({4, 4}, t), Shape{2}, Shape{}, Shape{0}, Shape{1}, false};
  }));
  return out;
}

struct AvgCase {
  PoolCase pool;
  bool count_include_pad = true;
  std::optional<int64_t> divisor = std::nullopt;
};

const std::vector<AvgCase>& avg_cases() {
  static const std::vector<AvgCase> cases = {
      {{"k2_2x3x8x8", true, {2, 3, 8, 8}, {2}, {}, {0}}},
      {{"k3_s2_p1_1x2x9x9", true, {1, 2, 9, 9}, {3}, {2}, {1}}},
      {{"exclude_pad_1x2x9x9", true, {1, 2, 9, 9}, {3}, {2}, {1}}, false},
      {{"ceil_mode_1x2x7x7", true, {1, 2, 7, 7}, {3}, {2}, {1}, {1}, true}},
      {{"ceil_mode_exclude_pad_1x2x6x5", true, {1, 2, 6, 5}, {3, 2}, {2, 2}, {1, 1}, {1}, true},
       false},
      {{"divisor_override_1x2x6x6", true, {1, 2, 6, 6}, {3}, {2}, {1}}, true, 5},
      {{"unbatched_3x6x6", true, {3, 6, 6}, {2}, {2}, {1}}},
      {{"empty_batch_0x2x4x4", true, {0, 2, 4, 4}, {2}, {}, {0}}},
      {{"special_values_1x2x4x4", false, {1, 2, 4, 4}, {2}, {1}, {0}, {1}, false, V::Special}},
      {{"large_2x64x28x28", false, {2, 64, 28, 28}, {3}, {2}, {1}}},
  };
  return cases;
}

std::vector<Sample> avg_pool_samples(ScalarType t, bool backward) {
  std::vector<Sample> out;
  for (const AvgCase& a : avg_cases()) {
    MakeArgs make = [a, t, backward](InputMaker& m) -> Args {
      const PoolCase& c = a.pool;
      const IValue divisor = a.divisor ? IValue(*a.divisor) : IValue();
      const Tensor self = m.tensor(c.input, t, c.values);
      if (!backward)
        return {self, c.kernel, c.stride, c.padding, c.ceil_mode, a.count_include_pad, divisor};
      return {m.tensor(pooled_of(c), t, c.values),
              self,
              c.kernel,
              c.stride,
              c.padding,
              c.ceil_mode,
              a.count_include_pad,
              divisor};
    };
    out.push_back(
        Sample{a.pool.name, a.pool.quick, std::move(make), std::nullopt, window_of(a.pool)});
  }
  out.push_back(
      error_sample("error_divisor_zero", "divisor_override", [t, backward](InputMaker& m) -> Args {
        const Tensor self = m.tensor({1, 1, 4, 4}, t);
        if (!backward) return {self, Shape{2}, Shape{}, Shape{0}, false, true, int64_t{0}};
        return {
            m.tensor({1, 1, 2, 2}, t), self, Shape{2}, Shape{2}, Shape{0}, false, true, int64_t{0}};
      }));
  return out;
}

// _adaptive_avg_pool2d: input shape and output size; windows overlap when the output is
// larger than the input or does not divide it.
const std::vector<std::pair<const char*, std::pair<Shape, Shape>>>& adaptive_cases() {
  static const std::vector<std::pair<const char*, std::pair<Shape, Shape>>> cases = {
      {"to_3x4_from_2x3x7x9", {{2, 3, 7, 9}, {3, 4}}},
      {"to_1x1_from_2x3x5x5", {{2, 3, 5, 5}, {1, 1}}},
      {"identity_1x2x7x9", {{1, 2, 7, 9}, {7, 9}}},
      {"upsampling_to_9x11_from_1x2x4x5", {{1, 2, 4, 5}, {9, 11}}},
      {"unbatched_3x6x6_to_4x4", {{3, 6, 6}, {4, 4}}},
      {"empty_batch_0x2x4x4", {{0, 2, 4, 4}, {2, 2}}},
      {"empty_output_1x2x4x4_to_0x2", {{1, 2, 4, 4}, {0, 2}}},
      {"large_2x64x28x28_to_7x7", {{2, 64, 28, 28}, {7, 7}}},
  };
  return cases;
}

std::vector<Sample> adaptive_samples(ScalarType t, bool backward) {
  std::vector<Sample> out;
  for (const auto& [name, shapes] : adaptive_cases()) {
    const Shape input = shapes.first, size = shapes.second;
    Shape pooled(input.begin(), input.end() - 2);
    pooled.push_back(size[0]);
    pooled.push_back(size[1]);
    // K: the largest window, about (in / out + 1) per dim.
    const int64_t k = (input[input.size() - 2] / std::max<int64_t>(size[0], 1) + 1) *
                      (input.back() / std::max<int64_t>(size[1], 1) + 1);
    MakeArgs make = [=](InputMaker& m) -> Args {
      const Tensor self = m.tensor(input, t);
      if (!backward) return {self, size};
      return {m.tensor(pooled, t), self};
    };
    const bool quick = std::string(name).rfind("large", 0) != 0;
    out.push_back(Sample{name, quick, std::move(make), std::nullopt, k});
  }
  if (!backward)
    out.push_back(
        error_sample("error_negative_size", "must not be negative", [t](InputMaker& m) -> Args {
          return {m.tensor({1, 1, 4, 4}, t), Shape{-1, 2}};
        }));
  return out;
}

}  // namespace

void add_pooling_records(std::vector<OpRecord>& out) {
  out.push_back({"max_pool2d_with_indices", floating_dtypes(),
                 [](ScalarType t) { return max_pool_samples(t, false); }});
  out.push_back({"max_pool2d_with_indices_backward", floating_dtypes(),
                 [](ScalarType t) { return max_pool_samples(t, true); }});
  out.push_back(
      {"avg_pool2d", floating_dtypes(), [](ScalarType t) { return avg_pool_samples(t, false); }});
  out.push_back({"avg_pool2d_backward", floating_dtypes(),
                 [](ScalarType t) { return avg_pool_samples(t, true); }});
  out.push_back({"_adaptive_avg_pool2d", floating_dtypes(),
                 [](ScalarType t) { return adaptive_samples(t, false); }});
  out.push_back({"_adaptive_avg_pool2d_backward", floating_dtypes(),
                 [](ScalarType t) { return adaptive_samples(t, true); }});
}

}  // namespace bp::conformance::detail
