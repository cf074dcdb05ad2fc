// The typed operator API: one C++ function per operator of op set v1, in three forms where
// PyTorch has them: functional (`bp::add(a, b)` allocates its result), out-variant
// (`bp::add_out(out, a, b)` writes a tensor you own; its shape must equal the result's and
// its dtype must be one the result can be cast to) and in-place (`bp::add_(a, b)` writes
// `a`). Every call goes through the dispatcher (docs/ops.md describes the semantics; they
// follow PyTorch's). Errors are bp::Error. Thread-safe.
#pragma once

#include "backplane/core/scalar.hpp"
#include "backplane/core/tensor.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace bp {

using OptionalIntList = std::optional<std::vector<int64_t>>;

// ---- data movement and factories -------------------------------------------------------
Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking = false);
Tensor& fill_(Tensor& self, Scalar value);
// fill_.Tensor: `value` is 0-d; converted as copy_ converts.
Tensor& fill_(Tensor& self, const Tensor& value);
Tensor arange(Scalar start, Scalar end, Scalar step = 1,
              std::optional<ScalarType> dtype = std::nullopt,
              std::optional<Device> device = std::nullopt);
Tensor arange(Scalar end, std::optional<ScalarType> dtype = std::nullopt,
              std::optional<Device> device = std::nullopt);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor& cat_out(Tensor& out, const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index);
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other);
// where.Scalar, where.ScalarSelf, where.ScalarOther: a Scalar promotes as a wrapped number
// and must fit the result dtype.
Tensor where(const Tensor& condition, Scalar self, Scalar other);
Tensor where(const Tensor& condition, Scalar self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, Scalar other);
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1);
// index_add: self with alpha * source[..., i, ...] added at self[..., index[i], ...] along
// dim, in the order of i (repeated indices accumulate).
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha = 1);
Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor& source, Scalar alpha = 1);
// scatter: self with self[..., index[p], ...] (along dim) set to src[p] for every position p
// of index in row-major order (the last write wins), or reduced with it in that order:
// `reduce` sum, prod, mean, amax or amin (include_self: whether self's value takes part).
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value);
// scatter.reduce / scatter.value_reduce: reduce "add" or "multiply", self included.
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value,
               const std::string& reduce);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);
// masked_fill: self with `value` where `mask` (bool, broadcast with self) is true, in self's
// dtype. The Tensor form takes a 0-d value.
Tensor masked_fill(const Tensor& self, const Tensor& mask, Scalar value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
// The lower (tril) or upper (triu) triangle of the last two dims, from `diagonal` on; zeros
// elsewhere.
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
// Indexing whose result shape depends on values: these read a count to the host (a
// synchronisation with the device, as PyTorch's CUDA kernels synchronise).
// nonzero: the coordinates [count, self.dim()] (i64) of self's nonzero elements in row-major
// order (NaN is nonzero, -0.0 is zero). nonzero_static: its first `size` rows, padded with
// fill_value; it reads nothing to the host.
Tensor nonzero(const Tensor& self);
Tensor nonzero_static(const Tensor& self, int64_t size, int64_t fill_value = -1);
// masked_select: self's elements where mask (bool, broadcast with self) is true, 1-D.
Tensor masked_select(const Tensor& self, const Tensor& mask);
// masked_scatter: self (broadcast with mask) with its elements where mask is true replaced by
// source's first elements, in row-major order (masked_select's gradient).
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
// one_hot: [*self.shape, num_classes] i64, 1 at each class of self (i64); num_classes -1:
// the largest class + 1.
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);
// index: PyTorch's self[indices...] with index tensors. One entry per leading dim of self:
// an undefined Tensor for a whole dim (`:`), an i64 index (the indices broadcast together)
// or a bool mask covering as many dims as it has. index_put writes `values` (broadcast to
// index's result) there instead, or adds them (accumulate); repeated positions apply in
// index order (the last write wins).
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate = false);
Tensor& index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                   bool accumulate = false);

