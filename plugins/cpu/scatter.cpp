// CPU kernels of the scatter primitives (scatter.src, scatter_reduce.two): the SDK's kernels
// (sdk/scatter_kernels.hpp), index's lines split among OpenMP threads (loops.hpp's
// parallel_range). A line owns its line of the output, applied in index order, so the result
// is the reference's on any thread count, with no atomics.
#include "cpu.hpp"
#include "loops.hpp"

#include <backplane/sdk/scatter_kernels.hpp>

namespace bp::cpu {

void register_scatter_kernels(sdk::Registrar& r) {
  sdk::ScatterKernels<OpenMpSplit>::register_all(r);
}

}  // namespace bp::cpu
