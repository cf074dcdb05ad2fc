// CPU kernels of the random ops (uniform_, normal_, random_.from): the SDK's kernels over the
// Philox generator (sdk/random_kernels.hpp, sdk/philox.hpp), self's elements split among
// OpenMP threads (loops.hpp's parallel_range). Element i depends on (seed, offset + i) alone,
// so they give the reference's bits on any thread count (docs/random.md). uniform_ and
// normal_ of a contiguous f32 or f64 self, the common case (torch.rand, torch.randn, nn.init,
// dropout's bernoulli_), compute several elements per vector (simd_random.hpp), the same bits.
#include "cpu.hpp"
#include "loops.hpp"
#include "simd_random.hpp"

#include <backplane/sdk/random_kernels.hpp>

namespace bp::cpu {
namespace {

using Sdk = sdk::RandomKernels<OpenMpSplit>;

// uniform_(Tensor(a!) self, float from, float to, *, int seed, int offset)
void uniform_kernel(StridedView self, double from, double to, int64_t seed, int64_t offset) {
  const bool dense = self.is_contiguous();
  const auto key = static_cast<uint64_t>(seed), start = static_cast<uint64_t>(offset);
  if (dense && self.dtype == BP_DTYPE_F32) {
    // uniform_value<float>'s bounds: from and to rounded to the dtype, their difference once.
    const float lo = static_cast<float>(from), hi = static_cast<float>(to);
    float* out = self.data<float>();
    parallel_range(self.numel(), [&](int64_t begin, int64_t end) {
      simd_uniform_f32(out + begin, end - begin, key, start + static_cast<uint64_t>(begin), lo,
                       hi - lo);
    });
    return;
  }
  if (dense && self.dtype == BP_DTYPE_F64) {
    double* out = self.data<double>();
    parallel_range(self.numel(), [&](int64_t begin, int64_t end) {
      simd_uniform_f64(out + begin, end - begin, key, start + static_cast<uint64_t>(begin), from,
                       to - from);
    });
    return;
  }
  Sdk::uniform_kernel(self, from, to, seed, offset);
}

// normal_(Tensor(a!) self, float mean, float std, *, int seed, int offset)
void normal_kernel(StridedView self, double mean, double std, int64_t seed, int64_t offset) {
  const bool dense = self.is_contiguous();
  const auto key = static_cast<uint64_t>(seed), start = static_cast<uint64_t>(offset);
  if (dense && self.dtype == BP_DTYPE_F32) {
    float* out = self.data<float>();
    parallel_range(self.numel(), [&](int64_t begin, int64_t end) {
      simd_normal_f32(out + begin, end - begin, key, start + static_cast<uint64_t>(begin), mean,
                      std);
    });
    return;
  }
  if (dense && self.dtype == BP_DTYPE_F64) {
    double* out = self.data<double>();
    parallel_range(self.numel(), [&](int64_t begin, int64_t end) {
      simd_normal_f64(out + begin, end - begin, key, start + static_cast<uint64_t>(begin), mean,
                      std);
    });
    return;
  }
  Sdk::normal_kernel(self, mean, std, seed, offset);
}

}  // namespace

void register_random_kernels(sdk::Registrar& r) {
  r.kernel<uniform_kernel>("uniform_", BP_DTYPES_FLOATING);
  r.kernel<normal_kernel>("normal_", BP_DTYPES_FLOATING);
  r.kernel<Sdk::random_kernel>("random_.from", BP_DTYPES_ALL);
}

}  // namespace bp::cpu