// ---- elementwise unary -----------------------------------------------------------------
Tensor neg(const Tensor& self);
Tensor& neg_out(Tensor& out, const Tensor& self);
Tensor& neg_(Tensor& self);
Tensor abs(const Tensor& self);
Tensor& abs_out(Tensor& out, const Tensor& self);
Tensor& abs_(Tensor& self);
Tensor sign(const Tensor& self);
Tensor& sign_out(Tensor& out, const Tensor& self);
Tensor& sign_(Tensor& self);
Tensor exp(const Tensor& self);
Tensor& exp_out(Tensor& out, const Tensor& self);
Tensor& exp_(Tensor& self);
Tensor log(const Tensor& self);
Tensor& log_out(Tensor& out, const Tensor& self);
Tensor& log_(Tensor& self);
Tensor sqrt(const Tensor& self);
Tensor& sqrt_out(Tensor& out, const Tensor& self);
Tensor& sqrt_(Tensor& self);
Tensor rsqrt(const Tensor& self);
Tensor& rsqrt_out(Tensor& out, const Tensor& self);
Tensor& rsqrt_(Tensor& self);
Tensor reciprocal(const Tensor& self);
Tensor& reciprocal_out(Tensor& out, const Tensor& self);
Tensor& reciprocal_(Tensor& self);
Tensor sin(const Tensor& self);
Tensor& sin_out(Tensor& out, const Tensor& self);
Tensor& sin_(Tensor& self);
Tensor cos(const Tensor& self);
Tensor& cos_out(Tensor& out, const Tensor& self);
Tensor& cos_(Tensor& self);
Tensor tanh(const Tensor& self);
Tensor& tanh_out(Tensor& out, const Tensor& self);
Tensor& tanh_(Tensor& self);
Tensor sigmoid(const Tensor& self);
Tensor& sigmoid_out(Tensor& out, const Tensor& self);
Tensor& sigmoid_(Tensor& self);
Tensor erf(const Tensor& self);
Tensor& erf_out(Tensor& out, const Tensor& self);
Tensor& erf_(Tensor& self);
Tensor relu(const Tensor& self);
Tensor& relu_out(Tensor& out, const Tensor& self);
Tensor& relu_(Tensor& self);
Tensor floor(const Tensor& self);
Tensor& floor_out(Tensor& out, const Tensor& self);
Tensor& floor_(Tensor& self);
Tensor ceil(const Tensor& self);
Tensor& ceil_out(Tensor& out, const Tensor& self);
Tensor& ceil_(Tensor& self);
Tensor logical_not(const Tensor& self);
Tensor& logical_not_out(Tensor& out, const Tensor& self);
Tensor& logical_not_(Tensor& self);
Tensor silu(const Tensor& self);
Tensor& silu_out(Tensor& out, const Tensor& self);
Tensor& silu_(Tensor& self);
// approximate: "none" (erf form) or "tanh".
Tensor gelu(const Tensor& self, const std::string& approximate = "none");
Tensor& gelu_out(Tensor& out, const Tensor& self, const std::string& approximate = "none");
Tensor& gelu_(Tensor& self, const std::string& approximate = "none");
// hardtanh: clamp(self, min_val, max_val) in self's dtype (ReLU6 is hardtanh(x, 0, 6)).
Tensor hardtanh(const Tensor& self, Scalar min_val = -1, Scalar max_val = 1);
Tensor& hardtanh_out(Tensor& out, const Tensor& self, Scalar min_val = -1, Scalar max_val = 1);
Tensor& hardtanh_(Tensor& self, Scalar min_val = -1, Scalar max_val = 1);

