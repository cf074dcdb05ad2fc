// Input generation for conformance samples: seeded random tensors on the reference device
// in every layout a kernel must handle (contiguous, transposed, sliced with a step, offset
// views, broadcast) and with the value families that find bugs (special floating values,
// integer extremes, ties). The runner copies each input to the device under test with the
// same sizes, strides and storage offset, so generators never see the target device.
//
// One InputMaker per case, seeded from (suite seed, case id): the same id and seed always
// give the same inputs, whichever shard or process runs the case. Not thread-safe.
#pragma once

#include <backplane/backplane.hpp>

#include <cstdint>
#include <random>
#include <vector>

namespace bp::conformance {

// Which values a generated tensor holds. Floating dtypes get the value, rounded once to the
// dtype; integer dtypes get it rounded to an integer and clamped to the dtype's range; bool
// gets value != 0.
enum class Values {
  Normal,    // floats ~ N(0, 1); ints uniform in [-9, 9] ([0, 9] for u8); bool fair coin
  Positive,  // floats uniform in [0.125, 8]; ints uniform in [1, 9]
  Unit,      // floats uniform in (-1, 1); ints uniform in [-1, 1] ([0, 1] for u8)
  Wide,      // floats ~ N(0, 1) * 1000; ints uniform over the dtype's whole range
  Special,   // every special value of the dtype (special_values()) first, then Normal values
  Ties,      // few distinct values (ints in [-2, 2]; floats in {-1, -0.5, 0, 0.5, 1}): ties
             // for argmax/argmin and comparisons
};

enum class Layout {
  Contiguous,
  Transposed,  // the last two dims are transposed in memory (needs dim >= 2; else Contiguous)
  Strided,     // every other element of the last dim of a larger buffer (step 2)
  Offset,      // contiguous, but starting 3 elements into its storage
  Permuted,    // dims in reverse order in memory (needs dim >= 2; else Contiguous)
};

// `t`'s values (exactly, through the reference's copy_) in `layout`, on the reference
// device: what InputMaker::tensor does with freshly drawn values. Transposed and Permuted
// leave a tensor of fewer than 2 dims as it is; Strided and Offset apply to any.
Tensor relayout(const Tensor& t, Layout layout);
// A view of `t`'s shape whose first dim of size > 1 has stride 0: `t`'s first slice along
// that dim, repeated (broadcast). `t` itself when no dim has size > 1.
Tensor expanded_first_slice(const Tensor& t);

// The special values of a dtype, in a fixed order. Floating: NaN, +Inf, -Inf, -0, +0,
// smallest subnormal (both signs; not for bf16's / f16's "none" cases), smallest normal,
// largest finite (both signs), 1, -1, 0.5, 1.5, 2.5, -2.5 (rounding ties). Integers: min, max,
// 0, 1, -1 (signed), min + 1, max - 1. Bool: false, true.
std::vector<double> special_values(ScalarType dtype);

class InputMaker {
 public:
  explicit InputMaker(uint64_t seed) : rng_(seed) {}

  std::mt19937_64& rng() { return rng_; }
  // Uniform integer in [lo, hi] and uniform double in [lo, hi).
  int64_t uniform_int(int64_t lo, int64_t hi);
  double uniform(double lo, double hi);

  // A tensor of `sizes` and `dtype` on the reference device holding `values`, in `layout`.
  // Values are drawn in row-major order of the logical tensor, so a sample gets the same
  // values whichever layout it asks for.
  Tensor tensor(IntArrayRef sizes, ScalarType dtype, Values values = Values::Normal,
                Layout layout = Layout::Contiguous);
  // The given values (row-major, rounded once to `dtype`) in `layout`.
  Tensor from_doubles(IntArrayRef sizes, ScalarType dtype, const std::vector<double>& values,
                      Layout layout = Layout::Contiguous);
  // Integer tensor with values uniform in [lo, hi] (index inputs of gather, index_select,
  // embedding).
  Tensor indices(IntArrayRef sizes, int64_t lo, int64_t hi, ScalarType dtype = ScalarType::Int64,
                 Layout layout = Layout::Contiguous);
  // A bool tensor, each element true with probability p.
  Tensor mask(IntArrayRef sizes, double p = 0.5, Layout layout = Layout::Contiguous);

 private:
  std::vector<double> draw(int64_t n, ScalarType dtype, Values values);
  std::mt19937_64 rng_;
};

// The reference device, where generators create their inputs.
inline constexpr Device kReferenceDevice{device_types::Reference, 0};

}  // namespace bp::conformance
