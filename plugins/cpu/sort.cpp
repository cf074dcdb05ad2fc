// CPU kernel of sort.stable: the SDK's kernel (sdk/sort_kernels.hpp), its lines split among
// OpenMP threads (loops.hpp's parallel_range). Each line is sorted by one thread with
// std::stable_sort, so the result is the reference's whatever the thread count.
#include "cpu.hpp"
#include "loops.hpp"

#include <backplane/sdk/sort_kernels.hpp>

namespace bp::cpu {

void register_sort_kernels(sdk::Registrar& r) {
  sdk::SortKernels<OpenMpSplit>::register_all(r);
}

}  // namespace bp::cpu