// ---- elementwise binary (broadcasting, PyTorch type promotion) -------------------------
Tensor add(const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor add(const Tensor& self, Scalar other, Scalar alpha = 1);
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor& add_(Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor& add_(Tensor& self, Scalar other, Scalar alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor sub(const Tensor& self, Scalar other, Scalar alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor& sub_(Tensor& self, const Tensor& other, Scalar alpha = 1);
Tensor& sub_(Tensor& self, Scalar other, Scalar alpha = 1);
// rounding_mode: none (true division), "trunc" or "floor".
Tensor div(const Tensor& self, const Tensor& other,
           std::optional<std::string> rounding_mode = std::nullopt);
Tensor div(const Tensor& self, Scalar other,
           std::optional<std::string> rounding_mode = std::nullopt);
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                std::optional<std::string> rounding_mode = std::nullopt);
Tensor& div_(Tensor& self, const Tensor& other,
             std::optional<std::string> rounding_mode = std::nullopt);
Tensor& div_(Tensor& self, Scalar other, std::optional<std::string> rounding_mode = std::nullopt);

Tensor mul(const Tensor& self, const Tensor& other);
Tensor mul(const Tensor& self, Scalar other);
Tensor& mul_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& mul_(Tensor& self, const Tensor& other);
Tensor& mul_(Tensor& self, Scalar other);
Tensor pow(const Tensor& self, const Tensor& other);
Tensor pow(const Tensor& self, Scalar other);
Tensor& pow_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& pow_(Tensor& self, const Tensor& other);
Tensor& pow_(Tensor& self, Scalar other);
Tensor eq(const Tensor& self, const Tensor& other);
Tensor eq(const Tensor& self, Scalar other);
Tensor& eq_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& eq_(Tensor& self, const Tensor& other);
Tensor& eq_(Tensor& self, Scalar other);
Tensor ne(const Tensor& self, const Tensor& other);
Tensor ne(const Tensor& self, Scalar other);
Tensor& ne_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& ne_(Tensor& self, const Tensor& other);
Tensor& ne_(Tensor& self, Scalar other);
Tensor lt(const Tensor& self, const Tensor& other);
Tensor lt(const Tensor& self, Scalar other);
Tensor& lt_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& lt_(Tensor& self, const Tensor& other);
Tensor& lt_(Tensor& self, Scalar other);
Tensor le(const Tensor& self, const Tensor& other);
Tensor le(const Tensor& self, Scalar other);
Tensor& le_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& le_(Tensor& self, const Tensor& other);
Tensor& le_(Tensor& self, Scalar other);
Tensor gt(const Tensor& self, const Tensor& other);
Tensor gt(const Tensor& self, Scalar other);
Tensor& gt_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& gt_(Tensor& self, const Tensor& other);
Tensor& gt_(Tensor& self, Scalar other);
Tensor ge(const Tensor& self, const Tensor& other);
Tensor ge(const Tensor& self, Scalar other);
Tensor& ge_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& ge_(Tensor& self, const Tensor& other);
Tensor& ge_(Tensor& self, Scalar other);
// pow.Scalar: a Python-style number to the powers in `exponent`.
Tensor pow(Scalar self, const Tensor& exponent);
Tensor& pow_out(Tensor& out, Scalar self, const Tensor& exponent);
Tensor maximum(const Tensor& self, const Tensor& other);
Tensor& maximum_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor minimum(const Tensor& self, const Tensor& other);
Tensor& minimum_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor logical_and(const Tensor& self, const Tensor& other);
Tensor& logical_and_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& logical_and_(Tensor& self, const Tensor& other);
Tensor logical_or(const Tensor& self, const Tensor& other);
Tensor& logical_or_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& logical_or_(Tensor& self, const Tensor& other);
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = {});
Tensor& clamp_out(Tensor& out, const Tensor& self, std::optional<Scalar> min,
                  std::optional<Scalar> max = {});
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = {});
// clamp.Tensor: bounds that broadcast and promote with self (as at::clamp, a call with two
// std::nullopt bounds is ambiguous between the two forms; either way it is an error).
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min,
             const std::optional<Tensor>& max = {});
Tensor& clamp_out(Tensor& out, const Tensor& self, const std::optional<Tensor>& min,
                  const std::optional<Tensor>& max = {});
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min,
               const std::optional<Tensor>& max = {});

// ---- reductions --------------------------------------------------------------------------
// dim: none or empty = every dim.
Tensor sum(const Tensor& self, OptionalIntList dim = std::nullopt, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
Tensor& sum_out(Tensor& out, const Tensor& self, OptionalIntList dim = std::nullopt,
                bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, OptionalIntList dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor& mean_out(Tensor& out, const Tensor& self, OptionalIntList dim = std::nullopt,
                 bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);
// prod, all and any of every element: 0-d results.
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor all(const Tensor& self);
Tensor any(const Tensor& self);
Tensor amax(const Tensor& self, std::vector<int64_t> dim = {}, bool keepdim = false);
Tensor& amax_out(Tensor& out, const Tensor& self, std::vector<int64_t> dim = {},
                 bool keepdim = false);
Tensor amin(const Tensor& self, std::vector<int64_t> dim = {}, bool keepdim = false);
Tensor& amin_out(Tensor& out, const Tensor& self, std::vector<int64_t> dim = {},
                 bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor& argmax_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor& argmin_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false);
// Variance and standard deviation with Bessel's `correction` (none: 1): the sum of squared
// deviations divided by max(0, N - correction).
Tensor var(const Tensor& self, OptionalIntList dim = std::nullopt,
           std::optional<int64_t> correction = std::nullopt, bool keepdim = false);
Tensor std(const Tensor& self, OptionalIntList dim = std::nullopt,
           std::optional<int64_t> correction = std::nullopt, bool keepdim = false);
Tensor logsumexp(const Tensor& self, std::vector<int64_t> dim, bool keepdim = false);
// The maximum (minimum) along `dim` and its index: {values, indices (i64)}.
std::vector<Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
std::vector<Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
// Running sum (product) along `dim`; integral and bool inputs give i64 unless `dtype` is set.
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
// Each line along `dim` sorted, stably, NaN above every number: {values, indices (i64)}.
// `stable` is PyTorch's argument (sort.stable when set); the result is stable either way.
std::vector<Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false,
                         std::optional<bool> stable = std::nullopt);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false,
               std::optional<bool> stable = std::nullopt);
