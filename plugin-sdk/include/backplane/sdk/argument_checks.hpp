// Argument checks for kernels of the core ops: what the runtime's meta rules already
// guarantee (docs/ops.md, "What a kernel receives"), checked again in the kernel so that a
// call outside that contract is refused with a message instead of reading out of bounds.
// Each throws sdk::Error (caught at the boundary by the typed-kernel wrapper); index values
// are checked before anything is written, so an out-of-range index leaves the output
// untouched. The reference backend and the CPU plugin share them, and so their messages.
// Header-only.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/strided_view.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace bp::sdk {

// "<op>: argument '<arg>' has dtype i8, which the <backend> kernel does not support".
inline Error unsupported_dtype(const std::string& op, const char* arg, bp_dtype dtype,
                               const char* backend) {
  return Error(BP_ERR_UNSUPPORTED, op + ": argument '" + arg + "' has dtype " + dtype_name(dtype) +
                                       ", which the " + backend + " kernel does not support");
}

// A dim of a tensor of `ndim` dims, already wrapped by the runtime (a 0-d tensor takes 0).
inline void check_dim(const char* op, int64_t dim, int32_t ndim) {
  if (dim >= 0 && dim < (ndim == 0 ? 1 : ndim)) return;
  throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": dim " + std::to_string(dim) +
                                           " is out of range for a tensor of " +
                                           std::to_string(ndim) + " dims");
}

// Indexing kernels move elements unconverted: the runtime has given `in` the output's dtype.
inline void check_same_dtype(const char* op, const char* arg, const StridedView& in,
                             const StridedView& out) {
  if (in.dtype == out.dtype) return;
  throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": argument '" + arg + "' has dtype " +
                                           dtype_name(in.dtype) + " but the output has " +
                                           dtype_name(out.dtype));
}

inline void check_index_dtype(const char* op, const StridedView& index, bool allow_i32) {
  if (index.dtype == BP_DTYPE_I64 || (allow_i32 && index.dtype == BP_DTYPE_I32)) return;
  throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": argument 'index' has dtype " +
                                           dtype_name(index.dtype) + ", expected " +
                                           (allow_i32 ? "i64 or i32" : "i64"));
}

// PyTorch rejects negative indices in index_select and gather, as any index >= size.
[[noreturn]] inline void index_out_of_range(const char* op, int64_t value, int64_t dim,
                                            int64_t size) {
  throw Error(BP_ERR_INDEX, std::string(op) + ": index " + std::to_string(value) +
                                " is out of range for dimension " + std::to_string(dim) +
                                " with size " + std::to_string(size));
}
inline void check_index_value(const char* op, int64_t value, int64_t dim, int64_t size) {
  if (value < 0 || value >= size) index_out_of_range(op, value, dim, size);
}

// cat(Tensor[] tensors, int dim): each input matches the output but along `dim`, where the
// sizes add up.
inline void check_cat(const TensorList& tensors, int64_t dim, const StridedView& out) {
  if (out.ndim == 0) throw Error(BP_ERR_INVALID_ARGUMENT, "cat: the output cannot be 0-d");
  check_dim("cat", dim, out.ndim);
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const StridedView in(tensors[i].raw());
    const std::string arg = "tensors[" + std::to_string(i) + "]";
    check_same_dtype("cat", arg.c_str(), in, out);
    bool ok = in.ndim == out.ndim;
    for (int32_t d = 0; ok && d < in.ndim; ++d) ok = d == dim || in.shape[d] == out.shape[d];
    if (!ok)
      throw Error(BP_ERR_INVALID_ARGUMENT,
                  "cat: argument '" + arg + "' has shape " + shape_text(in) +
                      ", which does not match the output of shape " + shape_text(out) +
                      " outside dim " + std::to_string(dim));
    total += in.shape[dim];
  }
  if (total != out.shape[dim])
    throw Error(BP_ERR_INVALID_ARGUMENT,
                "cat: the inputs add up to " + std::to_string(total) + " along dim " +
                    std::to_string(dim) + " but the output has " + std::to_string(out.shape[dim]));
}

