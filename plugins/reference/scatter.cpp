// Reference kernels of the scatter primitives (scatter.src, scatter_reduce.two): the SDK's
// kernels (sdk/scatter_kernels.hpp), every index checked before anything is written, the
// lines applied in index order on one thread.
#include "reference.hpp"

#include <backplane/sdk/scatter_kernels.hpp>

namespace bp::reference {

void register_scatter_kernels(sdk::Registrar& r) {
  sdk::ScatterKernels<Serial>::register_all(r);
}

}  // namespace bp::reference
