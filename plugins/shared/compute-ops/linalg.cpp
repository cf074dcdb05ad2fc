// matmul, core's `linalg` family (core/src/ops/linalg.cpp), on the shared tiled kernel
// (opencl-c-kernels/matmul.cl), or on a device's own GEMM where it has one
// (ComputeDevice::gemm: CLBlast in the OpenCL plugin, cuBLAS in the CUDA plugin). The runtime
// gives self as [*B, n, k], other as [*B, k, m] and the output as [*B, n, m], batch dims
// already broadcast (docs/ops.md).
#include "ops_internal.hpp"

#include <algorithm>
#include <string>
#include <utility>

namespace bp::clk {
namespace {

constexpr const char* kProgram = "matmul";
constexpr size_t kTile = 16;  // BP_TILE of matmul.cl

size_t round_up(int64_t v, size_t to) {
  return (static_cast<size_t>(v) + to - 1) / to * to;
}

// A rows x cols matrix with strides (rs, cs) as a GEMM operand stored in `row_major` order:
// as it is (unit stride along a row) or transposed (unit stride along a column), with a
// leading dimension that spans a whole row. False for any other layout (no unit stride, a
// broadcast or overlapping dim, a negative stride).
bool gemm_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool row_major,
                 GemmMatrix& out) {
  if (!row_major) {
    std::swap(rows, cols);
    std::swap(rs, cs);
  }
  if (cols == 1 || cs == 1) {
    const int64_t ld = rows == 1 ? std::max<int64_t>(cols, 1) : rs;
    if (ld >= std::max<int64_t>(cols, 1)) {
      out.ld = ld;
      out.transposed = false;
      return true;
    }
  }
  if (rows == 1 || rs == 1) {
    const int64_t ld = cols == 1 ? std::max<int64_t>(rows, 1) : cs;
    if (ld >= std::max<int64_t>(rows, 1)) {
      out.ld = ld;
      out.transposed = true;
      return true;
    }
  }
  return false;
}

// The device's own GEMM (ComputeDevice::gemm) for out = a x b when the operands fit one
// (strided-batched) call: a floating dtype (the device declines those it has no GEMM for),
// each matrix with a unit stride in one of its dims,
// the batch dims (geometry `g`) merged into at most one. A batch that b does not vary over
// and that a and out walk row after row folds into the rows of one GEMM (linear layers).
// False when it does not fit or the device declines: the caller runs the tiled kernel.
bool try_device_gemm(ComputeDevice& device, const bp_tensor& a, const bp_tensor& b,
                     const bp_tensor& out, const Geom& g, int64_t n, int64_t k, int64_t m) {
  if (!sdk::is_floating(a.dtype)) return false;
  if (k == 0 || g.ndim > 1) return false;
  const int32_t nb = a.ndim - 2;
  GemmArgs args;
  args.dtype = a.dtype;
  args.m = n;  // BLAS names: c is m x n, op(a) m x k
  args.n = m;
  args.k = k;
  // Column-major when the output's columns are its unit-stride dim.
  args.row_major = !(out.strides[nb] == 1 && out.strides[nb + 1] != 1 && m > 1);
  if (!gemm_layout(n, m, out.strides[nb], out.strides[nb + 1], args.row_major, args.c) ||
      args.c.transposed ||
      !gemm_layout(n, k, a.strides[nb], a.strides[nb + 1], args.row_major, args.a) ||
      !gemm_layout(k, m, b.strides[nb], b.strides[nb + 1], args.row_major, args.b))
    return false;
  GemmMatrix* mats[3] = {&args.c, &args.a, &args.b};
  const void* data[3] = {out.data, a.data, b.data};
  for (int i = 0; i < 3; ++i) {
    mats[i]->data = data[i];
    mats[i]->offset = g.offset[i];
    mats[i]->batch_stride = g.ndim == 1 ? g.stride[i][0] : 0;
    if (mats[i]->batch_stride < 0) return false;
  }
  args.batch = g.ndim == 1 ? g.size[0] : 1;
  if (args.batch > 1 && args.row_major && args.b.batch_stride == 0 && !args.a.transposed &&
      args.a.batch_stride == n * args.a.ld && args.c.batch_stride == n * args.c.ld) {
    args.m *= args.batch;
    args.batch = 1;
  }
  if (args.batch == 1)
    for (GemmMatrix* mat : mats) mat->batch_stride = 0;
  return device.gemm(args);
}

bp_status matmul_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& a = tensor_arg(c, 0);
    const bp_tensor& b = tensor_arg(c, 1);
    const bp_tensor& out = output(c);
    ComputeDevice& device = device_for(context_of(c), a.dtype);
    if (a.ndim < 2 || b.ndim != a.ndim || out.ndim != a.ndim)
      throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                       std::string(c->op_name) + ": expected [*B, n, k] x [*B, k, m] operands");
    const int32_t nb = a.ndim - 2;
    const int64_t n = a.shape[nb], k = a.shape[nb + 1], m = b.shape[nb + 1];
    const Operand operands[] = {{out.strides, element_offset(out)},
                                {a.strides, element_offset(a)},
                                {b.strides, element_offset(b)}};
    const Geom g = make_geometry(out.shape, nb, operands);
    int64_t batches = 1;
    for (int32_t d = 0; d < nb; ++d) batches *= out.shape[d];
    if (batches == 0 || n == 0 || m == 0) return;
    if (try_device_gemm(device, a, b, out, g, n, k, m)) return;
    const int64_t a_rs = a.strides[nb], a_cs = a.strides[nb + 1];
    const int64_t b_rs = b.strides[nb], b_cs = b.strides[nb + 1];
    const int64_t o_rs = out.strides[nb], o_cs = out.strides[nb + 1];
    const KernelArg args[] = {memory_arg(out.data), memory_arg(a.data), memory_arg(b.data),
                              value_arg(g),         value_arg(n),       value_arg(k),
                              value_arg(m),         value_arg(a_rs),    value_arg(a_cs),
                              value_arg(b_rs),      value_arg(b_cs),    value_arg(o_rs),
                              value_arg(o_cs)};
    LaunchRange range;
    range.dims = 3;
    range.global[0] = round_up(m, kTile);
    range.global[1] = round_up(n, kTile);
    range.global[2] = static_cast<size_t>(batches);
    range.local[0] = kTile;
    range.local[1] = kTile;
    range.local[2] = 1;
    device.launch(device.kernel(kProgram, variant(a.dtype), "matmul_"), args, range);
  });
}

}  // namespace

void register_linalg(OpRegistrar& ops) {
  ops.add("matmul", kAllButBool, matmul_kernel);
}

}  // namespace bp::clk