// The k largest (smallest) along `dim`, in sorted order, equal values in index order:
// {values, indices (i64)}.
std::vector<Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true,
                         bool sorted = true);

// ---- normalisation, linear algebra, attention -------------------------------------------
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& softmax_out(Tensor& out, const Tensor& self, int64_t dim,
                    std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& log_softmax_out(Tensor& out, const Tensor& self, int64_t dim,
                        std::optional<ScalarType> dtype = std::nullopt);
Tensor layer_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
// Returns (output, mean, rstd); mean and rstd have input's shape with size 1 in the
// normalized dims.
std::vector<Tensor> native_layer_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                                      const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias, double eps);
Tensor rms_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                const std::optional<Tensor>& weight = std::nullopt,
                std::optional<double> eps = std::nullopt);
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, Scalar beta = 1,
             Scalar alpha = 1);
// beta * self + alpha * (batch1 @ batch2), batch1 [b, n, k], batch2 [b, k, m].
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, Scalar beta = 1,
               Scalar alpha = 1);
Tensor linear(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt);
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask = std::nullopt,
                                    double dropout_p = 0.0, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

// ---- training: gradients, losses, optimizer pointwise ops (docs/training.md) -------------
// The gradients PyTorch's autograd calls, with its schemas: `grad_output` is the gradient of
// the forward call's result; the second tensor is the forward call's input (`self`) or, for
// sigmoid and tanh, its output.
Tensor threshold_backward(const Tensor& grad_output, const Tensor& self, Scalar threshold);
Tensor& threshold_backward_out(Tensor& out, const Tensor& grad_output, const Tensor& self,
                               Scalar threshold);
Tensor gelu_backward(const Tensor& grad_output, const Tensor& self,
                     const std::string& approximate = "none");
Tensor silu_backward(const Tensor& grad_output, const Tensor& self);
// grad_output where min_val < self < max_val (or self is NaN), else 0.
Tensor hardtanh_backward(const Tensor& grad_output, const Tensor& self, Scalar min_val,
                         Scalar max_val);
Tensor sigmoid_backward(const Tensor& grad_output, const Tensor& output);
Tensor tanh_backward(const Tensor& grad_output, const Tensor& output);
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              ScalarType input_dtype);
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype);
// Returns the gradients of (input, weight, bias); one whose output_mask entry is false is an
// undefined Tensor.
std::vector<Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                               std::vector<int64_t> normalized_shape,
                                               const Tensor& mean, const Tensor& rstd,
                                               const std::optional<Tensor>& weight,
                                               const std::optional<Tensor>& bias,
                                               std::array<bool, 3> output_mask);
// The gradient of embedding's weight: [num_weights, D] with each row of grad_output added at
// its index's row (indices equal to padding_idx skipped; scale_grad_by_freq divides each row
// by its index's count).
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices,
                                int64_t num_weights, int64_t padding_idx, bool scale_grad_by_freq);

// A loss's `reduction` (PyTorch's at::Reduction values).
inline constexpr int64_t kReductionNone = 0;
inline constexpr int64_t kReductionMean = 1;
inline constexpr int64_t kReductionSum = 2;
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = kReductionMean);
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction);
// Returns (output, total_weight).
std::vector<Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                     const std::optional<Tensor>& weight, int64_t reduction,
                                     int64_t ignore_index);
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index, const Tensor& total_weight);
Tensor nll_loss(const Tensor& self, const Tensor& target,
                const std::optional<Tensor>& weight = std::nullopt,
                int64_t reduction = kReductionMean, int64_t ignore_index = -100);
// Class-index targets; label_smoothing must be 0.
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight = std::nullopt,
                          int64_t reduction = kReductionMean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
Tensor& addcmul_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
Tensor& addcdiv_(Tensor& self, const Tensor& tensor1, const Tensor& tensor2, Scalar value = 1);
Tensor lerp(const Tensor& self, const Tensor& end, Scalar weight);
Tensor& lerp_(Tensor& self, const Tensor& end, Scalar weight);
Tensor& zero_(Tensor& self);