// index_select(Tensor self, int dim, Tensor index): a 1-D (or 0-d) index of i64 or i32, and
// the output `self`'s shape with index.numel() along dim. Index values are the caller's.
inline void check_index_select(const StridedView& self, int64_t dim, const StridedView& index,
                               const StridedView& out) {
  const char* op = "index_select";
  if (self.ndim == 0)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                "index_select: 'self' reached the kernel 0-d (the meta rule passes it as [1])");
  check_dim(op, dim, self.ndim);
  check_same_dtype(op, "self", self, out);
  check_index_dtype(op, index, true);
  if (index.ndim > 1)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                "index_select: argument 'index' has shape " + shape_text(index) + ", expected 1-D");
  const int64_t n = index.numel();
  bool ok = out.ndim == self.ndim;
  for (int32_t d = 0; ok && d < self.ndim; ++d) ok = out.shape[d] == (d == dim ? n : self.shape[d]);
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT, "index_select: output of shape " + shape_text(out) +
                                             " does not match 'self' of shape " + shape_text(self) +
                                             " with " + std::to_string(n) + " indices along dim " +
                                             std::to_string(dim));
}

// index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha): self,
// source and the output of one dtype and rank (>= 1; the meta rule passes 0-d as [1]), the
// output self's shape, source self's shape with index.numel() along dim (the meta rule has
// expanded a broadcast source), and a 1-D index of i64 or i32. Index values are the caller's.
inline void check_index_add(const StridedView& self, int64_t dim, const StridedView& index,
                            const StridedView& source, const StridedView& out) {
  const char* op = "index_add";
  check_dim(op, dim, self.ndim);
  check_same_dtype(op, "self", self, out);
  check_same_dtype(op, "source", source, out);
  check_index_dtype(op, index, true);
  bool ok = index.ndim == 1 && source.ndim == self.ndim && out.ndim == self.ndim;
  for (int32_t d = 0; ok && d < self.ndim; ++d)
    ok = out.shape[d] == self.shape[d] &&
         source.shape[d] == (d == dim ? index.shape[0] : self.shape[d]);
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT, "index_add: 'self' of shape " + shape_text(self) +
                                             ", 'index' of shape " + shape_text(index) +
                                             ", 'source' of shape " + shape_text(source) +
                                             " and the output of shape " + shape_text(out) +
                                             " do not fit along dim " + std::to_string(dim));
}

// cumsum / cumprod(Tensor self, int dim, *, ScalarType? dtype): self and the output of one
// shape (>= 1 dim; the meta rule passes 0-d as [1]) and dtype (self converted to the result
// dtype, never bool), dim in range.
inline void check_scan(const char* op, const StridedView& self, int64_t dim,
                       const StridedView& out) {
  if (self.ndim == 0)
    throw Error(
        BP_ERR_INVALID_ARGUMENT,
        std::string(op) + ": 'self' reached the kernel 0-d (the meta rule passes it as [1])");
  if (out.dtype == BP_DTYPE_BOOL)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": a bool result is not supported");
  check_dim(op, dim, self.ndim);
  check_same_dtype(op, "self", self, out);
  bool ok = out.ndim == self.ndim;
  for (int32_t d = 0; ok && d < self.ndim; ++d) ok = out.shape[d] == self.shape[d];
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": output of shape " + shape_text(out) +
                                             " does not match 'self' of shape " + shape_text(self));
}

// gather(Tensor self, int dim, Tensor index): an i64 index of self's rank, no larger than
// self outside dim (as PyTorch requires), and the output the index's shape.
inline void check_gather(const StridedView& self, int64_t dim, const StridedView& index,
                         const StridedView& out) {
  const char* op = "gather";
  check_dim(op, dim, self.ndim);
  check_same_dtype(op, "self", self, out);
  check_index_dtype(op, index, false);
  bool ok = index.ndim == self.ndim && out.ndim == index.ndim;
  for (int32_t d = 0; ok && d < index.ndim; ++d)
    ok = out.shape[d] == index.shape[d] && (d == dim || index.shape[d] <= self.shape[d]);
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT, "gather: argument 'index' of shape " + shape_text(index) +
                                             " does not fit 'self' of shape " + shape_text(self) +
                                             " outside dim " + std::to_string(dim) +
                                             " (or the output of shape " + shape_text(out) +
                                             " differs from it)");
}

