// The geometry the shared OpenCL C kernels receive (plugins/shared/compute-ops/geometry.cpp): which
// dims merge, which stay, and the reduction split into kept and reduced dims.
#include "geometry.hpp"

#include <doctest/doctest.h>
#include <backplane/sdk/error.hpp>

#include <vector>

namespace {

bp_tensor tensor(bp_dtype dtype, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& strides, uint64_t byte_offset = 0) {
  bp_tensor t{};
  t.struct_size = sizeof t;
  t.dtype = dtype;
  t.ndim = static_cast<int32_t>(shape.size());
  t.shape = shape.data();
  t.strides = strides.data();
  t.byte_offset = byte_offset;
  return t;
}

}  // namespace

TEST_CASE("contiguous operands merge into one dense dim") {
  const std::vector<int64_t> shape{2, 3, 4}, strides{12, 4, 1};
  const bp_tensor a = tensor(BP_DTYPE_F32, shape, strides, 8),
                  b = tensor(BP_DTYPE_F32, shape, strides);
  const bp_tensor* ts[] = {&a, &b};
  const bp::clk::Geom g = bp::clk::make_geometry(ts);
  CHECK(g.ndim == 1);
  CHECK(g.size[0] == 24);
  CHECK(g.offset[0] == 2);  // 8 bytes of f32
  CHECK(bp::clk::is_dense(g, 2));
}

TEST_CASE("a transposed or broadcast operand keeps the dims it breaks") {
  const std::vector<int64_t> shape{3, 4}, dense{4, 1}, transposed{1, 3}, broadcast{0, 1};
  const bp_tensor out = tensor(BP_DTYPE_I32, shape, dense);
  const bp_tensor t = tensor(BP_DTYPE_I32, shape, transposed);
  const bp_tensor* ts[] = {&out, &t};
  const bp::clk::Geom g = bp::clk::make_geometry(ts);
  CHECK(g.ndim == 2);
  CHECK(g.stride[1][0] == 1);
  CHECK(g.stride[1][1] == 3);
  CHECK_FALSE(bp::clk::is_dense(g, 2));
  const bp_tensor row = tensor(BP_DTYPE_I32, shape, broadcast);
  const bp_tensor* tb[] = {&out, &row};
  CHECK(bp::clk::make_geometry(tb).ndim == 2);
}

TEST_CASE("size-1 dims vanish and a 0-d tensor has no dims") {
  const std::vector<int64_t> shape{1, 5, 1}, strides{7, 1, 9};
  const bp_tensor a = tensor(BP_DTYPE_U8, shape, strides);
  const bp_tensor* ts[] = {&a};
  CHECK(bp::clk::make_geometry(ts).ndim == 1);
  const std::vector<int64_t> none;
  const bp_tensor s = tensor(BP_DTYPE_U8, none, none);
  const bp_tensor* tss[] = {&s};
  CHECK(bp::clk::make_geometry(tss).ndim == 0);
  CHECK(bp::clk::is_dense(bp::clk::make_geometry(tss), 1));
}

TEST_CASE("more than 8 unmergeable dims is an error that says so") {
  // Every dim strided by 2x its inner extent: nothing merges.
  std::vector<int64_t> shape(9, 2), strides(9);
  int64_t s = 1;
  for (int d = 8; d >= 0; --d, s *= 4) strides[static_cast<size_t>(d)] = s;
  const bp_tensor a = tensor(BP_DTYPE_F32, shape, strides);
  const bp_tensor* ts[] = {&a};
  CHECK_THROWS_WITH_AS(bp::clk::make_geometry(ts), doctest::Contains("at most 8"), bp::sdk::Error);
}

TEST_CASE("a reduction splits kept and reduced dims, merging within each") {
  // [2, 3, 4] reduced over dims 1 and 2 (contiguous: one reduced dim of 12).
  const std::vector<int64_t> in_shape{2, 3, 4}, in_strides{12, 4, 1};
  const std::vector<int64_t> out_shape{2, 1, 1}, out_strides{1, 1, 1};
  const bp_tensor in = tensor(BP_DTYPE_F32, in_shape, in_strides);
  const bp_tensor out = tensor(BP_DTYPE_F32, out_shape, out_strides);
  const bool reduced[] = {false, true, true};
  const bp::clk::ReduceGeom g = bp::clk::make_reduce_geometry(in, out, reduced);
  CHECK(g.nkept == 1);
  CHECK(g.kept_size[0] == 2);
  CHECK(g.kept_in_stride[0] == 12);
  CHECK(g.nred == 1);
  CHECK(g.red_size[0] == 12);
  CHECK(g.red_stride[0] == 1);
  // Reducing dims 0 and 2 cannot merge them (dim 1 lies between).
  const bool outer[] = {true, false, true};
  const bp::clk::ReduceGeom h = bp::clk::make_reduce_geometry(in, out, outer);
  CHECK(h.nred == 2);
  CHECK(h.red_stride[0] == 12);
  CHECK(h.red_stride[1] == 1);
}
