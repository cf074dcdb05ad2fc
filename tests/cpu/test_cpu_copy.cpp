// The CPU plugin's data-movement kernels (plugins/cpu/data_movement_copy.cpp) against the reference
// backend, exactly: copy_ for all 10 x 10 dtype pairs on random and special values
// (NaN, +-inf, -0, subnormals, out-of-range floats into integers, integer extremes), from
// transposed, offset, stepped and broadcast sources into contiguous and strided
// destinations, 0-d, empty and odd sizes (1, 7, 1023, 70001 with threads); fill_ for every
// dtype on strided views; arange for every dtype it has, including a length that is split
// among threads.
#include "elementwise_checks.hpp"

#include <string>
#include <vector>

namespace bp::test {
namespace {

using namespace ew;

// copy_(dst, src) on both devices: dst is a fresh tensor of `dst_dtype` seen through
// `dst_layout`; returns the whole destination (the view).
void check_copy(const Tensor& src_ref, ST dst_dtype, const Layout& src_layout,
                const Layout& dst_layout, const std::string& what) {
  CAPTURE(what);
  const Device cpu = cpu_device();
  const Tensor init = zeros(src_ref.sizes(), dst_dtype, kRefDevice);
  Tensor dst_ref = dst_layout(init);
  Tensor dst_cpu = dst_layout(on(init, cpu));
  copy_(dst_ref, src_layout(src_ref));
  copy_(dst_cpu, src_layout(on(src_ref, cpu)));
  check_close(dst_cpu, dst_ref, exact());
}

TEST_CASE("cpu copy_ converts between every pair of dtypes exactly, in every layout") {
  const Layout plain = [](const Tensor& t) { return t; };
  for (ST src_dtype : kAllDtypes) {
    for (ST dst_dtype : kAllDtypes) {
      CAPTURE(dtype_name(src_dtype));
      CAPTURE(dtype_name(dst_dtype));
      // Values beyond every integer range too (wide floats into narrow integers).
      const double span = is_floating(src_dtype) ? 400.0 : 4.0;
      const Tensor base = random_tensor({3, 4, 5}, src_dtype, 91, kRefDevice, -span, span);
      for (const auto& [src_name, src_layout] : layouts())
        check_copy(base, dst_dtype, src_layout, plain, "src " + src_name);
      for (const auto& [dst_name, dst_layout] : layouts())
        check_copy(base, dst_dtype, plain, dst_layout, "dst " + dst_name);
      check_copy(specials(src_dtype), dst_dtype, plain, plain, "special values");
      for (int64_t n : kSizes)
        check_copy(random_tensor({n}, src_dtype, 92 + static_cast<uint64_t>(n), kRefDevice),
                   dst_dtype, plain, plain, "size " + std::to_string(n));
      check_copy(random_tensor({}, src_dtype, 93, kRefDevice), dst_dtype, plain, plain, "0-d");
      check_copy(random_tensor({2, 0}, src_dtype, 94, kRefDevice), dst_dtype, plain, plain,
                 "empty");
    }
  }
}

TEST_CASE("cpu copy_ expands a broadcast source and copies in place") {
  const Device cpu = cpu_device();
  for (ST dtype : {ST::Float32, ST::Int16, ST::BFloat16}) {
    CAPTURE(dtype_name(dtype));
    const Tensor row = random_tensor({1, 5}, dtype, 95, kRefDevice);
    Tensor dst_ref = zeros({4, 5}, ST::Float64, kRefDevice);
    Tensor dst_cpu = zeros({4, 5}, ST::Float64, cpu);
    copy_(dst_ref, row.expand({4, 5}));
    copy_(dst_cpu, on(row, cpu).expand({4, 5}));
    check_close(dst_cpu, dst_ref, exact());
    // Same dtype, large, transposed source: the byte-copy path with threads.
    const Tensor big = random_tensor({300, 301}, dtype, 96, kRefDevice);
    Tensor big_ref = empty({301, 300}, dtype, kRefDevice);
    Tensor big_cpu = empty({301, 300}, dtype, cpu);
    copy_(big_ref, big.t());
    copy_(big_cpu, on(big, cpu).t());
    check_close(big_cpu, big_ref, exact());
    // A tensor copied onto itself.
    Tensor self = on(big, cpu);
    copy_(self, self);
    check_close(self, big, exact());
  }
}

// Same-dtype copies where only one side is unit-stride along the innermost dim take the
// blocked transpose path (data_movement_copy.cpp): every element size (1, 2, 4 with the 8x8
// register kernel, 8), ragged edges, batch dims above the transposed pair, the source's unit-stride
// dim not next to the innermost, a transposed destination, a stride-0 source column, and
// sizes split among threads.
TEST_CASE("cpu copy_ transposes in blocks, exactly") {
  const Device cpu = cpu_device();
  auto check = [&](const Tensor& base, const std::vector<int64_t>& perm, const std::string& what) {
    CAPTURE(what);
    const Tensor src_ref = base.permute(perm);
    Tensor dst_ref = empty(src_ref.sizes(), base.dtype(), kRefDevice);
    Tensor dst_cpu = empty(src_ref.sizes(), base.dtype(), cpu);
    copy_(dst_ref, src_ref);
    copy_(dst_cpu, on(base, cpu).permute(perm));
    check_close(dst_cpu, dst_ref, exact());
    // The other way round: a contiguous source into a permuted destination.
    Tensor tdst_ref = empty(base.sizes(), base.dtype(), kRefDevice).permute(perm);
    Tensor tdst_cpu = empty(base.sizes(), base.dtype(), cpu).permute(perm);
    copy_(tdst_ref, contiguous(src_ref));
    copy_(tdst_cpu, on(contiguous(src_ref), cpu));
    check_close(tdst_cpu, tdst_ref, exact());
  };
  uint64_t seed = 970;
  for (ST dtype : {ST::UInt8, ST::Float16, ST::Float32, ST::Int32, ST::Float64}) {
    CAPTURE(dtype_name(dtype));
    for (const std::vector<int64_t>& shape :
         std::vector<std::vector<int64_t>>{{8, 8}, {16, 16}, {37, 53}, {2, 1000}, {1000, 3}}) {
      const Tensor m = random_tensor(shape, dtype, ++seed, kRefDevice);
      check(m, {1, 0}, "2-D " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]));
    }
    const Tensor cube = random_tensor({3, 40, 27}, dtype, ++seed, kRefDevice);
    check(cube, {0, 2, 1}, "batch above the transpose");
    check(cube, {2, 0, 1}, "unit-stride dim outermost");
    check(cube, {1, 2, 0}, "unit-stride dim in the middle");
    const Tensor big = random_tensor({517, 300}, dtype, ++seed, kRefDevice);
    check(big, {1, 0}, "threads");
    const Tensor column = random_tensor({300, 1}, dtype, ++seed, kRefDevice);
    Tensor wide_ref = empty({300, 301}, dtype, kRefDevice);
    Tensor wide_cpu = empty({300, 301}, dtype, cpu);
    copy_(wide_ref, column.expand({300, 301}));
    copy_(wide_cpu, on(column, cpu).expand({300, 301}));
    check_close(wide_cpu, wide_ref, exact());
  }
}