// matmul as kernels receive it: [*B, n, k] x [*B, k, m] -> [*B, n, m], one dtype, not bool.
inline void check_matmul(const StridedView& a, const StridedView& b, const StridedView& out) {
  if (a.dtype != b.dtype || a.dtype != out.dtype)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string("matmul: dtypes differ: 'self' ") + dtype_name(a.dtype) + ", 'other' " +
                    dtype_name(b.dtype) + ", output " + dtype_name(out.dtype));
  if (a.dtype == BP_DTYPE_BOOL)
    throw Error(BP_ERR_UNSUPPORTED, "matmul: bool is not supported (as in PyTorch)");
  const int32_t nd = a.ndim;
  bool ok = nd >= 2 && b.ndim == nd && out.ndim == nd;
  for (int32_t d = 0; ok && d < nd - 2; ++d)
    ok = a.shape[d] == b.shape[d] && out.shape[d] == a.shape[d];
  ok = ok && a.shape[nd - 1] == b.shape[nd - 2] && out.shape[nd - 2] == a.shape[nd - 2] &&
       out.shape[nd - 1] == b.shape[nd - 1];
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                "matmul: 'self' of shape " + shape_text(a) + " and 'other' of shape " +
                    shape_text(b) + " do not multiply into an output of shape " + shape_text(out) +
                    " (kernels receive [*B, n, k] x [*B, k, m] -> [*B, n, m])");
}

// The dims a reduction folds, from its dim argument (int[], int, or None = every dim),
// after checking that `out` has the keepdim shape of that reduction (the meta rule hands
// kernels that shape, dims wrapped). A 0-d input accepts dim 0 (reducing it is a no-op).
inline std::vector<bool> reduced_dims(const char* op, const bp_value& dim, const StridedView& in,
                                      const StridedView& out) {
  std::vector<bool> reduced(static_cast<size_t>(in.ndim), dim.tag == BP_VALUE_NONE);
  std::vector<int64_t> dims;
  if (dim.tag == BP_VALUE_INT_LIST)
    dims.assign(dim.u.list.items.ints, dim.u.list.items.ints + dim.u.list.count);
  else if (dim.tag == BP_VALUE_INT)
    dims.push_back(dim.u.i);
  else if (dim.tag != BP_VALUE_NONE)
    throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": argument 'dim' has tag " +
                                             std::to_string(dim.tag) + ", expected int or int[]");
  for (int64_t d : dims) {
    if (in.ndim == 0 && d == 0) continue;
    if (d < 0 || d >= in.ndim)
      throw Error(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": dim " + std::to_string(d) +
                                               " is out of range for an input of shape " +
                                               shape_text(in) + " (dims reach kernels wrapped)");
    reduced[static_cast<size_t>(d)] = true;
  }
  bool ok = out.ndim == in.ndim;
  for (int32_t d = 0; ok && d < in.ndim; ++d)
    ok = out.shape[d] == (reduced[static_cast<size_t>(d)] ? 1 : in.shape[d]);
  if (!ok)
    throw Error(BP_ERR_INVALID_ARGUMENT,
                std::string(op) + ": output of shape " + shape_text(out) +
                    " is not the keepdim shape of reducing an input of shape " + shape_text(in));
  return reduced;
}

// amax/amin/argmax/argmin have no value for an empty reduced list.
inline Error empty_reduction(const char* op, const StridedView& in) {
  return Error(BP_ERR_INVALID_ARGUMENT, std::string(op) +
                                            ": cannot reduce over a dimension of size 0 "
                                            "(input shape " +
                                            shape_text(in) + ")");
}

}  // namespace bp::sdk
