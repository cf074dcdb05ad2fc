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

// Runs fill(out, n, first_counter) over a contiguous self of dtype T, split among the
// threads; false (nothing done) for any other self.
template <typename T, typename Fill>
bool fill_dense(const StridedView& self, int64_t offset, Fill&& fill) {
  if (self.dtype != sdk::dtype_of<T>() || !self.is_contiguous()) return false;
  T* out = self.data<T>();
  parallel_range(self.numel(), [&](int64_t begin, int64_t end) {
    fill(out + begin, end - begin, static_cast<uint64_t>(offset) + static_cast<uint64_t>(begin));
  });
  return true;
}

// uniform_(Tensor(a!) self, float from, float to, *, int seed, int offset)
void uniform_kernel(StridedView self, double from, double to, int64_t seed, int64_t offset) {
  const auto key = static_cast<uint64_t>(seed);
  if (fill_dense<float>(self, offset,
                        [&](float* out, int64_t n, uint64_t first) {
                          simd_uniform_f32(out, n, key, first, from, to);
                        }) ||
      fill_dense<double>(self, offset, [&](double* out, int64_t n, uint64_t first) {
        simd_uniform_f64(out, n, key, first, from, to);
      }))
    return;
  Sdk::uniform_kernel(self, from, to, seed, offset);
}

// normal_(Tensor(a!) self, float mean, float std, *, int seed, int offset)
void normal_kernel(StridedView self, double mean, double std, int64_t seed, int64_t offset) {
  const auto key = static_cast<uint64_t>(seed);
  if (fill_dense<float>(self, offset,
                        [&](float* out, int64_t n, uint64_t first) {
                          simd_normal_f32(out, n, key, first, mean, std);
                        }) ||
      fill_dense<double>(self, offset, [&](double* out, int64_t n, uint64_t first) {
        simd_normal_f64(out, n, key, first, mean, std);
      }))
    return;
  Sdk::normal_kernel(self, mean, std, seed, offset);
}

}  // namespace

void register_random_kernels(sdk::Registrar& r) {
  r.kernel<uniform_kernel>("uniform_", BP_DTYPES_FLOATING);
  r.kernel<normal_kernel>("normal_", BP_DTYPES_FLOATING);
  r.kernel<Sdk::random_kernel>("random_.from", BP_DTYPES_ALL);
}

}  // namespace bp::cpu
