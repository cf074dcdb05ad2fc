// CPU kernel of nonzero_static: the SDK's kernel (sdk/nonzero_kernels.hpp), its fixed
// blocks counted and then written by OpenMP threads. A block's first row is the prefix sum
// of the counts before it, so the rows are the reference's on any thread count.
#include "cpu.hpp"
#include "loops.hpp"

#include <backplane/sdk/nonzero_kernels.hpp>

namespace bp::cpu {

void register_nonzero_kernels(sdk::Registrar& r) {
  sdk::NonzeroKernels<OpenMpSplit>::register_all(r);
}

}  // namespace bp::cpu
