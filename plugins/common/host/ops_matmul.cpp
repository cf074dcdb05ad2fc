// matmul on the shared tiled kernel (cl/matmul.cl), or on a device's own GEMM where it has
// one (ComputeDevice::gemm, e.g. CLBlast in the OpenCL plugin). The runtime gives self as
// [*B, n, k], other as [*B, k, m] and the output as [*B, n, m], batch dims already broadcast
// (docs/ops.md).
#include "ops_internal.hpp"

#include <string>

namespace bp::clk {
namespace {

constexpr const char* kProgram = "matmul";
constexpr size_t kTile = 16;  // BP_TILE of matmul.cl

size_t round_up(int64_t v, size_t to) {
  return (static_cast<size_t>(v) + to - 1) / to * to;
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

void register_matmul(Registry& r) {
  r.add("matmul", BP_DTYPES_ALL & ~BP_DTYPE_BIT(BP_DTYPE_BOOL), matmul_kernel);
}

}  // namespace bp::clk
