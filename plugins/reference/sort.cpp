// Reference kernel of sort.stable: the SDK's kernel (sdk/sort_kernels.hpp), each line along
// dim sorted stably with NaN above every number, on one thread.
#include "reference.hpp"

#include <backplane/sdk/sort_kernels.hpp>

namespace bp::reference {

void register_sort_kernels(sdk::Registrar& r) {
  sdk::SortKernels<Serial>::register_all(r);
}

}  // namespace bp::reference
