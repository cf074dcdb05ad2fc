// The typed operator API (backplane/ops.hpp): the reductions, and the statistics over them.
// The schemas and meta rules of these ops are in core/src/ops/reductions.cpp and
// statistics.cpp (var, std, logsumexp), scans.cpp and sort.cpp (sort, argsort, topk).
#include "typed_call.hpp"

#include "backplane/ops.hpp"

namespace bp {
using namespace typed_api;

Tensor sum(const Tensor& self, OptionalIntList dim, bool keepdim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("sum.dim_IntList");
  return call1(kOp, {self, dims(dim), keepdim, dtype});
}
Tensor& sum_out(Tensor& out, const Tensor& self, OptionalIntList dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("sum.dim_IntList");
  return out1(out, kOp, {self, dims(dim), keepdim, dtype});
}
Tensor mean(const Tensor& self, OptionalIntList dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("mean.dim");
  return call1(kOp, {self, dims(dim), keepdim, dtype});
}
Tensor& mean_out(Tensor& out, const Tensor& self, OptionalIntList dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("mean.dim");
  return out1(out, kOp, {self, dims(dim), keepdim, dtype});
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("prod.dim_int");
  return call1(kOp, {self, dim, keepdim, dtype});
}
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("prod.dim_int");
  return out1(out, kOp, {self, dim, keepdim, dtype});
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("prod");
  return call1(kOp, {self, dtype});
}
Tensor all(const Tensor& self) {
  static const OpId kOp = op_id("all");
  return call1(kOp, {self});
}
Tensor any(const Tensor& self) {
  static const OpId kOp = op_id("any");
  return call1(kOp, {self});
}

Tensor amax(const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("amax");
  return call1(kOp, {self, dims(dim), keepdim});
}
Tensor& amax_out(Tensor& out, const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("amax");
  return out1(out, kOp, {self, dims(dim), keepdim});
}

Tensor amin(const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("amin");
  return call1(kOp, {self, dims(dim), keepdim});
}
Tensor& amin_out(Tensor& out, const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("amin");
  return out1(out, kOp, {self, dims(dim), keepdim});
}

Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("argmax");
  return call1(kOp, {self, dim, keepdim});
}
Tensor& argmax_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("argmax");
  return out1(out, kOp, {self, dim, keepdim});
}

Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("argmin");
  return call1(kOp, {self, dim, keepdim});
}
Tensor& argmin_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("argmin");
  return out1(out, kOp, {self, dim, keepdim});
}

Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  static const OpId kOp = op_id("all.dim");
  return call1(kOp, {self, dim, keepdim});
}
Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) {
  static const OpId kOp = op_id("all.dim");
  return out1(out, kOp, {self, dim, keepdim});
}

Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  static const OpId kOp = op_id("any.dim");
  return call1(kOp, {self, dim, keepdim});
}
Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) {
  static const OpId kOp = op_id("any.dim");
  return out1(out, kOp, {self, dim, keepdim});
}

Tensor var(const Tensor& self, OptionalIntList dim, std::optional<int64_t> correction,
           bool keepdim) {
  static const OpId kOp = op_id("var.correction");
  return call1(kOp, {self, dims(dim), opt(correction), keepdim});
}
Tensor std(const Tensor& self, OptionalIntList dim, std::optional<int64_t> correction,
           bool keepdim) {
  static const OpId kOp = op_id("std.correction");
  return call1(kOp, {self, dims(dim), opt(correction), keepdim});
}
Tensor logsumexp(const Tensor& self, std::vector<int64_t> dim, bool keepdim) {
  static const OpId kOp = op_id("logsumexp");
  return call1(kOp, {self, dims(dim), keepdim});
}

std::vector<Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  static const OpId kOp = op_id("max.dim");
  return call(kOp, {self, dim, keepdim});
}
std::vector<Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  static const OpId kOp = op_id("min.dim");
  return call(kOp, {self, dim, keepdim});
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("cumsum");
  return call1(kOp, {self, dim, dtype});
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const OpId kOp = op_id("cumprod");
  return call1(kOp, {self, dim, dtype});
}

std::vector<Tensor> sort(const Tensor& self, int64_t dim, bool descending,
                         std::optional<bool> stable) {
  static const OpId kSort = op_id("sort");
  static const OpId kStable = op_id("sort.stable");
  if (stable) return call(kStable, {self, *stable, dim, descending});
  return call(kSort, {self, dim, descending});
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending, std::optional<bool> stable) {
  static const OpId kArgsort = op_id("argsort");
  static const OpId kStable = op_id("argsort.stable");
  if (stable) return call1(kStable, {self, *stable, dim, descending});
  return call1(kArgsort, {self, dim, descending});
}
std::vector<Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  static const OpId kOp = op_id("topk");
  return call(kOp, {self, k, dim, largest, sorted});
}

}  // namespace bp
