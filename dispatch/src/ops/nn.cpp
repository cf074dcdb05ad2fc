// The typed operator API (backplane/ops.hpp): softmax, normalisation and attention. The schemas and
// meta rules of these ops are in core/src/ops/nn.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("softmax.int");
  return call1(kOp, {self, dim, dtype});
}
Tensor& softmax_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("softmax.int");
  return out1(out, kOp, {self, dim, dtype});
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("log_softmax.int");
  return call1(kOp, {self, dim, dtype});
}
Tensor& log_softmax_out(Tensor& out, const Tensor& self, int64_t dim,
                        std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("log_softmax.int");
  return out1(out, kOp, {self, dim, dtype});
}
Tensor layer_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps) {
  static const OpId kOp = op_id("layer_norm");
  return call1(kOp, {input, dims(normalized_shape), opt(weight), opt(bias), eps});
}
std::vector<Tensor> native_layer_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                                      const std::optional<Tensor>& weight,
                                      const std::optional<Tensor>& bias, double eps) {
  static const OpId kOp = op_id("native_layer_norm");
  return call(kOp, {input, dims(normalized_shape), opt(weight), opt(bias), eps});
}
Tensor rms_norm(const Tensor& input, std::vector<int64_t> normalized_shape,
                const std::optional<Tensor>& weight, std::optional<double> eps) {
  static const OpId kOp = op_id("rms_norm");
  return call1(kOp, {input, dims(normalized_shape), opt(weight), eps});
}
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p,
                                    bool is_causal, std::optional<double> scale) {
  static const OpId kOp = op_id("scaled_dot_product_attention");
  return call1(kOp, {query, key, value, opt(attn_mask), dropout_p, is_causal, scale});
}

}  // namespace bp
