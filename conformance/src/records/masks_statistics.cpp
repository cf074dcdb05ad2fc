// Conformance records of op set v2's masking ops (masked_fill.Scalar, masked_fill.Tensor,
// tril, triu; every dtype) and statistics (var.correction, std.correction: floating;
// logsumexp: every dtype, integral ones giving f32). Samples cover broadcasting masks,
// 0-d and empty operands, batches of matrices and non-square ones, diagonals on both sides
// and past the matrix, corrections of 0, 1, N and beyond, full and partial reductions with
// keepdim, infinities and NaN, and the inputs PyTorch refuses. The case dtype is self's.
#include "records_internal.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using V = Values;
using L = Layout;
using T = ScalarType;

// masked_fill(self [self_sizes], mask [mask_sizes], value): `tensor_value` passes the value
// as a 0-d tensor of `value_dtype`.
MakeArgs masked_fill_of(ScalarType t, Shape self_sizes, Shape mask_sizes, bool tensor_value,
                        ScalarType value_dtype, L layout = L::Contiguous, V values = V::Normal) {
  return [=](InputMaker& m) -> Args {
    Tensor self = m.tensor(self_sizes, t, values, layout);
    Tensor mask = m.tensor(mask_sizes, T::Bool, V::Normal, layout);
    if (tensor_value) return {self, mask, m.tensor({}, value_dtype, V::Special)};
    return {self, mask, natural_value(t)};
  };
}

std::vector<Sample> masked_fill_samples(ScalarType t, bool tensor_value) {
  const ScalarType vt = tensor_value && is_floating(t) ? T::Float64 : t;
  auto q = [&](std::string name, Shape s, Shape m, L layout = L::Contiguous) {
    return quick_sample(std::move(name), masked_fill_of(t, s, m, tensor_value, vt, layout));
  };
  auto f = [&](std::string name, Shape s, Shape m, L layout = L::Contiguous, V v = V::Normal) {
    return full_sample(std::move(name), masked_fill_of(t, s, m, tensor_value, vt, layout, v));
  };
  std::vector<Sample> out = {
      q("same_shape_7x13", {7, 13}, {7, 13}),
      q("mask_row_broadcast_6x5", {6, 5}, {5}),
      q("self_broadcast_5_by_mask_3x5", {5}, {3, 5}),
      q("scalar_0d", {}, {}),
      q("empty_0x4", {0, 4}, {0, 4}),
      f("transposed_17x9", {17, 9}, {17, 9}, L::Transposed),
      f("special_values_16", {16}, {16}, L::Contiguous, V::Special),
      f("large_512x1031", {512, 1031}, {1031}),
      error_sample("error_mask_not_bool", "must be a bool tensor",
                   [t, tensor_value](InputMaker& m) -> Args {
                     const IValue value =
                         tensor_value ? IValue(m.tensor({}, t)) : IValue(natural_value(t));
                     return {m.tensor({4}, t), m.tensor({4}, T::UInt8, V::Unit), value};
                   }),
      error_sample("error_broadcast", "broadcast",
                   masked_fill_of(t, {4, 3}, {5, 3}, tensor_value, vt)),
  };
  if (tensor_value) {
    out.push_back(error_sample("error_value_1d", "must be a 0-d tensor", [t](InputMaker& m) {
      return Args{m.tensor({4}, t), m.tensor({4}, T::Bool), m.tensor({1}, t)};
    }));
  } else if (t == T::Int8) {
    out.push_back(error_sample("error_value_overflow", "overflow", [](InputMaker& m) {
      return Args{m.tensor({4}, T::Int8), m.tensor({4}, T::Bool), Scalar(int64_t{300})};
    }));
  }
  return out;
}

// tril / triu(self [sizes], diagonal).
std::vector<Sample> triangle_samples(ScalarType t) {
  auto make = [t](Shape sizes, int64_t diagonal, L layout = L::Contiguous, V v = V::Normal) {
    return MakeArgs([=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, v, layout), diagonal};
    });
  };
  return {
      quick_sample("square_5x5", make({5, 5}, 0)),
      quick_sample("wide_4x7_diagonal_2", make({4, 7}, 2)),
      quick_sample("tall_7x4_diagonal_minus_1", make({7, 4}, -1)),
      quick_sample("batch_3x4x5", make({3, 4, 5}, 1)),
      quick_sample("diagonal_past_the_matrix", make({4, 5}, 9)),
      quick_sample("diagonal_before_the_matrix", make({4, 5}, -9)),
      quick_sample("empty_2x0x3", make({2, 0, 3}, 0)),
      full_sample("transposed_17x9", make({17, 9}, 0, L::Transposed)),
      full_sample("special_values_4x4", make({4, 4}, 0, L::Contiguous, V::Special)),
      full_sample("large_1024x1031", make({1024, 1031}, 3)),
      error_sample("error_1d", "at least 2 dims", make({5}, 0)),
      error_sample("error_0d", "at least 2 dims", make({}, 0)),
  };
}

