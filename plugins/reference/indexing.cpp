// Reference kernels that move elements by index: cat, index_select and gather. They copy
// element bytes unchanged (the meta rule has already converted inputs to the output dtype),
// and check every index value before writing anything, so an out-of-range index returns
// BP_ERR_INDEX with the output untouched.
#include "reference.hpp"

#include <cstring>
#include <string>
#include <vector>

namespace bp::reference {
namespace {

void copy_element(const View& dst, int64_t dst_off, const View& src, int64_t src_off) {
  std::memcpy(dst.base + dst_off * static_cast<int64_t>(dst.itemsize),
              src.base + src_off * static_cast<int64_t>(src.itemsize), src.itemsize);
}

bp_status check_same_dtype(const char* op, const char* arg, const View& in, const View& out) {
  if (in.dtype == out.dtype) return BP_OK;
  return fail(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": argument '" + arg + "' has dtype " +
                                           dtype_name(in.dtype) + " but the output has " +
                                           dtype_name(out.dtype));
}

bp_status check_dim(const char* op, int64_t dim, int32_t ndim) {
  if (dim >= 0 && dim < (ndim == 0 ? 1 : ndim)) return BP_OK;
  return fail(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": dim " + std::to_string(dim) +
                                           " is out of range for a tensor of " +
                                           std::to_string(ndim) + " dims");
}

bp_status check_index_dtype(const char* op, const View& index, bool allow_i32) {
  if (index.dtype == BP_DTYPE_I64 || (allow_i32 && index.dtype == BP_DTYPE_I32)) return BP_OK;
  return fail(BP_ERR_INVALID_ARGUMENT, std::string(op) + ": argument 'index' has dtype " +
                                           dtype_name(index.dtype) + ", expected " +
                                           (allow_i32 ? "i64 or i32" : "i64"));
}

int64_t read_index(const View& index, int64_t off) {
  return index.dtype == BP_DTYPE_I32 ? index.at_offset<int32_t>(off)
                                     : index.at_offset<int64_t>(off);
}

// PyTorch rejects negative indices in index_select and gather, as any index >= size.
bp_status check_index_value(const char* op, int64_t value, int64_t dim, int64_t size) {
  if (value >= 0 && value < size) return BP_OK;
  return fail(BP_ERR_INDEX, std::string(op) + ": index " + std::to_string(value) +
                                " is out of range for dimension " + std::to_string(dim) +
                                " with size " + std::to_string(size));
}

// ---- cat(Tensor[] tensors, int dim) -------------------------------------------------------
bp_status cat_kernel(const bp_call* c) {
  const bp_value& list = c->args[0];
  const int64_t dim = arg_int(c, 1);
  const View out(out_tensor(c));
  if (list.tag != BP_VALUE_TENSOR_LIST)
    return fail(BP_ERR_INVALID_ARGUMENT, "cat: argument 'tensors' is not a tensor list");
  if (out.ndim == 0) return fail(BP_ERR_INVALID_ARGUMENT, "cat: the output cannot be 0-d");
  if (bp_status s = check_dim("cat", dim, out.ndim); s != BP_OK) return s;
  // Check everything first: each input matches the output except along `dim`, and the sizes
  // along `dim` add up.
  int64_t total = 0;
  for (size_t i = 0; i < list.u.list.count; ++i) {
    const View in(list.u.list.items.tensors[i]);
    const std::string arg = "tensors[" + std::to_string(i) + "]";
    if (bp_status s = check_same_dtype("cat", arg.c_str(), in, out); s != BP_OK) return s;
    bool ok = in.ndim == out.ndim;
    for (int32_t d = 0; ok && d < in.ndim; ++d) ok = d == dim || in.shape[d] == out.shape[d];
    if (!ok)
      return fail(BP_ERR_INVALID_ARGUMENT,
                  "cat: argument '" + arg + "' has shape " + shape_text(in) +
                      ", which does not match the output of shape " + shape_text(out) +
                      " outside dim " + std::to_string(dim));
    total += in.shape[dim];
  }
  if (total != out.shape[dim])
    return fail(BP_ERR_INVALID_ARGUMENT,
                "cat: the inputs add up to " + std::to_string(total) + " along dim " +
                    std::to_string(dim) + " but the output has " + std::to_string(out.shape[dim]));
  int64_t start = 0;
  std::vector<int64_t> oidx(static_cast<size_t>(out.ndim));
  for (size_t i = 0; i < list.u.list.count; ++i) {
    const View in(list.u.list.items.tensors[i]);
    for_each_index(in.ndim, in.shape, [&](const int64_t* idx) {
      oidx.assign(idx, idx + in.ndim);
      oidx[static_cast<size_t>(dim)] += start;
      copy_element(out, out.offset_of(oidx.data()), in, in.offset_of(idx));
    });
    start += in.shape[dim];
  }
  return BP_OK;
}

// ---- index_select(Tensor self, int dim, Tensor index) ---------------------------------------
// out[..., i, ...] = self[..., index[i], ...] along `dim`.
bp_status index_select_kernel(const bp_call* c) {
  const char* op = "index_select";
  const View self(arg_tensor(c, 0)), index(arg_tensor(c, 2)), out(out_tensor(c));
  const int64_t dim = arg_int(c, 1);
  if (self.ndim == 0)
    return fail(BP_ERR_INVALID_ARGUMENT,
                "index_select: 'self' reached the kernel 0-d (the meta rule passes it as [1])");
  if (bp_status s = check_dim(op, dim, self.ndim); s != BP_OK) return s;
  if (bp_status s = check_same_dtype(op, "self", self, out); s != BP_OK) return s;
  if (bp_status s = check_index_dtype(op, index, true); s != BP_OK) return s;
  if (index.ndim > 1)
    return fail(BP_ERR_INVALID_ARGUMENT,
                "index_select: argument 'index' has shape " + shape_text(index) + ", expected 1-D");
  const int64_t n = index.numel();
  const int64_t istride = index.ndim == 1 ? index.strides[0] : 0;
  bool ok = out.ndim == self.ndim;
  for (int32_t d = 0; ok && d < self.ndim; ++d) ok = out.shape[d] == (d == dim ? n : self.shape[d]);
  if (!ok)
    return fail(BP_ERR_INVALID_ARGUMENT, "index_select: output of shape " + shape_text(out) +
                                             " does not match 'self' of shape " + shape_text(self) +
                                             " with " + std::to_string(n) + " indices along dim " +
                                             std::to_string(dim));
  std::vector<int64_t> picked(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    picked[static_cast<size_t>(k)] = read_index(index, k * istride);
    if (bp_status s = check_index_value(op, picked[static_cast<size_t>(k)], dim, self.shape[dim]);
        s != BP_OK)
      return s;
  }
  std::vector<int64_t> sidx(static_cast<size_t>(self.ndim));
  for_each_index(out.ndim, out.shape, [&](const int64_t* oidx) {
    sidx.assign(oidx, oidx + out.ndim);
    sidx[static_cast<size_t>(dim)] = picked[static_cast<size_t>(oidx[dim])];
    copy_element(out, out.offset_of(oidx), self, self.offset_of(sidx.data()));
  });
  return BP_OK;
}

// ---- gather(Tensor self, int dim, Tensor index) ---------------------------------------------
// out[i][j][k] = self[i][index[i][j][k]][k] for dim 1 (likewise for the other dims).
bp_status gather_kernel(const bp_call* c) {
  const char* op = "gather";
  const View self(arg_tensor(c, 0)), index(arg_tensor(c, 2)), out(out_tensor(c));
  const int64_t dim = arg_int(c, 1);
  if (bp_status s = check_dim(op, dim, self.ndim); s != BP_OK) return s;
  if (bp_status s = check_same_dtype(op, "self", self, out); s != BP_OK) return s;
  if (bp_status s = check_index_dtype(op, index, false); s != BP_OK) return s;
  // PyTorch requires index.size(d) <= self.size(d) for every d != dim.
  bool ok = index.ndim == self.ndim && out.ndim == index.ndim;
  for (int32_t d = 0; ok && d < index.ndim; ++d)
    ok = out.shape[d] == index.shape[d] && (d == dim || index.shape[d] <= self.shape[d]);
  if (!ok)
    return fail(BP_ERR_INVALID_ARGUMENT, "gather: argument 'index' of shape " + shape_text(index) +
                                             " does not fit 'self' of shape " + shape_text(self) +
                                             " outside dim " + std::to_string(dim) +
                                             " (or the output of shape " + shape_text(out) +
                                             " differs from it)");
  const int64_t size = self.ndim == 0 ? 1 : self.shape[dim];
  bool bad = false;
  bp_status status = BP_OK;
  for_each_index(index.ndim, index.shape, [&](const int64_t* idx) {
    if (bad) return;
    status = check_index_value(op, read_index(index, index.offset_of(idx)), dim, size);
    bad = status != BP_OK;
  });
  if (bad) return status;
  std::vector<int64_t> sidx(static_cast<size_t>(self.ndim));
  for_each_index(out.ndim, out.shape, [&](const int64_t* oidx) {
    sidx.assign(oidx, oidx + out.ndim);
    if (self.ndim > 0) sidx[static_cast<size_t>(dim)] = read_index(index, index.offset_of(oidx));
    copy_element(out, out.offset_of(oidx), self, self.offset_of(sidx.data()));
  });
  return BP_OK;
}

}  // namespace

bp_status register_indexing_kernels(uint32_t backend_id) {
  static const KernelEntry kEntries[] = {
      {"cat", BP_DTYPES_ALL, cat_kernel},
      {"index_select", BP_DTYPES_ALL, index_select_kernel},
      {"gather", BP_DTYPES_ALL, gather_kernel},
  };
  return register_kernels(backend_id, kEntries, sizeof kEntries / sizeof kEntries[0]);
}

}  // namespace bp::reference
