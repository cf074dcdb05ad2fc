// CPU kernels of the random ops (uniform_, normal_, random_.from): the SDK's kernels over the
// Philox generator (sdk/random_kernels.hpp, sdk/philox.hpp), self's elements split among
// OpenMP threads (loops.hpp's parallel_range). Element i depends on (seed, offset + i) alone,
// so they give the reference's bits on any thread count (docs/random.md).
#include "cpu.hpp"
#include "loops.hpp"

#include <backplane/sdk/random_kernels.hpp>

namespace bp::cpu {

void register_random_kernels(sdk::Registrar& r) {
  sdk::RandomKernels<OpenMpSplit>::register_all(r);
}

}  // namespace bp::cpu
