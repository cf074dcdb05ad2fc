// Shared between the op family files of compute-ops: helpers more than one family uses.
#pragma once

#include "launch.hpp"

namespace bp::clk {

// plugins/shared/opencl-c-kernels/elementwise.cl, which several families launch.
inline constexpr const char* kElementwiseProgram = "elementwise";

inline constexpr bp_dtype_mask kAllButBool = BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL);

// A row of a family's table of ops that differ only in their OpenCL C kernel.
struct TableEntry {
  const char* op;
  const char* kernel;  // in elementwise.cl
  bp_dtype_mask dtypes;
};

// The kernel_ctx of the table-driven kernels: the OpenCL C kernel's name (OpRegistrar::add).
inline const char* table_kernel_name(const bp_call* c) {
  return static_cast<const char*>(c->kernel_ctx);
}

// Whether tensor `t` (integral) has a zero element; a blocking check on the device.
bool has_zero(ComputeDevice& device, const bp_tensor& t);
// Whether `a` and `b` are the same view of the same memory (an output that is its input).
inline bool same_view(const bp_tensor& a, const bp_tensor& b) {
  if (a.data != b.data || a.byte_offset != b.byte_offset || a.ndim != b.ndim) return false;
  for (int32_t d = 0; d < a.ndim; ++d)
    if (a.strides[d] != b.strides[d]) return false;
  return true;
}

// Copies `src` into `dst` (same dtype and shape) bit for bit.
void copy_raw(ComputeDevice& device, const bp_tensor& dst, const bp_tensor& src);

// The status word of index.cl's kernels (take, index_add): an int flag at byte 0 and the
// first out-of-range index value, a long, at byte 8; zeroed when created.
class IndexStatus {
 public:
  explicit IndexStatus(ComputeDevice& device);
  void* address() const { return buffer_.address(); }
  // Throws BP_ERR_INDEX "<op>: index 7 is out of range for dimension 0 with size 3" when a
  // kernel recorded a bad index (a blocking read).
  void check(ComputeDevice& device, const char* op, int64_t dim, int64_t dim_size) const;

 private:
  DeviceBuffer buffer_;
};

// Runs `write(target)`, a kernel that writes self's values through indices into `target` and
// throws on a bad index (IndexStatus), for an output `out` that may be self (in place). Out
// of place, target is out, after self is copied in. In place, target is a contiguous copy of
// self in device scratch memory, copied back only when `write` returned: a bad index then
// leaves self untouched, as the CPU backends' up-front checks do (a kernel stops at the bad
// index, after writing the lines before it).
template <typename Write>
void write_through_indices(ComputeDevice& device, const bp_tensor& self, const bp_tensor& out,
                           Write&& write) {
  if (!same_view(out, self)) {
    copy_raw(device, out, self);
    write(out);
    return;
  }
  int64_t strides[64];
  int64_t n = 1;
  for (int32_t d = out.ndim - 1; d >= 0; --d) {
    strides[d] = n;
    n *= out.shape[d];
  }
  const DeviceBuffer scratch(device, static_cast<size_t>(n) * sdk::dtype_size(out.dtype));
  TensorView staged(out, out.ndim, out.shape, strides);
  staged.t.data = scratch.address();
  staged.t.byte_offset = 0;
  copy_raw(device, staged.t, out);
  write(staged.t);
  copy_raw(device, out, staged.t);
}

}  // namespace bp::clk
