// The random ops' kernels for a plugin to register (uniform_, normal_, random_.from), over
// the Philox generator and transforms of sdk/philox.hpp: `Split::run(n, body)` calls
// body(begin, end) over [0, n), on one thread or split among several. Element i (row-major,
// whatever self's strides) is a function of (seed, offset + i) alone, so any split and any
// layout give the same bits. The reference backend registers them with a serial Split, the
// CPU plugin with its OpenMP one. Header-only.
#pragma once

#include <backplane/sdk/kernel.hpp>
#include <backplane/sdk/philox.hpp>

#include <optional>
#include <vector>

namespace bp::sdk {

// Calls f(i, element) for the row-major indices i in [begin, end) of `self`, whose element
// i is self's T at that multi-index.
template <typename T, typename F>
void for_each_element_in(const StridedView& self, int64_t begin, int64_t end, F&& f) {
  if (begin >= end) return;
  std::vector<int64_t> index(static_cast<size_t>(self.ndim), 0);
  int64_t rest = begin;
  for (int32_t d = self.ndim - 1; d >= 0; --d) {
    index[static_cast<size_t>(d)] = rest % self.shape[d];
    rest /= self.shape[d];
  }
  int64_t offset = self.offset_of(index.data());
  for (int64_t i = begin; i < end; ++i) {
    f(static_cast<uint64_t>(i), self.at_offset<T>(offset));
    for (int32_t d = self.ndim - 1; d >= 0; --d) {  // the next index, last dim fastest
      const auto k = static_cast<size_t>(d);
      offset += self.strides[d];
      if (++index[k] < self.shape[d]) break;
      offset -= self.strides[d] * self.shape[d];
      index[k] = 0;
    }
  }
}

template <typename Split>
struct RandomKernels {
  // Runs make(block) -> T over every element of self.
  template <typename T, typename Make>
  static void fill(const StridedView& self, int64_t seed, int64_t offset, Make make) {
    const auto key = static_cast<uint64_t>(seed), start = static_cast<uint64_t>(offset);
    Split::run(self.numel(), [&](int64_t begin, int64_t end) {
      for_each_element_in<T>(self, begin, end, [&](uint64_t i, T& element) {
        element = make(philox::element_block(key, start, i));
      });
    });
  }

  // uniform_(Tensor(a!) self, float from, float to, *, int seed, int offset)
  static void uniform_kernel(StridedView self, double from, double to, int64_t seed,
                             int64_t offset) {
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (kIsFloating<T>)
        fill<T>(self, seed, offset,
                [&](const philox::Block& b) { return philox::uniform_value<T>(b, from, to); });
    });
  }

  // normal_(Tensor(a!) self, float mean, float std, *, int seed, int offset)
  static void normal_kernel(StridedView self, double mean, double std, int64_t seed,
                            int64_t offset) {
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (kIsFloating<T>)
        fill<T>(self, seed, offset,
                [&](const philox::Block& b) { return philox::normal_value<T>(b, mean, std); });
    });
  }

  // random_.from(Tensor(a!) self, int from, int? to, *, int seed, int offset)
  static void random_kernel(StridedView self, int64_t from, std::optional<int64_t> to, int64_t seed,
                            int64_t offset) {
    const philox::IntegerRange range = philox::integer_range(self.dtype, from, to);
    visit_dtype(self.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      fill<T>(self, seed, offset,
              [&](const philox::Block& b) { return philox::integer_value<T>(b, range); });
    });
  }

  static void register_all(Registrar& r) {
    r.kernel<uniform_kernel>("uniform_", BP_DTYPES_FLOATING);
    r.kernel<normal_kernel>("normal_", BP_DTYPES_FLOATING);
    r.kernel<random_kernel>("random_.from", BP_DTYPES_ALL);
  }
};

}  // namespace bp::sdk
