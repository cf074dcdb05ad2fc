// The geometry of strided tensors as the shared kernels receive it (the `bp_geom` and
// `bp_rgeom` structs of opencl-c-kernels/prelude.h, same layout): sizes, strides and first-element
// offsets in elements, with dims merged where every operand is contiguous across them, so
// that most calls reach the kernels as 1-D and the per-element index arithmetic stays short.
#pragma once

#include <backplane/plugin.h>

#include <cstdint>
#include <span>

namespace bp::clk {

inline constexpr int kMaxDims = 8;
inline constexpr int kMaxOperands = 4;

// Operands of one shape (elementwise ops: inputs expanded to the output's shape).
struct Geom {
  int64_t size[kMaxDims];
  int64_t stride[kMaxOperands][kMaxDims];
  int64_t offset[kMaxOperands];
  int32_t ndim;
  int32_t pad_;
};
static_assert(sizeof(Geom) == 8 * (kMaxDims + kMaxOperands * kMaxDims + kMaxOperands + 1));

// A reduction: the kept dims (the output's) and the reduced dims of the input.
struct ReduceGeom {
  int64_t kept_size[kMaxDims];
  int64_t kept_in_stride[kMaxDims];
  int64_t kept_out_stride[kMaxDims];
  int64_t red_size[kMaxDims];
  int64_t red_stride[kMaxDims];
  int64_t in_offset;
  int64_t out_offset;
  int32_t nkept;
  int32_t nred;
};
static_assert(sizeof(ReduceGeom) == 8 * (5 * kMaxDims + 3));

int64_t numel(const bp_tensor& t);
// The first element's offset in elements (byte_offset / element size).
int64_t element_offset(const bp_tensor& t);

// The geometry of `operands` over `shape` (ndim entries), each given by its strides and
// element offset; dims of size 1 dropped and mergeable dims merged. Throws sdk::Error when
// more than kMaxDims dims remain (a tensor whose every dim is strided differently).
struct Operand {
  const int64_t* strides;
  int64_t offset;
};
Geom make_geometry(const int64_t* shape, int32_t ndim, std::span<const Operand> operands);
// The same for tensors of one shape (the first one's).
Geom make_geometry(std::span<const bp_tensor* const> tensors);
// The geometry of the lines of `shape` along `dim` (its shape with dim's size set to 1):
// one position per line, for kernels that walk each line themselves (scans, index_add,
// sort, scatter).
Geom line_geometry(const bp_tensor& shape, int64_t dim, std::span<const Operand> operands);

// True when every operand of `g` is one dense run (ndim <= 1, stride 1), so the "_contig"
// kernels apply.
bool is_dense(const Geom& g, int noperands);

// The geometry of reducing `in` into `out` (keepdim shape) over the dims flagged in
// `reduced` (in.ndim entries).
ReduceGeom make_reduce_geometry(const bp_tensor& in, const bp_tensor& out, const bool* reduced);

}  // namespace bp::clk
