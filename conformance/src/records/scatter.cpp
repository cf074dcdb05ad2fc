// Conformance records of the scatter ops (scatter.src, scatter_reduce.two, scatter.value,
// scatter.reduce, scatter.value_reduce, scatter_add), every dtype: repeated indices (the
// last write wins; reductions in index order), each reduction with and without self, an index
// smaller than self and src, each dim, 0-d, an empty index, layouts, many lines (threaded),
// special values (NaN in amax/amin), and the error inputs. reduced_elements is index's size
// along dim, the most values folded into one output.
#include "records_internal.hpp"

#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using T = ScalarType;
using V = Values;
using L = Layout;

// self [self_sizes], index [index_sizes] in [0, hi], src [src_sizes] (or a Scalar), then tail.
struct Scatter {
  Shape self_sizes;
  int64_t dim = 0;
  Shape index_sizes;
  int64_t hi = 0;
  Shape src_sizes;
  V values = V::Normal;
  L layout = L::Contiguous;
};

MakeArgs scatter_of(ScalarType t, Scatter p, Args tail, bool value_form = false) {
  return [=](InputMaker& m) -> Args {
    Args args{m.tensor(p.self_sizes, t, p.values, p.layout), p.dim,
              m.indices(p.index_sizes, 0, p.hi)};
    if (value_form)
      args.emplace_back(natural_value(t));
    else
      args.emplace_back(m.tensor(p.src_sizes, t, p.values, p.layout));
    for (const IValue& v : tail) args.push_back(v);
    return args;
  };
}

int64_t folded(const Scatter& p) {
  const auto n = static_cast<int64_t>(p.index_sizes.size());
  return n == 0 ? 1 : std::max<int64_t>(1, p.index_sizes[static_cast<size_t>((p.dim + n) % n)]);
}

// The shapes every scatter op runs; `tail` follows self, dim, index and src.
std::vector<Sample> scatter_shapes(ScalarType t, const Args& tail, bool value_form = false) {
  auto q = [&](std::string name, Scatter p) {
    return quick_sample(std::move(name), scatter_of(t, p, tail, value_form), folded(p));
  };
  auto f = [&](std::string name, Scatter p) {
    return full_sample(std::move(name), scatter_of(t, p, tail, value_form), folded(p));
  };
  return {
      q("dim0_repeats_5x4", {{5, 4}, 0, {6, 4}, 4, {6, 4}}),
      q("dim1_4x7", {{4, 7}, 1, {4, 5}, 6, {4, 6}}),
      q("negative_dim_3x4x5", {{3, 4, 5}, -1, {3, 4, 3}, 4, {3, 4, 3}}),
      q("index_smaller_6x5", {{6, 5}, 0, {2, 3}, 5, {3, 4}}),
      q("special_values_4x6", {{4, 6}, 1, {4, 9}, 5, {4, 9}, V::Special}),
      q("scalar_0d", {{}, 0, {}, 0, {}}),
      q("empty_index_0x4", {{5, 4}, 0, {0, 4}, 4, {0, 4}}),
      f("transposed_9x8", {{9, 8}, 1, {9, 8}, 7, {9, 8}, V::Normal, L::Transposed}),
      f("many_lines_2049x67", {{2049, 67}, 1, {2049, 40}, 66, {2049, 40}}),
  };
}

std::vector<Sample> scatter_errors(ScalarType t, const Args& tail) {
  auto with_index = [=](std::string name, std::string expect, Shape index_sizes, int64_t lo,
                        int64_t hi, T index_dtype = T::Int64) {
    return error_sample(std::move(name), std::move(expect), [=](InputMaker& m) -> Args {
      Args args{m.tensor({5, 4}, t), int64_t{0}, m.indices(index_sizes, lo, hi, index_dtype),
                m.tensor({6, 6}, t)};
      for (const IValue& v : tail) args.push_back(v);
      return args;
    });
  };
  return {
      with_index("error_index_out_of_range", "out of range", {3, 4}, 5, 5),
      with_index("error_negative_index", "out of range", {3, 4}, -1, -1),
      with_index("error_index_i32", "must be i64", {3, 4}, 0, 4, T::Int32),
      with_index("error_index_wider_than_self", "larger than 'self'", {3, 5}, 0, 4),
  };
}

std::vector<Sample> scatter_src_samples(ScalarType t) {
  std::vector<Sample> out = scatter_shapes(t, {});
  append_samples(out, scatter_errors(t, {}));
  return out;
}

std::vector<Sample> scatter_reduce_samples(ScalarType t) {
  std::vector<Sample> out;
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    if (t == T::Bool && std::string(reduce) == "mean") continue;
    for (bool include_self : {true, false}) {
      const std::string prefix = std::string(reduce) + (include_self ? "_" : "_no_self_");
      for (Sample& s : scatter_shapes(t, {std::string(reduce), include_self})) {
        s.name = prefix + s.name;
        if (!s.quick && !(include_self && std::string(reduce) == "sum")) continue;
        out.push_back(std::move(s));
      }
    }
  }
  append_samples(out, scatter_errors(t, {std::string("sum"), true}));
  out.push_back(error_sample("error_unknown_reduce", "must be sum", [t](InputMaker& m) -> Args {
    return {m.tensor({4}, t), int64_t{0},         m.indices({2}, 0, 3),
            m.tensor({2}, t), std::string("max"), true};
  }));
  return out;
}

std::vector<Sample> scatter_value_samples(ScalarType t) {
  std::vector<Sample> out = scatter_shapes(t, {}, true);
  out.erase(out.end() - 2, out.end());  // the full samples: the value form adds no new loop
  return out;
}

std::vector<Sample> scatter_reduce_form_samples(ScalarType t, bool value_form) {
  std::vector<Sample> out;
  for (const char* reduce : {"add", "multiply"})
    for (Sample& s : scatter_shapes(t, {std::string(reduce)}, value_form))
      if (s.quick) {
        s.name = std::string(reduce) + "_" + s.name;
        out.push_back(std::move(s));
      }
  out.push_back(error_sample("error_unknown_reduce", "add or multiply", [=](InputMaker& m) -> Args {
    Args args{m.tensor({4}, t), int64_t{0}, m.indices({2}, 0, 3)};
    args.push_back(value_form ? IValue(natural_value(t)) : IValue(m.tensor({2}, t)));
    args.emplace_back(std::string("sum"));
    return args;
  }));
  return out;
}

std::vector<Sample> scatter_add_samples(ScalarType t) {
  std::vector<Sample> out = scatter_shapes(t, {});
  append_samples(out, scatter_errors(t, {}));
  return out;
}

}  // namespace

void add_scatter_records(std::vector<OpRecord>& out) {
  out.push_back({"scatter.src", all_dtypes(), scatter_src_samples});
  out.push_back({"scatter_reduce.two", all_dtypes(), scatter_reduce_samples});
  out.push_back({"scatter.value", all_dtypes(), scatter_value_samples});
  out.push_back({"scatter.reduce", all_dtypes(),
                 [](ScalarType t) { return scatter_reduce_form_samples(t, false); }});
  out.push_back({"scatter.value_reduce", all_dtypes(),
                 [](ScalarType t) { return scatter_reduce_form_samples(t, true); }});
  out.push_back({"scatter_add", all_dtypes(), scatter_add_samples});
}

}  // namespace bp::conformance::detail
