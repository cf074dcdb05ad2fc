// Conformance records of the indexing ops whose result shape depends on values
// (nonzero_static, nonzero, masked_select, masked_scatter, one_hot, index.Tensor, index_put),
// every dtype
// they take: inputs with ties (a fifth of the elements zero) and special values (NaN is
// nonzero, -0.0 is zero), 0-d and empty inputs, padding and truncation, masks, None entries,
// adjacent and separated index tensors, negative and repeated indices, layouts, many blocks
// (threaded), and the error inputs.
#include "records_internal.hpp"

#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using T = ScalarType;
using V = Values;
using L = Layout;

std::vector<Sample> nonzero_static_samples(ScalarType t) {
  auto q = [t](std::string name, Shape sizes, int64_t size, V values = V::Ties,
               L layout = L::Contiguous) {
    return quick_sample(std::move(name), [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, values, layout), size, int64_t{-7}};
    });
  };
  std::vector<Sample> out{
      q("padded_5x7", {5, 7}, 40),
      q("truncated_5x7", {5, 7}, 6),
      q("special_values_13", {13}, 13, V::Special),
      q("scalar_0d", {}, 2),
      q("empty_0x3", {0, 3}, 2),
      q("size_0", {4}, 0),
      q("transposed_6x5", {6, 5}, 30, V::Ties, L::Transposed),
  };
  out.push_back(full_sample("many_blocks_37x3001", [t](InputMaker& m) -> Args {
    return {m.tensor({37, 3001}, t, V::Ties), int64_t{120000}, int64_t{-1}};
  }));
  out.push_back(
      error_sample("error_negative_size", "must not be negative", [t](InputMaker& m) -> Args {
        return {m.tensor({3}, t), int64_t{-1}, int64_t{-1}};
      }));
  return out;
}

std::vector<Sample> nonzero_samples(ScalarType t) {
  auto q = [t](std::string name, Shape sizes, V values = V::Ties, L layout = L::Contiguous) {
    return quick_sample(std::move(name), [=](InputMaker& m) -> Args {
      return {m.tensor(sizes, t, values, layout)};
    });
  };
  return {
      q("ties_5x7", {5, 7}),
      q("three_dims_3x4x5", {3, 4, 5}),
      q("special_values_13", {13}, V::Special),
      q("scalar_0d", {}),
      q("empty_0x3", {0, 3}),
      q("strided_6x5", {6, 5}, V::Ties, L::Strided),
      full_sample("many_blocks_37x3001",
                  [t](InputMaker& m) -> Args {
                    return {m.tensor({37, 3001}, t, V::Ties)};
                  }),
  };
}

std::vector<Sample> masked_select_samples(ScalarType t) {
  auto q = [t](std::string name, Shape self_sizes, Shape mask_sizes, L layout = L::Contiguous) {
    return quick_sample(std::move(name), [=](InputMaker& m) -> Args {
      return {m.tensor(self_sizes, t, V::Special, layout), m.mask(mask_sizes, 0.5, layout)};
    });
  };
  return {
      q("same_shape_5x7", {5, 7}, {5, 7}),
      q("mask_broadcast_5x7", {5, 7}, {7}),
      q("self_broadcast_7", {7}, {5, 7}),
      q("scalar_0d", {}, {}),
      q("empty_0x3", {0, 3}, {0, 3}),
      q("transposed_6x5", {6, 5}, {6, 5}, L::Transposed),
      error_sample("error_mask_not_bool", "must be bool",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({3}, t), m.indices({3}, 0, 1, T::UInt8)};
                   }),
      error_sample("error_mask_shape", "cannot broadcast",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({3}, t), m.mask({4})};
                   }),
  };
}

std::vector<Sample> masked_scatter_samples(ScalarType t) {
  auto q = [t](std::string name, Shape self_sizes, Shape mask_sizes, int64_t source_size,
               L layout = L::Contiguous) {
    return quick_sample(std::move(name), [=](InputMaker& m) -> Args {
      return {m.tensor(self_sizes, t, V::Special, layout), m.mask(mask_sizes, 0.5, layout),
              m.tensor({source_size}, t)};
    });
  };
  return {
      q("same_shape_5x7", {5, 7}, {5, 7}, 35),
      q("mask_broadcast_5x7", {5, 7}, {7}, 40),
      q("self_broadcast_7", {7}, {5, 7}, 36),
      q("scalar_0d", {}, {}, 1),
      q("empty_0x3", {0, 3}, {0, 3}, 0),
      q("transposed_6x5", {6, 5}, {6, 5}, 30, L::Transposed),
      error_sample("error_source_too_short", "selects",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({4}, t), m.mask({4}, 1.0), m.tensor({3}, t)};
                   }),
  };
}

std::vector<Sample> one_hot_samples(ScalarType) {
  auto q = [](std::string name, Shape sizes, int64_t hi, int64_t num_classes) {
    return quick_sample(std::move(name), [=](InputMaker& m) -> Args {
      return {m.indices(sizes, 0, hi), num_classes};
    });
  };
  auto bad = [](std::string name, std::string expect, int64_t lo, int64_t hi, int64_t classes) {
    return error_sample(std::move(name), std::move(expect), [=](InputMaker& m) -> Args {
      return {m.indices({5}, lo, hi), classes};
    });
  };
  return {
      q("inferred_5x3", {5, 3}, 6, -1),
      q("given_7", {7}, 3, 9),
      q("scalar_0d", {}, 4, 5),
      q("empty_0", {0}, 0, 3),
      bad("error_class_too_large", "smaller than num_classes", 3, 3, 3),
      bad("error_negative_class", "must not be negative", -1, -1, 3),
      bad("error_num_classes", "must be -1", 0, 1, -2),
  };
}

