// The op groups' record lists, concatenated by records.cpp. Each group file adds the
// records of its ops; together they cover every operator of the catalog (a test checks).
#pragma once

#include "backplane/conformance/records.hpp"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bp::conformance::detail {

using MakeArgs = std::function<std::vector<IValue>(InputMaker&)>;

inline Sample quick_sample(std::string name, MakeArgs make, int64_t reduced = 1) {
  return Sample{std::move(name), true, std::move(make), std::nullopt, reduced};
}

inline Sample full_sample(std::string name, MakeArgs make, int64_t reduced = 1) {
  return Sample{std::move(name), false, std::move(make), std::nullopt, reduced};
}

// Error inputs are always quick: they are cheap and every backend must reject them.
inline Sample error_sample(std::string name, std::string expect, MakeArgs make) {
  return Sample{std::move(name), true, std::move(make), std::move(expect), 1};
}

// Appends `more` to `out`, in order (sample order is the order of the report).
inline void append_samples(std::vector<Sample>& out, std::vector<Sample> more) {
  for (Sample& sample : more) out.push_back(std::move(sample));
}

// A Scalar of the natural kind for dtype `t` (what a Python caller would pass) that fits
// every dtype of that kind and is not trivially 0 or 1.
inline Scalar natural_value(ScalarType t) {
  if (t == ScalarType::Bool) return Scalar(true);
  if (is_floating(t)) return Scalar(-2.5);
  return Scalar(int64_t{7});
}

// copy_, fill_, arange, cat, index_select, gather, where, embedding
void add_data_movement_records(std::vector<OpRecord>& out);
// unary, binary (with .Scalar forms), comparisons, logical ops, clamp
void add_elementwise_records(std::vector<OpRecord>& out);
// sum, mean, prod, amax, amin, argmax, argmin, all, any
void add_reduction_records(std::vector<OpRecord>& out);
// pow.Scalar, clamp.Tensor, where.Scalar/ScalarSelf/ScalarOther, fill_.Tensor, and prod,
// all and any of every element (composite_overloads.cpp)
void add_composite_overload_records(std::vector<OpRecord>& out);
inline int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// The length softmax (and its gradient) normalises over: sizes[dim] (1 for a 0-d input or
// an empty dim).
inline int64_t row_length(const Shape& sizes, int64_t dim) {
  if (sizes.empty()) return 1;
  const auto n = static_cast<int64_t>(sizes.size());
  return std::max<int64_t>(1, sizes[static_cast<size_t>((dim + n) % n)]);
}

// softmax, log_softmax, layer_norm, rms_norm, matmul, addmm, linear, baddbmm,
// scaled_dot_product_attention
void add_nn_records(std::vector<OpRecord>& out);
// threshold_backward ... tanh_backward, _softmax_backward_data, _log_softmax_backward_data
// (training_gradients.cpp)
void add_gradient_records(std::vector<OpRecord>& out);
// mse_loss(_backward), nll_loss_forward/backward, nll_loss, cross_entropy_loss, addcmul,
// addcdiv, lerp.Scalar, zero_ (training_losses.cpp)
void add_loss_and_optimizer_records(std::vector<OpRecord>& out);
// index_add, embedding_dense_backward (indexed_writes.cpp)
void add_indexed_write_records(std::vector<OpRecord>& out);
// masked_fill.Scalar/.Tensor, tril, triu, var.correction, std.correction, logsumexp
// (masks_statistics.cpp)
void add_mask_and_statistics_records(std::vector<OpRecord>& out);
// cumsum, cumprod, max.dim, min.dim (scans_selection.cpp)
void add_scan_and_selection_records(std::vector<OpRecord>& out);
// convolution_forward, convolution_backward_input, convolution_backward_weight, convolution,
// convolution_backward (convolution.cpp)
void add_convolution_records(std::vector<OpRecord>& out);
// max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d and their backward ops
// (pooling.cpp)
void add_pooling_records(std::vector<OpRecord>& out);
// native_batch_norm, native_batch_norm_backward (batch_norm.cpp)
void add_batch_norm_records(std::vector<OpRecord>& out);
// native_group_norm, native_group_norm_backward (group_norm.cpp)
void add_group_norm_records(std::vector<OpRecord>& out);
// uniform_, normal_, random_.from, random_.to, random_, bernoulli_.float, bernoulli_.Tensor,
// native_dropout, native_dropout_backward (random.cpp)
void add_random_records(std::vector<OpRecord>& out);
// hardtanh, hardtanh_backward (hardtanh.cpp)
void add_hardtanh_records(std::vector<OpRecord>& out);
// sort.stable, sort, argsort, argsort.stable, topk (sort.cpp)
void add_sort_records(std::vector<OpRecord>& out);
// scatter.src, scatter_reduce.two, scatter.value, scatter.reduce, scatter.value_reduce,
// scatter_add (scatter.cpp)
void add_scatter_records(std::vector<OpRecord>& out);
// nonzero_static, nonzero, masked_select, masked_scatter, one_hot, index.Tensor, index_put
// (indexing.cpp)
void add_indexing_records(std::vector<OpRecord>& out);

}  // namespace bp::conformance::detail
