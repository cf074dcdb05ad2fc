// The typed operator API (backplane/ops.hpp): copies, fills, factories, concatenation and indexing.
// The schemas and meta rules of these ops are in core/src/ops/data_movement.cpp; of the masks
// (masked_fill, tril, triu) in core/src/ops/masks.cpp; of nonzero, masked_select,
// masked_scatter and one_hot in core/src/ops/nonzero.cpp; of index and index_put in
// core/src/ops/advanced_indexing.cpp.
#include "typed_call.hpp"

#include "backplane/ops.hpp"
#include "backplane/tensor_api.hpp"

namespace bp {
using namespace typed_api;

Tensor& copy_(Tensor& self, const Tensor& src, bool non_blocking) {
  static const OpId kOp = op_id("copy_");
  // Between devices the bytes move through the device APIs first; the kernel of self's
  // device then converts dtype and layout.
  Tensor source = src.device() == self.device() ? src : to(src, self.device());
  call(kOp, {self, source, non_blocking});
  return self;
}

Tensor& fill_(Tensor& self, Scalar value) {
  static const OpId kOp = op_id("fill_.Scalar");
  call(kOp, {self, value});
  return self;
}

Tensor& fill_(Tensor& self, const Tensor& value) {
  static const OpId kOp = op_id("fill_.Tensor");
  call(kOp, {self, value});
  return self;
}

Tensor arange(Scalar start, Scalar end, Scalar step, std::optional<ScalarType> dtype,
              std::optional<Device> device) {
  static const OpId kOp = op_id("arange.start_step");
  return call1(kOp, {start, end, step, dtype, device});
}

Tensor arange(Scalar end, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return arange(Scalar(int64_t{0}), end, Scalar(int64_t{1}), dtype, device);
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  static const OpId kOp = op_id("cat");
  return call1(kOp, {TensorList(tensors), dim});
}
Tensor& cat_out(Tensor& out, const std::vector<Tensor>& tensors, int64_t dim) {
  static const OpId kOp = op_id("cat");
  return out1(out, kOp, {TensorList(tensors), dim});
}

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  static const OpId kOp = op_id("index_select");
  return call1(kOp, {self, dim, index});
}
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  static const OpId kOp = op_id("index_select");
  return out1(out, kOp, {self, dim, index});
}

Tensor gather(const Tensor& self, int64_t dim, const Tensor& index) {
  static const OpId kOp = op_id("gather");
  return call1(kOp, {self, dim, index});
}
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  static const OpId kOp = op_id("gather");
  return out1(out, kOp, {self, dim, index});
}

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  static const OpId kOp = op_id("where.self");
  return call1(kOp, {condition, self, other});
}
Tensor where(const Tensor& condition, Scalar self, Scalar other) {
  static const OpId kOp = op_id("where.Scalar");
  return call1(kOp, {condition, self, other});
}
Tensor where(const Tensor& condition, Scalar self, const Tensor& other) {
  static const OpId kOp = op_id("where.ScalarSelf");
  return call1(kOp, {condition, self, other});
}
Tensor where(const Tensor& condition, const Tensor& self, Scalar other) {
  static const OpId kOp = op_id("where.ScalarOther");
  return call1(kOp, {condition, self, other});
}
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other) {
  static const OpId kOp = op_id("where.self");
  return out1(out, kOp, {condition, self, other});
}

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx) {
  static const OpId kOp = op_id("embedding");
  return call1(kOp, {weight, indices, padding_idx});
}

Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 Scalar alpha) {
  static const OpId kOp = op_id("index_add");
  return call1(kOp, {self, dim, index, source, alpha});
}
Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index,
                      const Tensor& source, Scalar alpha) {
  static const OpId kOp = op_id("index_add");
  return out1(out, kOp, {self, dim, index, source, alpha});
}

Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const OpId kOp = op_id("scatter.src");
  return call1(kOp, {self, dim, index, src});
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value) {
  static const OpId kOp = op_id("scatter.value");
  return call1(kOp, {self, dim, index, value});
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
               const std::string& reduce) {
  static const OpId kOp = op_id("scatter.reduce");
  return call1(kOp, {self, dim, index, src, reduce});
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, Scalar value,
               const std::string& reduce) {
  static const OpId kOp = op_id("scatter.value_reduce");
  return call1(kOp, {self, dim, index, value, reduce});
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const OpId kOp = op_id("scatter_add");
  return call1(kOp, {self, dim, index, src});
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self) {
  static const OpId kOp = op_id("scatter_reduce.two");
  return call1(kOp, {self, dim, index, src, reduce, include_self});
}

Tensor masked_fill(const Tensor& self, const Tensor& mask, Scalar value) {
  static const OpId kOp = op_id("masked_fill.Scalar");
  return call1(kOp, {self, mask, value});
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  static const OpId kOp = op_id("masked_fill.Tensor");
  return call1(kOp, {self, mask, value});
}
Tensor tril(const Tensor& self, int64_t diagonal) {
  static const OpId kOp = op_id("tril");
  return call1(kOp, {self, diagonal});
}
Tensor triu(const Tensor& self, int64_t diagonal) {
  static const OpId kOp = op_id("triu");
  return call1(kOp, {self, diagonal});
}

Tensor nonzero(const Tensor& self) {
  static const OpId kOp = op_id("nonzero");
  return call1(kOp, {self});
}
Tensor nonzero_static(const Tensor& self, int64_t size, int64_t fill_value) {
  static const OpId kOp = op_id("nonzero_static");
  return call1(kOp, {self, size, fill_value});
}
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  static const OpId kOp = op_id("masked_select");
  return call1(kOp, {self, mask});
}
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  static const OpId kOp = op_id("masked_scatter");
  return call1(kOp, {self, mask, source});
}
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  static const OpId kOp = op_id("one_hot");
  return call1(kOp, {self, num_classes});
}
Tensor index(const Tensor& self, const std::vector<Tensor>& indices) {
  static const OpId kOp = op_id("index.Tensor");
  return call1(kOp, {self, TensorList(indices)});
}
Tensor index_put(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                 bool accumulate) {
  static const OpId kOp = op_id("index_put");
  return call1(kOp, {self, TensorList(indices), values, accumulate});
}
Tensor& index_put_(Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                   bool accumulate) {
  static const OpId kOp = op_id("index_put");
  return inplace1(self, kOp, {self, TensorList(indices), values, accumulate});
}

}  // namespace bp
