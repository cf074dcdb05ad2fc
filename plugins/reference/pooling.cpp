// Reference kernels of the pooling ops (max_pool2d_with_indices, avg_pool2d,
// _adaptive_avg_pool2d and their backward ops): the SDK's kernels over its direct loops
// (sdk/pooling_kernels.hpp, sdk/pooling.hpp), run over the whole result on one thread.
// Sums in double, rounded once; the maximum is an input element, copied.
#include "reference.hpp"

#include <backplane/sdk/pooling_kernels.hpp>

namespace bp::reference {

void register_pooling_kernels(sdk::Registrar& r) {
  sdk::PoolingKernels<Serial>::register_all(r);
}

}  // namespace bp::reference
