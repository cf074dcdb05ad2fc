// Reference kernels that move elements by index: cat, index_select and gather. They copy
// element bytes unchanged (the meta rule has already converted inputs to the output dtype),
// and check every index value before writing anything, so an out-of-range index returns
// BP_ERR_INDEX with the output untouched.
#include "reference.hpp"

#include <cstring>
#include <vector>

namespace bp::reference {
namespace {

void copy_element(const StridedView& dst, int64_t dst_off, const StridedView& src,
                  int64_t src_off) {
  std::memcpy(dst.base + dst_off * static_cast<int64_t>(dst.itemsize),
              src.base + src_off * static_cast<int64_t>(src.itemsize), src.itemsize);
}

int64_t read_index(const StridedView& index, int64_t off) {
  return index.dtype == BP_DTYPE_I32 ? index.at_offset<int32_t>(off)
                                     : index.at_offset<int64_t>(off);
}

// ---- cat(Tensor[] tensors, int dim) -------------------------------------------------------
void cat_kernel(sdk::TensorList tensors, int64_t dim, StridedView out) {
  sdk::check_cat(tensors, dim, out);
  int64_t start = 0;
  std::vector<int64_t> oidx(static_cast<size_t>(out.ndim));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const StridedView in(tensors[i].raw());
    for_each_index(in, [&](const int64_t* idx) {
      oidx.assign(idx, idx + in.ndim);
      oidx[static_cast<size_t>(dim)] += start;
      copy_element(out, out.offset_of(oidx.data()), in, in.offset_of(idx));
    });
    start += in.shape[dim];
  }
}

// ---- index_select(Tensor self, int dim, Tensor index) ---------------------------------------
// out[..., i, ...] = self[..., index[i], ...] along `dim`.
void index_select_kernel(StridedView self, int64_t dim, StridedView index, StridedView out) {
  sdk::check_index_select(self, dim, index, out);
  const int64_t n = index.numel();
  const int64_t istride = index.ndim == 1 ? index.strides[0] : 0;
  std::vector<int64_t> picked(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    picked[static_cast<size_t>(k)] = read_index(index, k * istride);
    sdk::check_index_value("index_select", picked[static_cast<size_t>(k)], dim, self.shape[dim]);
  }
  std::vector<int64_t> sidx(static_cast<size_t>(self.ndim));
  for_each_index(out, [&](const int64_t* oidx) {
    sidx.assign(oidx, oidx + out.ndim);
    sidx[static_cast<size_t>(dim)] = picked[static_cast<size_t>(oidx[dim])];
    copy_element(out, out.offset_of(oidx), self, self.offset_of(sidx.data()));
  });
}

// ---- gather(Tensor self, int dim, Tensor index) ---------------------------------------------
// out[i][j][k] = self[i][index[i][j][k]][k] for dim 1 (likewise for the other dims).
void gather_kernel(StridedView self, int64_t dim, StridedView index, StridedView out) {
  sdk::check_gather(self, dim, index, out);
  const int64_t size = self.ndim == 0 ? 1 : self.shape[dim];
  for_each_index(index, [&](const int64_t* idx) {
    sdk::check_index_value("gather", read_index(index, index.offset_of(idx)), dim, size);
  });
  std::vector<int64_t> sidx(static_cast<size_t>(self.ndim));
  for_each_index(out, [&](const int64_t* oidx) {
    sidx.assign(oidx, oidx + out.ndim);
    if (self.ndim > 0) sidx[static_cast<size_t>(dim)] = read_index(index, index.offset_of(oidx));
    copy_element(out, out.offset_of(oidx), self, self.offset_of(sidx.data()));
  });
}

}  // namespace

void register_data_movement_index_kernels(sdk::Registrar& r) {
  r.kernel<cat_kernel>("cat", BP_DTYPES_ALL)
      .kernel<index_select_kernel>("index_select", BP_DTYPES_ALL)
      .kernel<gather_kernel>("gather", BP_DTYPES_ALL);
}

}  // namespace bp::reference