// index.Tensor's and index_put's `indices`: None entries and index tensors of self [4, 5, 6].
using Indices = std::function<TensorList(InputMaker&)>;

struct IndexCase {
  std::string name;
  Indices indices;
  Shape result;  // the shape index gives (index_put's values)
};

std::vector<IndexCase> index_cases() {
  const Tensor none;
  return {
      {"first_dim_repeats",
       [](InputMaker& m) { return TensorList{m.indices({7}, -4, 3)}; },
       {7, 5, 6}},
      {"middle_dim",
       [none](InputMaker& m) {
         return TensorList{none, m.indices({2, 3}, 0, 4)};
       },
       {4, 2, 3, 6}},
      {"separated_broadcast",
       [none](InputMaker& m) {
         return TensorList{m.indices({3, 1}, 0, 3), none, m.indices({2}, -6, 5)};
       },
       {3, 2, 5}},
      {"mask_two_dims",
       [](InputMaker& m) {
         return TensorList{m.mask({4, 5})};
       },
       {}},
      {"mask_and_index",
       [none](InputMaker& m) {
         return TensorList{none, m.mask({5}), m.indices({1}, 0, 5)};
       },
       {}},
      {"empty_index", [](InputMaker& m) { return TensorList{m.indices({0}, 0, 3)}; }, {0, 5, 6}},
  };
}

std::vector<Sample> index_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const IndexCase& c : index_cases())
    out.push_back(quick_sample(c.name, [t, indices = c.indices](InputMaker& m) -> Args {
      return {m.tensor({4, 5, 6}, t, V::Special), indices(m)};
    }));
  out.push_back(full_sample("many_rows_2049x33", [t](InputMaker& m) -> Args {
    return {m.tensor({2049, 33}, t), TensorList{m.indices({4000}, -2049, 2048)}};
  }));
  auto bad = [t](std::string name, std::string expect, Indices indices) {
    return error_sample(std::move(name), std::move(expect), [=](InputMaker& m) -> Args {
      return {m.tensor({4, 5}, t), indices(m)};
    });
  };
  const Tensor none;
  out.push_back(
      bad("error_out_of_bounds", "out of bounds for dim 1 with size 5", [none](InputMaker& m) {
        return TensorList{none, m.indices({2}, 5, 5)};
      }));
  out.push_back(bad("error_too_many", "too many indices", [none](InputMaker& m) {
    return TensorList{none, none, m.indices({1}, 0, 0)};
  }));
  out.push_back(bad("error_index_i32", "must be i64, bool or u8",
                    [](InputMaker& m) { return TensorList{m.indices({2}, 0, 1, T::Int32)}; }));
  out.push_back(bad("error_only_none", "holds no index tensor",
                    [none](InputMaker&) { return TensorList{none}; }));
  return out;
}

std::vector<Sample> index_put_samples(ScalarType t) {
  std::vector<Sample> out;
  for (bool accumulate : {false, true})
    for (const IndexCase& c : index_cases()) {
      if (c.result.empty()) continue;  // a mask's count is not known here
      const std::string name = (accumulate ? "accumulate_" : "") + c.name;
      out.push_back(quick_sample(name, [=, indices = c.indices](InputMaker& m) -> Args {
        return {m.tensor({4, 5, 6}, t), indices(m), m.tensor(c.result, t), accumulate};
      }));
    }
  out.push_back(quick_sample("mask_value_0d", [t](InputMaker& m) -> Args {
    return {m.tensor({4, 5}, t), TensorList{m.mask({4, 5})}, m.tensor({}, t), false};
  }));
  out.push_back(quick_sample("values_broadcast", [t](InputMaker& m) -> Args {
    return {m.tensor({4, 5}, t), TensorList{m.indices({3}, 0, 3)}, m.tensor({5}, t), true};
  }));
  out.push_back(full_sample(
      "many_rows_2049x33",
      [t](InputMaker& m) -> Args {
        return {m.tensor({2049, 33}, t), TensorList{m.indices({4000}, -2049, 2048)},
                m.tensor({4000, 33}, t), true};
      },
      8));  // about two adds per row; 8 bounds the rows hit most
  const T other = t == T::Float64 ? T::Float32 : T::Float64;
  out.push_back(
      error_sample("error_values_dtype", "'values' has dtype", [=](InputMaker& m) -> Args {
        return {m.tensor({4}, t), TensorList{m.indices({2}, 0, 3)}, m.tensor({2}, other), false};
      }));
  out.push_back(error_sample("error_values_shape", "cannot broadcast", [t](InputMaker& m) -> Args {
    return {m.tensor({4}, t), TensorList{m.indices({2}, 0, 3)}, m.tensor({3}, t), false};
  }));
  return out;
}

}  // namespace

void add_indexing_records(std::vector<OpRecord>& out) {
  out.push_back({"nonzero_static", all_dtypes(), nonzero_static_samples});
  out.push_back({"nonzero", all_dtypes(), nonzero_samples});
  out.push_back({"masked_select", all_dtypes(), masked_select_samples});
  out.push_back({"masked_scatter", all_dtypes(), masked_scatter_samples});
  out.push_back({"one_hot", {ScalarType::Int64}, one_hot_samples});
  out.push_back({"index.Tensor", all_dtypes(), index_samples});
  out.push_back({"index_put", all_dtypes(), index_put_samples});
}

}  // namespace bp::conformance::detail
