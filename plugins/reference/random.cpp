// Reference kernels of the random ops (uniform_, normal_, random_.from): the SDK's kernels
// over the Philox generator (sdk/random_kernels.hpp, sdk/philox.hpp), run on one thread.
// Every backend computes element i from (seed, offset + i) alone, so conformance compares
// them with these bit for bit (docs/random.md).
#include "reference.hpp"

#include <backplane/sdk/random_kernels.hpp>

namespace bp::reference {

void register_random_kernels(sdk::Registrar& r) {
  sdk::RandomKernels<Serial>::register_all(r);
}

}  // namespace bp::reference