// ---- convolution (op set v2, docs/convolution.md) ----------------------------------------
// PyTorch's convolution: input [N, C, L] or [N, C, H, W], weight [O, C / groups, *] ([C,
// O / groups, *] when transposed); stride, padding, dilation and output_padding have one
// entry or one per spatial dim.
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   std::vector<int64_t> stride, std::vector<int64_t> padding,
                   std::vector<int64_t> dilation, bool transposed,
                   std::vector<int64_t> output_padding, int64_t groups);
// {grad_input, grad_weight, grad_bias}; a gradient whose mask entry is false is undefined.
std::vector<Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                         const Tensor& weight,
                                         std::optional<std::vector<int64_t>> bias_sizes,
                                         std::vector<int64_t> stride, std::vector<int64_t> padding,
                                         std::vector<int64_t> dilation, bool transposed,
                                         std::vector<int64_t> output_padding, int64_t groups,
                                         std::array<bool, 3> output_mask);
// The primitives the two above are made of (a backend implements these).
Tensor convolution_forward(const Tensor& input, const Tensor& weight,
                           const std::optional<Tensor>& bias, std::vector<int64_t> stride,
                           std::vector<int64_t> padding, std::vector<int64_t> dilation,
                           int64_t groups);
Tensor convolution_backward_input(const Tensor& grad_output, const Tensor& weight,
                                  std::vector<int64_t> input_size, std::vector<int64_t> stride,
                                  std::vector<int64_t> padding, std::vector<int64_t> dilation,
                                  int64_t groups);
Tensor convolution_backward_weight(const Tensor& grad_output, const Tensor& input,
                                   std::vector<int64_t> weight_size, std::vector<int64_t> stride,
                                   std::vector<int64_t> padding, std::vector<int64_t> dilation,
                                   int64_t groups);

// ---- pooling (op set v2, docs/pooling.md) -------------------------------------------------
// self [C, H, W] or [N, C, H, W], floating; kernel_size, stride ({} = kernel_size), padding
// and dilation have one entry or two. Returns {values, indices (i64, h * W + w)}.
std::vector<Tensor> max_pool2d_with_indices(const Tensor& self, std::vector<int64_t> kernel_size,
                                            std::vector<int64_t> stride = {},
                                            std::vector<int64_t> padding = {0},
                                            std::vector<int64_t> dilation = {1},
                                            bool ceil_mode = false);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        std::vector<int64_t> kernel_size,
                                        std::vector<int64_t> stride, std::vector<int64_t> padding,
                                        std::vector<int64_t> dilation, bool ceil_mode,
                                        const Tensor& indices);
Tensor avg_pool2d(const Tensor& self, std::vector<int64_t> kernel_size,
                  std::vector<int64_t> stride = {}, std::vector<int64_t> padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& self,
                           std::vector<int64_t> kernel_size, std::vector<int64_t> stride,
                           std::vector<int64_t> padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override);
Tensor _adaptive_avg_pool2d(const Tensor& self, std::vector<int64_t> output_size);
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& self);

// ---- batch norm and group norm (op set v2, docs/normalization.md)
// ---------------------------------------- {output, save_mean, save_invstd}: in training the
// statistics of each channel (dim 1) over the other dims, running_mean and running_var (when given)
// updated in place with `momentum`; in evaluation the running statistics, and save_mean/save_invstd
// empty.
std::vector<Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias,
                                      const std::optional<Tensor>& running_mean,
                                      const std::optional<Tensor>& running_var, bool training,
                                      double momentum, double eps);
// {grad_input, grad_weight, grad_bias}; a gradient whose mask entry is false is undefined.
std::vector<Tensor> native_batch_norm_backward(const Tensor& grad_out, const Tensor& input,
                                               const std::optional<Tensor>& weight,
                                               const std::optional<Tensor>& running_mean,
                                               const std::optional<Tensor>& running_var,
                                               const std::optional<Tensor>& save_mean,
                                               const std::optional<Tensor>& save_invstd, bool train,
                                               double eps, std::array<bool, 3> output_mask);

// {output, mean, rstd}: input [N, C, *] (HxW the product of its other dims) normalised over
// `group` groups of channels per sample; mean and rstd are [N, group].
std::vector<Tensor> native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias, int64_t N, int64_t C,
                                      int64_t HxW, int64_t group, double eps);
// {grad_input, grad_weight, grad_bias}; a gradient whose mask entry is false is undefined.
std::vector<Tensor> native_group_norm_backward(const Tensor& grad_out, const Tensor& input,
                                               const Tensor& mean, const Tensor& rstd,
                                               const std::optional<Tensor>& weight, int64_t N,
                                               int64_t C, int64_t HxW, int64_t group,
                                               std::array<bool, 3> output_mask);

}  // namespace bp
