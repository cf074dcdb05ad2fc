// CPU kernels of the pooling ops (max_pool2d_with_indices, avg_pool2d,
// _adaptive_avg_pool2d and their backward ops): the SDK's kernels over its direct loops
// (sdk/pooling_kernels.hpp, sdk/pooling.hpp), the result split among OpenMP threads
// (loops.hpp's parallel_range). They give the reference's bits: the same loops, each result
// element computed by one thread (the gradients gather, so no two threads write one
// element). Pooling is a small part of a CNN's time next to its convolutions; a vectorised
// kernel over channels-last blocks is the step if a profile shows it.
#include "cpu.hpp"
#include "loops.hpp"

#include <backplane/sdk/pooling_kernels.hpp>

namespace bp::cpu {

void register_pooling_kernels(sdk::Registrar& r) {
  sdk::PoolingKernels<OpenMpSplit>::register_all(r);
}

}  // namespace bp::cpu