TEST_CASE("cpu copy_ between f32 and f16/bf16 is exact for every bit pattern") {
  std::vector<uint16_t> bits(65536);
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(i);
  const Layout plain = [](const Tensor& t) { return t; };
  for (ST dtype : {ST::Float16, ST::BFloat16}) {
    CAPTURE(dtype_name(dtype));
    const Tensor x = from_data(bits.data(), dtype, {65536}, kRefDevice);
    check_copy(x, ST::Float32, plain, plain, "widening");
    // f32 values between the representable ones: rounding, ties, overflow, NaN.
    const Tensor wide = add(to(x, ST::Float32), full({65536}, 0x1p-12, ST::Float32, kRefDevice));
    check_copy(wide, dtype, plain, plain, "narrowing");
    check_copy(mul(wide, full({65536}, 1.0009765625, ST::Float32, kRefDevice)), dtype, plain, plain,
               "narrowing, scaled");
  }
}

TEST_CASE("cpu fill_ writes every dtype, contiguous and strided") {
  const Device cpu = cpu_device();
  const std::vector<Scalar> values = {Scalar(int64_t{7}), Scalar(-1.5), Scalar(true),
                                      Scalar(int64_t{-1})};
  for (ST dtype : kAllDtypes) {
    for (const Scalar& value : values) {
      CAPTURE(dtype_name(dtype));
      for (const auto& [layout_name, layout] : layouts()) {
        const std::string name = layout_name;  // clang 14 cannot capture a binding
        CAPTURE(name);
        const Tensor init = random_tensor({3, 4, 5}, dtype, 97, kRefDevice);
        Tensor ref = layout(init), got = layout(on(init, cpu));
        bool ref_threw = false;
        try {
          fill_(ref, value);
        } catch (const std::exception&) {
          ref_threw = true;  // e.g. -1.5 into an integer dtype is an overflow error
        }
        if (ref_threw) {
          CHECK_THROWS(fill_(got, value));
          continue;
        }
        fill_(got, value);
        check_close(got, ref, exact());
      }
    }
    Tensor big_ref = empty({70001}, dtype, kRefDevice), big_cpu = empty({70001}, dtype, cpu);
    fill_(big_ref, Scalar(true));
    fill_(big_cpu, Scalar(true));
    check_close(big_cpu, big_ref, exact());
  }
}

TEST_CASE("cpu arange matches the reference for every dtype it has") {
  const Device cpu = cpu_device();
  struct Range {
    Scalar start, end, step;
  };
  const std::vector<Range> ranges = {
      {Scalar(int64_t{0}), Scalar(int64_t{10}), Scalar(int64_t{1})},
      {Scalar(int64_t{5}), Scalar(int64_t{0}), Scalar(-1.5)},
      {Scalar(0.0), Scalar(1.0), Scalar(0.1)},
      {Scalar(int64_t{-3}), Scalar(int64_t{300}), Scalar(int64_t{7})},
      {Scalar(int64_t{0}), Scalar(int64_t{70001}), Scalar(int64_t{1})},
      {Scalar(int64_t{0}), Scalar(int64_t{0}), Scalar(int64_t{1})},
  };
  for (ST dtype : all_but_bool()) {
    for (const Range& r : ranges) {
      CAPTURE(dtype_name(dtype));
      CAPTURE(r.start.to_double());
      CAPTURE(r.end.to_double());
      CAPTURE(r.step.to_double());
      Tensor ref, got;
      try {
        ref = arange(r.start, r.end, r.step, dtype, kRefDevice);
      } catch (const std::exception&) {
        CHECK_THROWS(arange(r.start, r.end, r.step, dtype, cpu));  // e.g. 70001 in int8
        continue;
      }
      got = arange(r.start, r.end, r.step, dtype, cpu);
      check_close(got, ref, exact());
    }
  }
}

}  // namespace
}  // namespace bp::test
