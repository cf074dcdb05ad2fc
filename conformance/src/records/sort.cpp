// Conformance records of the sorting ops (sort.stable, sort, argsort, argsort.stable, topk),
// every dtype: each dim of a 3-D input, both directions, ties (the stable order: equal
// values in index order), special values (NaN above every number, -0.0 equal to 0.0), 0-d,
// empty, every layout, many short lines and one long line, and the error inputs.
#include "records_internal.hpp"

#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using V = Values;
using L = Layout;

// self [sizes] in `layout` of `values`, then `tail` (the op's other arguments).
Sample sort_sample(std::string name, bool quick, ScalarType t, Shape sizes, Args tail,
                   V values = V::Normal, L layout = L::Contiguous) {
  MakeArgs make = [=](InputMaker& m) -> Args {
    Args args{m.tensor(sizes, t, values, layout)};
    for (const IValue& v : tail) args.push_back(v);
    return args;
  };
  return Sample{std::move(name), quick, std::move(make), std::nullopt, 1};
}

// sort.stable(self, *, stable, dim, descending)
std::vector<Sample> sort_stable_samples(ScalarType t) {
  auto args = [](IValue stable, int64_t dim, bool descending) {
    return Args{std::move(stable), dim, descending};
  };
  return {
      sort_sample("dim1_7x13", true, t, {7, 13}, args(true, 1, false)),
      sort_sample("dim0_descending_7x13", true, t, {7, 13}, args(true, 0, true)),
      sort_sample("negative_dim_3x4x5", true, t, {3, 4, 5}, args(IValue(), -2, false)),
      sort_sample("ties_6x40", true, t, {6, 40}, args(false, 1, false), V::Ties),
      sort_sample("ties_descending_6x40", true, t, {6, 40}, args(true, 1, true), V::Ties),
      sort_sample("special_values_24", true, t, {24}, args(true, 0, false), V::Special),
      sort_sample("special_values_descending_24", true, t, {24}, args(true, 0, true), V::Special),
      sort_sample("scalar_0d", true, t, {}, args(true, -1, false)),
      sort_sample("empty_0x5_dim1", true, t, {0, 5}, args(true, 1, false)),
      sort_sample("transposed_17x9", false, t, {17, 9}, args(true, 1, false), V::Normal,
                  L::Transposed),
      sort_sample("permuted_3x4x5_dim0", false, t, {3, 4, 5}, args(true, 0, true), V::Ties,
                  L::Permuted),
      sort_sample("many_lines_4099x64", false, t, {4099, 64}, args(true, 1, false), V::Wide),
      sort_sample("long_line_4097", false, t, {4097}, args(true, 0, true), V::Wide),
      error_sample("error_dim_out_of_range", "must be in",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4, 5}, t), true, int64_t{2}, false};
                   }),
  };
}

std::vector<Sample> sort_default_samples(ScalarType t) {
  return {
      sort_sample("dim1_7x13", true, t, {7, 13}, {int64_t{1}, false}),
      sort_sample("ties_descending_6x40", true, t, {6, 40}, {int64_t{-1}, true}, V::Ties),
      sort_sample("special_values_24", true, t, {24}, {int64_t{0}, false}, V::Special),
      sort_sample("scalar_0d", true, t, {}, {int64_t{0}, false}),
      sort_sample("empty_0x5", true, t, {0, 5}, {int64_t{1}, false}),
  };
}

std::vector<Sample> argsort_samples(ScalarType t) {
  return {
      sort_sample("dim1_7x13", true, t, {7, 13}, {int64_t{1}, false}),
      sort_sample("ties_descending_6x40", true, t, {6, 40}, {int64_t{-1}, true}, V::Ties),
      sort_sample("empty_0x5", true, t, {0, 5}, {int64_t{1}, false}),
      sort_sample("scalar_0d", true, t, {}, {int64_t{-1}, true}),
  };
}

std::vector<Sample> argsort_stable_samples(ScalarType t) {
  return {
      sort_sample("ties_6x40", true, t, {6, 40}, {true, int64_t{1}, false}, V::Ties),
      sort_sample("special_values_descending_24", true, t, {24}, {true, int64_t{0}, true},
                  V::Special),
      sort_sample("scalar_0d", true, t, {}, {false, int64_t{0}, false}),
      sort_sample("empty_0x5", true, t, {0, 5}, {true, int64_t{1}, false}),
      sort_sample("odd_sized_7x13", true, t, {7, 13}, {false, int64_t{0}, true}),
  };
}

// topk(self, k, dim, largest, sorted)
std::vector<Sample> topk_samples(ScalarType t) {
  auto args = [](int64_t k, int64_t dim, bool largest, bool sorted) {
    return Args{k, dim, largest, sorted};
  };
  return {
      sort_sample("k3_dim1_7x13", true, t, {7, 13}, args(3, 1, true, true)),
      sort_sample("k4_smallest_dim0_7x13", true, t, {7, 13}, args(4, 0, false, true)),
      sort_sample("k5_ties_6x40", true, t, {6, 40}, args(5, -1, true, false), V::Ties),
      sort_sample("k6_special_24", true, t, {24}, args(6, 0, true, true), V::Special),
      sort_sample("k_all_smallest_special_24", true, t, {24}, args(24, 0, false, true), V::Special),
      sort_sample("k0_5x6", true, t, {5, 6}, args(0, 1, true, true)),
      sort_sample("scalar_0d_k1", true, t, {}, args(1, 0, true, true)),
      sort_sample("empty_rows_0x5", true, t, {0, 5}, args(2, 1, true, true)),
      sort_sample("transposed_17x9", false, t, {17, 9}, args(3, 0, true, true), V::Normal,
                  L::Transposed),
      sort_sample("many_lines_4099x64", false, t, {4099, 64}, args(8, 1, true, true), V::Wide),
      error_sample("error_k_above_size", "out of range",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({3, 4}, t), int64_t{5}, int64_t{1}, true, true};
                   }),
      error_sample("error_negative_k", "out of range",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({3, 4}, t), int64_t{-1}, int64_t{1}, true, true};
                   }),
  };
}

}  // namespace

void add_sort_records(std::vector<OpRecord>& out) {
  out.push_back({"sort.stable", all_dtypes(), sort_stable_samples});
  out.push_back({"sort", all_dtypes(), sort_default_samples});
  out.push_back({"argsort", all_dtypes(), argsort_samples});
  out.push_back({"argsort.stable", all_dtypes(), argsort_stable_samples});
  out.push_back({"topk", all_dtypes(), topk_samples});
}

}  // namespace bp::conformance::detail
