// Building the kernels' geometry: dropping size-1 dims and merging dims across which every
// operand is contiguous (dim d merges into d+1 when stride[d] == stride[d+1] * size[d+1]
// for every operand), which keeps the row-major order of elements.
#include "geometry.hpp"

#include <backplane/sdk/dtype.hpp>
#include <backplane/sdk/error.hpp>

#include <string>

namespace bp::clk {

int64_t numel(const bp_tensor& t) {
  int64_t n = 1;
  for (int32_t d = 0; d < t.ndim; ++d) n *= t.shape[d];
  return n;
}

int64_t element_offset(const bp_tensor& t) {
  return static_cast<int64_t>(t.byte_offset / sdk::dtype_size(t.dtype));
}

Geom make_geometry(const int64_t* shape, int32_t ndim, std::span<const Operand> operands) {
  const int n = static_cast<int>(operands.size());
  // Dims kept so far, outermost first, in a buffer large enough for any input.
  struct Dim {
    int64_t size;
    int64_t stride[kMaxOperands];
  };
  Geom g{};
  for (int k = 0; k < n; ++k) g.offset[k] = operands[static_cast<size_t>(k)].offset;
  constexpr int kCap = 64;
  Dim dims[kCap];
  int count = 0;
  for (int32_t d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    Dim next{shape[d], {}};
    for (int k = 0; k < n; ++k) next.stride[k] = operands[static_cast<size_t>(k)].strides[d];
    if (count > 0) {
      Dim& last = dims[count - 1];
      bool mergeable = true;
      for (int k = 0; k < n && mergeable; ++k)
        mergeable = last.stride[k] == next.stride[k] * next.size;
      if (mergeable) {
        last.size *= next.size;
        for (int k = 0; k < n; ++k) last.stride[k] = next.stride[k];
        continue;
      }
    }
    if (count == kCap) throw sdk::Error(BP_ERR_UNSUPPORTED, "tensor with more than 64 dims");
    dims[count++] = next;
  }
  if (count > kMaxDims)
    throw sdk::Error(BP_ERR_UNSUPPORTED,
                     "the tensors have " + std::to_string(count) +
                         " dims that cannot be merged; the OpenCL C kernels take at most " +
                         std::to_string(kMaxDims) + " (make the inputs contiguous first)");
  g.ndim = count;
  for (int d = 0; d < count; ++d) {
    g.size[d] = dims[d].size;
    for (int k = 0; k < n; ++k) g.stride[k][d] = dims[d].stride[k];
  }
  return g;
}

Geom make_geometry(std::span<const bp_tensor* const> tensors) {
  Operand ops[kMaxOperands];
  for (size_t k = 0; k < tensors.size(); ++k)
    ops[k] = {tensors[k]->strides, element_offset(*tensors[k])};
  return make_geometry(tensors[0]->shape, tensors[0]->ndim,
                       std::span<const Operand>(ops, tensors.size()));
}

Geom line_geometry(const bp_tensor& shape, int64_t dim, std::span<const Operand> operands) {
  int64_t lines_shape[64];
  for (int32_t d = 0; d < shape.ndim; ++d) lines_shape[d] = d == dim ? 1 : shape.shape[d];
  return make_geometry(lines_shape, shape.ndim, operands);
}

bool is_dense(const Geom& g, int noperands) {
  if (g.ndim == 0) return true;
  if (g.ndim > 1) return false;
  for (int k = 0; k < noperands; ++k)
    if (g.stride[k][0] != 1) return false;
  return true;
}

ReduceGeom make_reduce_geometry(const bp_tensor& in, const bp_tensor& out, const bool* reduced) {
  ReduceGeom g{};
  g.in_offset = element_offset(in);
  g.out_offset = element_offset(out);
  // Kept dims: operands (in, out) over the output's sizes; reduced dims: the input alone.
  int64_t kept_shape[64], kept_in[64], kept_out[64], red_shape[64], red_in[64];
  int32_t nk = 0, nr = 0;
  for (int32_t d = 0; d < in.ndim; ++d) {
    if (reduced[d]) {
      red_shape[nr] = in.shape[d];
      red_in[nr++] = in.strides[d];
    } else {
      kept_shape[nk] = in.shape[d];
      kept_in[nk] = in.strides[d];
      kept_out[nk++] = out.strides[d];
    }
  }
  const Operand kept_ops[2] = {{kept_in, 0}, {kept_out, 0}};
  const Geom kept = make_geometry(kept_shape, nk, kept_ops);
  const Operand red_ops[1] = {{red_in, 0}};
  const Geom red = make_geometry(red_shape, nr, red_ops);
  g.nkept = kept.ndim;
  for (int d = 0; d < kept.ndim; ++d) {
    g.kept_size[d] = kept.size[d];
    g.kept_in_stride[d] = kept.stride[0][d];
    g.kept_out_stride[d] = kept.stride[1][d];
  }
  g.nred = red.ndim;
  for (int d = 0; d < red.ndim; ++d) {
    g.red_size[d] = red.size[d];
    g.red_stride[d] = red.stride[0][d];
  }
  return g;
}

}  // namespace bp::clk
