// Conformance records of the writes through indices: index_add (every dtype) and the op
// built on it, embedding_dense_backward (floating dtypes). Repeated indices are the point of
// both: every sample but a few draws more indices than rows, so rows receive several adds,
// which every backend must make in the index's order. The case dtype is self's (index_add)
// or grad_output's (embedding_dense_backward). `reduced` is the adds per element.
#include "elementwise_common.hpp"

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using L = Layout;
using T = ScalarType;
using V = Values;

// index_add(self [sizes], dim, index [count] in [lo, hi], source, alpha): source has
// self's sizes with `count` along dim.
struct IndexAdd {
  Shape sizes;
  int64_t dim;
  int64_t count;
  int64_t lo, hi;
  Scalar alpha = Scalar(int64_t{1});
  L layout = L::Contiguous;
  V values = V::Normal;
  T index_dtype = T::Int64;
};

MakeArgs index_add_of(ScalarType t, IndexAdd p) {
  return [=](InputMaker& m) -> Args {
    Shape source_sizes = p.sizes;
    if (!source_sizes.empty()) {
      const auto n = static_cast<int64_t>(source_sizes.size());
      source_sizes[static_cast<size_t>((p.dim + n) % n)] = p.count;
    }
    Tensor self = m.tensor(p.sizes, t, V::Normal, p.layout);
    Tensor index = m.indices({p.count}, p.lo, p.hi, p.index_dtype);
    Tensor source = m.tensor(source_sizes, t, p.values, p.layout);
    return {self, p.dim, index, source, p.alpha};
  };
}

// A coefficient of self's kind that is not 1: -1.5 (floating), 3 (integers), True (bool).
Scalar coefficient(ScalarType t) {
  if (t == T::Bool) return Scalar(true);
  return is_floating(t) ? Scalar(-1.5) : Scalar(int64_t{3});
}

std::vector<Sample> index_add_value_samples(ScalarType t) {
  auto q = [t](std::string name, IndexAdd p) {
    const int64_t adds = std::max<int64_t>(1, p.count);
    return quick_sample(std::move(name), index_add_of(t, std::move(p)), adds);
  };
  auto f = [t](std::string name, IndexAdd p) {
    const int64_t adds = std::max<int64_t>(1, p.count);
    return full_sample(std::move(name), index_add_of(t, std::move(p)), adds);
  };
  return {
      q("dim0_7x5_repeats", {{7, 5}, 0, 12, 0, 6}),
      q("dim1_4x7_index_i32",
        {{4, 7}, 1, 10, 0, 6, Scalar(int64_t{1}), L::Contiguous, V::Normal, T::Int32}),
      q("negative_dim_3x4x5", {{3, 4, 5}, -1, 7, 0, 4}),
      q("alpha", {{6, 4}, 0, 9, 0, 5, coefficient(t)}),
      q("self_0d", {{}, 0, 1, 0, 0}),
      q("one_index_per_row", {{5, 3}, 0, 5, 0, 4}),
      q("empty_index", {{7, 5}, 0, 0, 0, 0}),
      q("transposed_9x6", {{9, 6}, 1, 8, 0, 5, Scalar(int64_t{1}), L::Transposed}),
      quick_sample("index_0d",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({6, 3}, t), int64_t{0}, m.indices({}, 0, 5),
                             m.tensor({1, 3}, t), Scalar(int64_t{1})};
                   }),
      // PyTorch 1.13 broadcasts a source of size 1 outside dim (its add iterator does).
      quick_sample(
          "broadcast_source_9x1",
          [t](InputMaker& m) -> Args {
            return {m.tensor({7, 5}, t), int64_t{0}, m.indices({9}, 0, 6), m.tensor({9, 1}, t),
                    Scalar(int64_t{1})};
          },
          9),
      f("empty_self_0x5", {{0, 5}, 1, 3, 0, 4}),
      f("strided_5x8", {{5, 8}, 0, 11, 0, 4, Scalar(int64_t{1}), L::Strided}),
      f("permuted_3x4x5_dim1", {{3, 4, 5}, 1, 9, 0, 3, Scalar(int64_t{1}), L::Permuted}),
      f("offset_33", {{33}, 0, 40, 0, 32, Scalar(int64_t{1}), L::Offset}),
      f("special_values", {{4, 4}, 0, 16, 0, 3, Scalar(int64_t{1}), L::Contiguous, V::Special}),
      f("wide_values", {{8, 3}, 0, 24, 0, 7, Scalar(int64_t{1}), L::Contiguous, V::Wide}),
      f("embedding_gradient_1031x256", {{1031, 256}, 0, 2048, 0, 1030}),
      f("columns_129x257_dim1", {{129, 257}, 1, 300, 0, 256}),
  };
}

