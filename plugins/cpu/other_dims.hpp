// Internal header of the CPU backend: the positions of a tensor's dims other than the one a
// kernel loops along itself (index_add's indexed dim and row, a scan's dim), with each
// operand's strides. Kernels that give each position to one thread (index_add, cumsum,
// cumprod) walk them with offsets(); elementwise kernels use loops.hpp instead.
#pragma once

#include <backplane/sdk/strided_view.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace bp::cpu {

template <size_t K>
struct OtherDims {
  std::vector<int64_t> sizes;                   // the kept dims, outermost first
  std::vector<std::array<int64_t, K>> strides;  // each kept dim's stride in every view
  int64_t count = 1;                            // the number of positions

  // The dims of views[0] other than `skip` and `also_skip` (-1: none). The views share
  // views[0]'s shape outside the skipped dims.
  OtherDims(const std::array<const sdk::StridedView*, K>& views, int64_t skip,
            int64_t also_skip = -1) {
    for (int32_t d = 0; d < views[0]->ndim; ++d) {
      if (d == skip || d == also_skip) continue;
      sizes.push_back(views[0]->shape[d]);
      std::array<int64_t, K> s;
      for (size_t k = 0; k < K; ++k) s[k] = views[k]->strides[d];
      strides.push_back(s);
      count *= views[0]->shape[d];
    }
  }

  // Element offsets in each view of position p (row-major over `sizes`).
  std::array<int64_t, K> offsets(int64_t p) const {
    std::array<int64_t, K> off{};
    for (size_t d = sizes.size(); d-- > 0;) {
      const int64_t i = p % sizes[d];
      p /= sizes[d];
      for (size_t k = 0; k < K; ++k) off[k] += i * strides[d][k];
    }
    return off;
  }
};

}  // namespace bp::cpu
