// Reference kernel of nonzero_static: the SDK's kernel (sdk/nonzero_kernels.hpp), its blocks
// counted and written in order on one thread.
#include "reference.hpp"

#include <backplane/sdk/nonzero_kernels.hpp>

namespace bp::reference {

void register_nonzero_kernels(sdk::Registrar& r) {
  sdk::NonzeroKernels<Serial>::register_all(r);
}

}  // namespace bp::reference