// var / std.correction(self [sizes], dim, correction, keepdim), K = the reduced count.
Sample variance_sample(std::string name, bool quick, ScalarType t, Shape sizes,
                       std::optional<Shape> dims, std::optional<int64_t> correction, bool keepdim,
                       L layout = L::Contiguous, V values = V::Normal) {
  int64_t k = 1;
  if (!dims || dims->empty()) {
    k = numel_of(sizes);
  } else {
    for (int64_t d : *dims)
      k *= sizes[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(sizes.size()) : d)];
  }
  MakeArgs make = [=](InputMaker& m) -> Args {
    return {m.tensor(sizes, t, values, layout), IValue(dims),
            correction ? IValue(*correction) : IValue(), keepdim};
  };
  return Sample{std::move(name), quick, std::move(make), std::nullopt, std::max<int64_t>(k, 1)};
}

std::vector<Sample> variance_samples(ScalarType t) {
  const auto none = std::nullopt;
  return {
      variance_sample("full_7x13", true, t, {7, 13}, none, none, false),
      variance_sample("dim1_7x13", true, t, {7, 13}, Shape{1}, none, false),
      variance_sample("dims_0_2_keepdim_3x4x5", true, t, {3, 4, 5}, Shape{0, -1}, 1, true),
      variance_sample("correction_0_6x9", true, t, {6, 9}, Shape{0}, 0, false),
      variance_sample("correction_equals_n", true, t, {6, 9}, Shape{1}, 9, false),
      variance_sample("correction_beyond_n", true, t, {6, 9}, Shape{1}, 12, false),
      variance_sample("correction_negative", true, t, {6, 9}, Shape{1}, -1, false),
      variance_sample("scalar_0d", true, t, {}, none, none, false),
      variance_sample("empty_0x5_dim0", true, t, {0, 5}, Shape{0}, none, false),
      variance_sample("transposed_17x9_dim0", false, t, {17, 9}, Shape{0}, none, false,
                      L::Transposed),
      variance_sample("special_values_16", false, t, {16}, none, none, false, L::Contiguous,
                      V::Special),
      variance_sample("large_256x4099_dim1", false, t, {256, 4099}, Shape{1}, none, false),
      error_sample("error_integral", "floating",
                   [](InputMaker& m) -> Args {
                     return {m.tensor({5}, T::Int32), IValue(), IValue(), false};
                   }),
      error_sample("error_duplicate_dim", "more than once",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4, 5}, t), Shape{1, -1}, IValue(), false};
                   }),
  };
}

// logsumexp(self [sizes], dim, keepdim).
std::vector<Sample> logsumexp_samples(ScalarType t) {
  auto s = [t](std::string name, bool quick, Shape sizes, Shape dims, bool keepdim, V v = V::Normal,
               L layout = L::Contiguous) {
    int64_t k = 1;
    for (int64_t d : dims)
      k *= sizes.empty()
               ? 1
               : sizes[static_cast<size_t>(d < 0 ? d + static_cast<int64_t>(sizes.size()) : d)];
    MakeArgs make = [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, v, layout), dims, keepdim};
    };
    return Sample{std::move(name), quick, std::move(make), std::nullopt, std::max<int64_t>(k, 1)};
  };
  return {
      s("dim1_7x13", true, {7, 13}, {1}, false),
      s("dim0_keepdim_7x13", true, {7, 13}, {0}, true),
      s("dims_0_2_3x4x5", true, {3, 4, 5}, {0, -1}, false),
      s("scalar_0d", true, {}, {0}, false),
      s("empty_rows_0x5_dim0", true, {0, 5}, {0}, false),
      s("wide_values_9x127", true, {9, 127}, {1}, false, V::Wide),
      s("special_values_4x8", false, {4, 8}, {1}, false, V::Special),
      s("transposed_17x9", false, {17, 9}, {1}, false, V::Normal, L::Transposed),
      s("large_512x2049", false, {512, 2049}, {1}, false),
      error_sample("error_dim_out_of_range", "must be in",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4, 5}, t), Shape{2}, false};
                   }),
  };
}

}  // namespace

void add_mask_and_statistics_records(std::vector<OpRecord>& out) {
  out.push_back({"masked_fill.Scalar", all_dtypes(),
                 [](ScalarType t) { return masked_fill_samples(t, false); }});
  out.push_back({"masked_fill.Tensor", all_dtypes(),
                 [](ScalarType t) { return masked_fill_samples(t, true); }});
  out.push_back({"tril", all_dtypes(), triangle_samples});
  out.push_back({"triu", all_dtypes(), triangle_samples});
  out.push_back({"var.correction", floating_dtypes(), variance_samples});
  out.push_back({"std.correction", floating_dtypes(), variance_samples});
  out.push_back({"logsumexp", all_dtypes(), logsumexp_samples});
}

}  // namespace bp::conformance::detail
