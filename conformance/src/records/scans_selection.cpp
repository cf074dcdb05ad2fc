// Conformance records of op set v2's scans (cumsum, cumprod) and selections over one dim
// (max.dim, min.dim), every input dtype. Scans: each dim of a 3-D input, 0-d, empty, every
// layout, the `dtype` argument, integer wrap-around (wide values) and special values; the
// integral and bool inputs give i64. Selections: ties (the first index), NaN (the extreme, at
// its first index), keepdim, 0-d, and the empty dim PyTorch refuses.
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

// A scan or a selection of self [sizes] over `dim`, then `tail` (dtype or keepdim).
Sample one_dim_sample(std::string name, bool quick, ScalarType t, Shape sizes, int64_t dim,
                      IValue tail, V values = V::Normal, L layout = L::Contiguous) {
  const auto n = static_cast<int64_t>(sizes.size());
  const int64_t k =
      sizes.empty() ? 1 : std::max<int64_t>(1, sizes[static_cast<size_t>((dim + n) % n)]);
  MakeArgs make = [=](InputMaker& m) -> Args {
    return {m.tensor(sizes, t, values, layout), dim, tail};
  };
  return Sample{std::move(name), quick, std::move(make), std::nullopt, k};
}

// Products of Normal values over long lines overflow or vanish; Unit values stay in range.
std::vector<Sample> scan_samples(ScalarType t, bool product) {
  const IValue none;
  const V v = product ? V::Unit : V::Normal;
  const IValue widen = is_floating(t) ? IValue(T::Float64) : IValue(T::Int64);
  return {
      one_dim_sample("dim0_7x13", true, t, {7, 13}, 0, none, v),
      one_dim_sample("dim1_7x13", true, t, {7, 13}, 1, none, v),
      one_dim_sample("negative_dim_3x4x5", true, t, {3, 4, 5}, -2, none, v),
      one_dim_sample("scalar_0d", true, t, {}, 0, none, v),
      one_dim_sample("empty_0x5_dim1", true, t, {0, 5}, 1, none, v),
      one_dim_sample("dtype_widened", true, t, {6, 9}, 1, widen, v),
      one_dim_sample("transposed_17x9", false, t, {17, 9}, 1, none, v, L::Transposed),
      one_dim_sample("permuted_3x4x5_dim0", false, t, {3, 4, 5}, 0, none, v, L::Permuted),
      one_dim_sample("wide_values_5x33", false, t, {5, 33}, 1, none, V::Wide),
      one_dim_sample("special_values_16", false, t, {16}, 0, none, V::Special),
      one_dim_sample("large_1024x1031_dim1", false, t, {1024, 1031}, 1, none, v),
      one_dim_sample("large_4099x64_dim0", false, t, {4099, 64}, 0, none, v),
      error_sample("error_dim_out_of_range", "must be in",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4, 5}, t), int64_t{2}, IValue()};
                   }),
      error_sample("error_bool_result", "bool",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4}, t), int64_t{0}, IValue(T::Bool)};
                   }),
  };
}

std::vector<Sample> extreme_dim_samples(ScalarType t) {
  return {
      one_dim_sample("dim1_7x13", true, t, {7, 13}, 1, false),
      one_dim_sample("dim0_keepdim_7x13", true, t, {7, 13}, 0, true),
      one_dim_sample("ties_6x9", true, t, {6, 9}, 1, false, V::Ties),
      one_dim_sample("negative_dim_3x4x5", true, t, {3, 4, 5}, -1, true),
      one_dim_sample("scalar_0d", true, t, {}, 0, false),
      one_dim_sample("empty_rows_0x5_dim1", true, t, {0, 5}, 1, false),
      one_dim_sample("special_values_4x8", false, t, {4, 8}, 1, false, V::Special),
      one_dim_sample("transposed_17x9", false, t, {17, 9}, 0, false, V::Normal, L::Transposed),
      one_dim_sample("large_512x2049", false, t, {512, 2049}, 1, false),
      error_sample("error_empty_dim", "size 0",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({3, 0}, t), int64_t{1}, false};
                   }),
  };
}

}  // namespace

void add_scan_and_selection_records(std::vector<OpRecord>& out) {
  out.push_back({"cumsum", all_dtypes(), [](ScalarType t) { return scan_samples(t, false); }});
  out.push_back({"cumprod", all_dtypes(), [](ScalarType t) { return scan_samples(t, true); }});
  out.push_back({"max.dim", all_dtypes(), extreme_dim_samples});
  out.push_back({"min.dim", all_dtypes(), extreme_dim_samples});
}

}  // namespace bp::conformance::detail
