// The transformer-block example's model: one pre-norm decoder block as in GPT-2,
//   h   = x + attention(layer_norm(x))        causal multi-head self-attention
//   out = h + mlp(layer_norm(h))              linear -> GELU -> linear
// on x [batch, seq, dim], written once against the public API. The attention is spelled
// out op by op (projections, head split by views, scaled scores, causal mask with `where`,
// softmax, weighted sum, head merge) rather than through the fused
// scaled_dot_product_attention, so the example exercises the views and the broadcasting
// of every backend it runs on.
#pragma once

#include "seeded_weights.hpp"

#include <backplane/backplane.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace bp::examples {

struct TransformerBlockConfig {
  int64_t batch = 2;
  int64_t seq = 64;
  int64_t dim = 128;
  int64_t heads = 4;
  int64_t ffn = 512;  // the MLP's hidden width (4 x dim in GPT-2)
};

class TransformerBlock {
 public:
  static constexpr const char* kName = "transformer_block";

  TransformerBlock(const TransformerBlockConfig& config, uint64_t seed, Device device)
      : config_(config) {
    BP_CHECK(config.heads > 0 && config.dim % config.heads == 0, ErrorCode::InvalidArgument,
             "transformer block: dim ({}) must be a multiple of heads ({})", config.dim,
             config.heads);
    SeededWeights weights(seed);
    const int64_t d = config.dim;
    norm1_ = norm(weights, d, device);
    qkv_ = weights.linear(d, 3 * d, device);  // q, k and v projections in one matmul
    out_ = weights.linear(d, d, device);
    norm2_ = norm(weights, d, device);
    up_ = weights.linear(d, config.ffn, device);
    down_ = weights.linear(config.ffn, d, device);
    // Position i may attend to positions j <= i: built on the device from two aranges.
    const Tensor positions = arange(Scalar(config.seq), ScalarType::Int64, device);
    causal_ = ge(positions.unsqueeze(1), positions.unsqueeze(0));  // [seq, seq] bool
    masked_ = scalar_tensor(Scalar(-std::numeric_limits<double>::infinity()), ScalarType::Float32,
                            device);
  }

  static Tensor input(const TransformerBlockConfig& c, uint64_t seed, Device device) {
    return SeededWeights(seed + 1).uniform({c.batch, c.seq, c.dim}, 1.0, device);
  }

  Tensor forward(const Tensor& x) const {
    const Tensor h = add(x, attention(layer_norm(x, {config_.dim}, norm1_.weight, norm1_.bias)));
    const Tensor m = layer_norm(h, {config_.dim}, norm2_.weight, norm2_.bias);
    return add(h, linear(gelu(linear(m, up_.weight, up_.bias)), down_.weight, down_.bias));
  }

  static std::string describe(const TransformerBlockConfig& c) {
    return "batch " + std::to_string(c.batch) + ", seq " + std::to_string(c.seq) + ", dim " +
           std::to_string(c.dim) + ", " + std::to_string(c.heads) + " heads, ffn " +
           std::to_string(c.ffn);
  }

 private:
  // layer_norm's affine parameters, near the identity so the activations stay O(1).
  static SeededWeights::Linear norm(SeededWeights& weights, int64_t dim, Device device) {
    return {add(weights.uniform({dim}, 0.1, device), Scalar(1.0)),
            weights.uniform({dim}, 0.1, device)};
  }

  Tensor attention(const Tensor& x) const {
    const int64_t b = x.size(0), s = x.size(1), d = config_.dim, heads = config_.heads;
    const int64_t head_dim = d / heads;
    const Tensor qkv = linear(x, qkv_.weight, qkv_.bias);  // [b, s, 3d]
    // [b, s, d] slice -> [b, s, heads, head_dim] -> [b, heads, s, head_dim]; reshape
    // copies because the slice is strided, permute is a view.
    auto split_heads = [&](int64_t which) {
      return reshape(qkv.narrow(-1, which * d, d), {b, s, heads, head_dim}).permute({0, 2, 1, 3});
    };
    const Tensor q = split_heads(0), k = split_heads(1), v = split_heads(2);
    Tensor scores = mul(matmul(q, k.transpose(-2, -1)),
                        Scalar(1.0 / std::sqrt(static_cast<double>(head_dim))));  // [b, h, s, s]
    scores = where(causal_, scores, masked_);
    const Tensor context = matmul(softmax(scores, -1), v);  // [b, heads, s, head_dim]
    const Tensor merged = reshape(context.permute({0, 2, 1, 3}), {b, s, d});
    return linear(merged, out_.weight, out_.bias);
  }

  TransformerBlockConfig config_;
  SeededWeights::Linear norm1_, qkv_, out_, norm2_, up_, down_;
  Tensor causal_;  // [seq, seq] bool
  Tensor masked_;  // 0-d -inf: a masked score
};

}  // namespace bp::examples
