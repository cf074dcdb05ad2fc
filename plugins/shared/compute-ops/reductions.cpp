// Reductions on the shared kernels (opencl-c-kernels/reduce.cl), core's `reductions` family
// (core/src/ops/reductions.cpp): one work-group per output element. The runtime gives the
// output in the keepdim shape and the dims wrapped, sorted and explicit (docs/ops.md); `None`
// reduces every dim.
#include "ops_internal.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace bp::clk {
namespace {

constexpr const char* kProgram = "reduce";
constexpr size_t kMaxGroup = 256;  // BP_WG_MAX of reduce.cl

// The dims `dim` (INT_LIST, INT or NONE = all) flags in an input of `ndim` dims.
std::vector<char> reduced_dims(const bp_call* c, const bp_value& dim, int32_t ndim) {
  std::vector<char> reduced(static_cast<size_t>(std::max(ndim, 1)), 0);
  auto flag = [&](int64_t d) {
    if (ndim == 0 && (d == 0 || d == -1)) return;
    if (d < 0 || d >= ndim)
      throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string(c->op_name) + ": dim " +
                                                    std::to_string(d) + " is out of range for " +
                                                    std::to_string(ndim) + " dims");
    reduced[static_cast<size_t>(d)] = 1;
  };
  if (dim.tag == BP_VALUE_NONE) {
    std::fill(reduced.begin(), reduced.end(), 1);
  } else if (dim.tag == BP_VALUE_INT) {
    flag(dim.u.i);
  } else if (dim.tag == BP_VALUE_INT_LIST) {
    for (size_t i = 0; i < dim.u.list.count; ++i) flag(dim.u.list.items.ints[i]);
  } else {
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT, std::string(c->op_name) + ": 'dim' is not an int");
  }
  return reduced;
}

// Runs reduction kernel `kernel` of `in`'s variant into the call's output.
void reduce(const bp_call* c, const char* kernel, bool needs_elements) {
  const bp_tensor& in = tensor_arg(c, 0);
  const bp_tensor& out = output(c);
  ComputeDevice& device = device_for(context_of(c), in.dtype);
  const std::vector<char> flags = reduced_dims(c, c->args[1], in.ndim);
  bool reduced[64] = {};
  int64_t count = 1;
  for (int32_t d = 0; d < in.ndim; ++d) {
    reduced[d] = flags[static_cast<size_t>(d)] != 0;
    if (reduced[d]) count *= in.shape[d];
  }
  const int64_t outputs = numel(out);
  if (outputs == 0) return;
  if (needs_elements && count == 0)
    throw sdk::Error(BP_ERR_INVALID_ARGUMENT,
                     std::string(c->op_name) +
                         ": cannot reduce over a dimension of size 0 (the input has 0 elements "
                         "along a reduced dim)");
  const ReduceGeom g = make_reduce_geometry(in, out, reduced);
  // Three group sizes only: drivers that compile a kernel per group size (PoCL) then build
  // three versions of each reduction instead of nine.
  const size_t cap = std::min(kMaxGroup, device.max_work_group_size());
  size_t group = count <= 1 ? 1 : count <= 32 ? 32 : kMaxGroup;
  while (group > cap) group /= 2;
  const KernelArg args[] = {memory_arg(in.data), memory_arg(out.data), value_arg(g)};
  device.launch(device.kernel(kProgram, variant(in.dtype), kernel), args,
                range_1d(static_cast<size_t>(outputs) * group, group));
}

// sum.dim_IntList / prod.dim_int: floating into the same dtype; integers and bool into i64
// (or, with dtype=, the input's own dtype).
template <bool kProd>
bp_status sum_prod_kernel(const bp_call* c) {
  return guarded([&] {
    const bp_tensor& in = tensor_arg(c, 0);
    const bp_tensor& out = output(c);
    std::string kernel = kProd ? "prod_" : "sum_";
    if (!sdk::is_floating(in.dtype)) kernel += out.dtype == BP_DTYPE_I64 ? "i64" : "same";
    if (out.dtype != in.dtype && out.dtype != BP_DTYPE_I64)
      throw sdk::Error(BP_ERR_UNSUPPORTED, std::string(c->op_name) + ": no kernel from " +
                                               sdk::dtype_name(in.dtype) + " to " +
                                               sdk::dtype_name(out.dtype));
    reduce(c, kernel.c_str(), false);
  });
}

// amax, amin, argmax, argmin (non-empty reductions), all.dim, any.dim: kernel_ctx names the
// kernel.
template <bool kNeedsElements>
bp_status named_kernel(const bp_call* c) {
  return guarded([&] { reduce(c, static_cast<const char*>(c->kernel_ctx), kNeedsElements); });
}

}  // namespace

void register_reductions(OpRegistrar& ops) {
  ops.add("sum.dim_IntList", BP_DTYPES_ALL, sum_prod_kernel<false>);
  ops.add("prod.dim_int", BP_DTYPES_ALL, sum_prod_kernel<true>);
  ops.add("amax", BP_DTYPES_ALL, named_kernel<true>, "amax_");
  ops.add("amin", BP_DTYPES_ALL, named_kernel<true>, "amin_");
  ops.add("argmax", kAllButBool, named_kernel<true>, "argmax_");
  ops.add("argmin", kAllButBool, named_kernel<true>, "argmin_");
  ops.add("all.dim", BP_DTYPES_ALL, named_kernel<false>, "all_");
  ops.add("any.dim", BP_DTYPES_ALL, named_kernel<false>, "any_");
}

}  // namespace bp::clk