// The inputs PyTorch refuses (and one it cannot index), each with its message.
std::vector<Sample> index_add_error_samples(ScalarType t) {
  auto e = [t](std::string name, std::string expect, IndexAdd p) {
    return error_sample(std::move(name), std::move(expect), index_add_of(t, std::move(p)));
  };
  const ScalarType other = t == T::Float32 ? T::Float64 : T::Float32;
  return {
      e("error_index_out_of_range", "out of range", {{7, 5}, 0, 4, 7, 7}),
      e("error_negative_index", "out of range", {{7, 5}, 1, 3, -1, -1}),
      e("error_dim_out_of_range", "must be in", {{7, 5}, 2, 3, 0, 4}),
      error_sample("error_index_dtype_f32", "has dtype f32",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({7, 5}, t), int64_t{0},
                             m.tensor({3}, T::Float32, V::Positive), m.tensor({3, 5}, t),
                             Scalar(int64_t{1})};
                   }),
      error_sample("error_index_2d", "0-d or 1-D",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({7, 5}, t), int64_t{0}, m.indices({2, 2}, 0, 6),
                             m.tensor({4, 5}, t), Scalar(int64_t{1})};
                   }),
      error_sample("error_source_dtype", "must match",
                   [t, other](InputMaker& m) -> Args {
                     return {m.tensor({7, 5}, t), int64_t{0}, m.indices({3}, 0, 6),
                             m.tensor({3, 5}, other), Scalar(int64_t{1})};
                   }),
      error_sample("error_source_shape", "does not match",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({7, 5}, t), int64_t{0}, m.indices({3}, 0, 6),
                             m.tensor({3, 4}, t), Scalar(int64_t{1})};
                   }),
      error_sample("error_index_count", "must be equal",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({7, 5}, t), int64_t{0}, m.indices({4}, 0, 6),
                             m.tensor({3, 5}, t), Scalar(int64_t{1})};
                   }),
  };
}

std::vector<Sample> index_add_samples(ScalarType t) {
  std::vector<Sample> samples = index_add_value_samples(t);
  append_samples(samples, index_add_error_samples(t));
  return samples;
}

// embedding_dense_backward(grad [indices..., dim], indices in [lo, hi], num_weights,
// padding_idx, scale_grad_by_freq).
struct EmbeddingGrad {
  Shape index_sizes;
  int64_t dim;
  int64_t num_weights;
  int64_t lo, hi;
  int64_t padding_idx = -1;
  bool scale = false;
  L layout = L::Contiguous;
  V values = V::Normal;
  T index_dtype = T::Int64;
};

MakeArgs embedding_grad_of(ScalarType t, EmbeddingGrad p) {
  return [=](InputMaker& m) -> Args {
    Shape grad_sizes = p.index_sizes;
    grad_sizes.push_back(p.dim);
    Tensor grad = m.tensor(grad_sizes, t, p.values, p.layout);
    return {grad, m.indices(p.index_sizes, p.lo, p.hi, p.index_dtype), p.num_weights, p.padding_idx,
            p.scale};
  };
}

std::vector<Sample> embedding_backward_samples(ScalarType t) {
  auto q = [t](std::string name, EmbeddingGrad p) {
    const int64_t adds = std::max<int64_t>(1, numel_of(p.index_sizes));
    return quick_sample(std::move(name), embedding_grad_of(t, std::move(p)), adds);
  };
  auto f = [t](std::string name, EmbeddingGrad p) {
    const int64_t adds = std::max<int64_t>(1, numel_of(p.index_sizes));
    return full_sample(std::move(name), embedding_grad_of(t, std::move(p)), adds);
  };
  return {
      q("indices_1d_9_rows_13", {{9}, 7, 13, 0, 12}),
      q("indices_2d_i32", {{3, 5}, 7, 13, 0, 12, -1, false, L::Contiguous, V::Normal, T::Int32}),
      q("repeated_indices", {{20}, 6, 10, 3, 6}),
      q("padding_idx_2", {{4, 4}, 5, 6, 0, 4, 2}),
      q("scale_grad_by_freq", {{20}, 6, 10, 3, 6, -1, true}),
      q("scale_and_padding", {{4, 5}, 3, 8, 0, 3, 1, true}),
      q("indices_0d", {{}, 7, 13, 0, 12}),
      q("empty_indices", {{0, 3}, 7, 13, 0, 0}),
      q("no_rows", {{0}, 4, 0, 0, 0}),
      f("transposed_grad", {{9, 4}, 6, 11, 0, 10, -1, false, L::Transposed}),
      f("special_values", {{16}, 4, 5, 0, 4, -1, false, L::Contiguous, V::Special}),
      f("large_2048_rows_1031x256", {{2048}, 256, 1031, 0, 1030}),
      error_sample("error_index_out_of_range", "out of range",
                   embedding_grad_of(t, {{4}, 3, 13, 13, 13})),
      error_sample(
          "error_grad_rows", "one row per index",
          [t](InputMaker& m) -> Args {
            return {m.tensor({5, 3}, t), m.indices({4}, 0, 9), int64_t{10}, int64_t{-1}, false};
          }),
      error_sample("error_grad_integral", "floating",
                   [](InputMaker& m) -> Args {
                     return {m.tensor({4, 3}, T::Int32), m.indices({4}, 0, 9), int64_t{10},
                             int64_t{-1}, false};
                   }),
      error_sample("error_num_weights", "must not be negative",
                   embedding_grad_of(t, {{4}, 3, -1, 0, 0})),
  };
}

}  // namespace

void add_indexed_write_records(std::vector<OpRecord>& out) {
  out.push_back({"index_add", all_dtypes(), index_add_samples});
  out.push_back({"embedding_dense_backward", floating_dtypes(), embedding_backward_samples});
}

}  // namespace bp::conformance::detail
