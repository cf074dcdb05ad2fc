// Tests of the random ops on the reference backend (plugins/reference/random.cpp, the SDK's
// sdk/philox.hpp, core/src/ops/random.cpp): Philox 4x32-10 against Random123's published
// known answers; the ln and cos polynomials against libm; the distributions' mean, variance
// and a Kolmogorov-Smirnov bound over 2^17 draws; reproducibility (a position gives the same
// bits, the Generator advances by numel); element i is row-major i whatever self's layout;
// and each op's errors.
#include "reference_checks.hpp"

#include <backplane/random.hpp>
#include <backplane/sdk/philox.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bp::test {
namespace {

using ST = ScalarType;
namespace philox = sdk::philox;

constexpr int64_t kDraws = int64_t{1} << 17;

TEST_CASE("Philox 4x32-10 gives Random123's known answers") {
  CHECK(philox::philox4x32_10({0, 0, 0, 0}, 0, 0) ==
        philox::Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
  CHECK(philox::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffff,
                              0xffffffff) ==
        philox::Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
  CHECK(philox::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, 0xa4093822,
                              0x299f31d0) ==
        philox::Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
  // Element i of (seed, offset) is the block at counter offset + i, wrapping at 2^64.
  CHECK(philox::element_block(5, ~uint64_t{0}, 1) == philox::philox4x32_10({0, 0, 0, 0}, 5, 0));
}

TEST_CASE("normal_'s ln and cos polynomials agree with libm to 1e-15") {
  double worst_log = 0, worst_cos = 0;
  for (uint64_t i = 0; i < 20000; ++i) {
    const philox::Block b = philox::element_block(99, 0, i);
    const uint64_t k = (philox::low64(b) >> 11) + 1;  // [1, 2^53]
    const double want_log = std::log(static_cast<double>(k) * 0x1p-53);
    if (want_log != 0)
      worst_log = std::max(worst_log,
                           std::fabs(philox::log_of_fraction(k) - want_log) / std::fabs(want_log));
    const uint64_t j = philox::high64(b) >> 11;
    worst_cos =
        std::max(worst_cos, std::fabs(philox::cos_of_turn_fraction(j) -
                                      std::cos(2 * M_PI * static_cast<double>(j) * 0x1p-53)));
  }
  CHECK(philox::log_of_fraction(uint64_t{1} << 53) == 0.0);  // u1 = 1
  CHECK(philox::log_of_fraction(1) == doctest::Approx(-53 * std::log(2.0)).epsilon(1e-15));
  CHECK(worst_log < 1e-15);
  CHECK(worst_cos < 1e-15);
}

// The largest distance between the empirical CDF of sorted `v` and `cdf`.
template <typename Cdf>
double ks_statistic(std::vector<double> v, Cdf cdf) {
  std::sort(v.begin(), v.end());
  const auto n = static_cast<double>(v.size());
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double f = cdf(v[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

void check_moments(const std::vector<double>& v, double mean, double variance) {
  double sum = 0, squares = 0;
  for (double x : v) sum += x;
  const double m = sum / static_cast<double>(v.size());
  for (double x : v) squares += (x - m) * (x - m);
  const double var = squares / static_cast<double>(v.size() - 1);
  const double n = static_cast<double>(v.size());
  CHECK(std::fabs(m - mean) < 5 * std::sqrt(variance / n));  // 5 sigma
  CHECK(std::fabs(var - variance) < 5 * variance * std::sqrt(2 / n));
}

// Kolmogorov's 0.1% critical value: sqrt(n) D stays below 1.95 for a correct generator.
constexpr double kKsCritical = 1.95;

TEST_CASE("uniform_ draws U[from, to): moments and a Kolmogorov-Smirnov bound") {
  for (ST dt : {ST::Float32, ST::Float64}) {
    CAPTURE(dtype_name(dt));
    Tensor t = empty({kDraws}, dt, kRef);
    uniform_(t, -2.0, 6.0, RandomPosition{42, 0});
    const std::vector<double> v = to_vector<double>(t);
    CHECK(*std::min_element(v.begin(), v.end()) >= -2.0);
    CHECK(*std::max_element(v.begin(), v.end()) < 6.0);
    check_moments(v, 2.0, 64.0 / 12);
    const double d = ks_statistic(v, [](double x) { return (x + 2) / 8; });
    CHECK(d * std::sqrt(static_cast<double>(kDraws)) < kKsCritical);
  }
}

TEST_CASE("normal_ draws N(mean, std^2): moments and a Kolmogorov-Smirnov bound") {
  for (ST dt : {ST::Float32, ST::Float64}) {
    CAPTURE(dtype_name(dt));
    Tensor t = empty({kDraws}, dt, kRef);
    normal_(t, 1.5, 2.0, RandomPosition{7, 100});
    const std::vector<double> v = to_vector<double>(t);
    check_moments(v, 1.5, 4.0);
    const double d =
        ks_statistic(v, [](double x) { return 0.5 * std::erfc(-(x - 1.5) / (2.0 * M_SQRT2)); });
    CHECK(d * std::sqrt(static_cast<double>(kDraws)) < kKsCritical);
  }
}

TEST_CASE("random_ covers [from, to) evenly and bernoulli_ hits p") {
  Tensor ints = empty({kDraws}, ST::Int64, kRef);
  random_(ints, -3, 7, RandomPosition{3, 0});
  std::vector<double> counts(10, 0.0);
  for (int64_t x : to_vector<int64_t>(ints)) {
    REQUIRE(x >= -3);
    REQUIRE(x < 7);
    counts[static_cast<size_t>(x + 3)] += 1;
  }
  double chi2 = 0;
  const double expected = static_cast<double>(kDraws) / 10;
  for (double c : counts) chi2 += (c - expected) * (c - expected) / expected;
  CHECK(chi2 < 27.9);  // chi-square, 9 degrees of freedom, 0.1%

  Tensor coins = empty({kDraws}, ST::Float32, kRef);
  bernoulli_(coins, 0.3, RandomPosition{4, 0});
  const std::vector<double> v = to_vector<double>(coins);
  CHECK(std::all_of(v.begin(), v.end(), [](double x) { return x == 0.0 || x == 1.0; }));
  check_moments(v, 0.3, 0.21);
}

TEST_CASE("a position gives the same bits; the Generator advances by numel") {
  Tensor a = empty({5, 7}, ST::Float32, kRef), b = empty({5, 7}, ST::Float32, kRef);
  uniform_(a, 0.0, 1.0, RandomPosition{1, 10});
  uniform_(b, 0.0, 1.0, RandomPosition{1, 10});
  CHECK(to_vector<float>(a) == to_vector<float>(b));
  // Offset 10 + 7 starts where row 1 of the first call did.
  Tensor shifted = empty({7}, ST::Float32, kRef);
  uniform_(shifted, 0.0, 1.0, RandomPosition{1, 17});
  CHECK(to_vector<float>(shifted) == to_vector<float>(a.select(0, 1)));
  uniform_(b, 0.0, 1.0, RandomPosition{2, 10});
  CHECK(to_vector<float>(a) != to_vector<float>(b));

  Generator gen(1);
  gen.set_offset(10);
  Tensor c = empty({5, 7}, ST::Float32, kRef);
  uniform_(c, 0.0, 1.0, gen);
  CHECK(to_vector<float>(c) == to_vector<float>(a));
  CHECK(gen.offset() == 45);
  gen.manual_seed(1);
  CHECK(gen.offset() == 0);
  const Tensor r1 = rand({3}, ST::Float32, kRef, gen), r2 = rand({3}, ST::Float32, kRef, gen);
  CHECK(to_vector<float>(r1) != to_vector<float>(r2));
}

TEST_CASE("element i is row-major i whatever self's strides") {
  Tensor contiguous = empty({6, 9}, ST::Float64, kRef);
  normal_(contiguous, 0.0, 1.0, RandomPosition{8, 0});
  Tensor storage = empty({9, 6}, ST::Float64, kRef);
  Tensor transposed = storage.transpose(0, 1);  // [6, 9], column-major
  normal_(transposed, 0.0, 1.0, RandomPosition{8, 0});
  CHECK(to_vector<double>(transposed) == to_vector<double>(contiguous));
}

TEST_CASE("random_ draws: to None, 64-bit ranges, every dtype") {
  Tensor bytes = empty({4096}, ST::UInt8, kRef);
  random_(bytes, 250, std::nullopt, RandomPosition{9, 0});
  const std::vector<int64_t> b = to_vector<int64_t>(bytes);
  CHECK(*std::min_element(b.begin(), b.end()) == 250);
  CHECK(*std::max_element(b.begin(), b.end()) == 255);
  Tensor wide = empty({4096}, ST::Int64, kRef);
  random_(wide, 0, int64_t{1} << 40, RandomPosition{9, 0});
  const std::vector<int64_t> w = to_vector<int64_t>(wide);
  CHECK(*std::max_element(w.begin(), w.end()) > (int64_t{1} << 39));  // above 32 bits
  Tensor full = empty({4096}, ST::Int64, kRef);
  random_(full, INT64_MIN, std::nullopt, RandomPosition{9, 0});
  const std::vector<int64_t> f = to_vector<int64_t>(full);
  CHECK(*std::min_element(f.begin(), f.end()) < 0);
  // random_.to and random_ are random_.from(0, to) and random_.from(0, None).
  Tensor to_form = empty({50}, ST::Int32, kRef), from_form = empty({50}, ST::Int32, kRef);
  random_(to_form, 7, RandomPosition{9, 4});
  random_(from_form, 0, 7, RandomPosition{9, 4});
  CHECK(to_vector<int64_t>(to_form) == to_vector<int64_t>(from_form));
  random_(to_form, RandomPosition{9, 4});
  random_(from_form, 0, std::nullopt, RandomPosition{9, 4});
  CHECK(to_vector<int64_t>(to_form) == to_vector<int64_t>(from_form));
  Tensor flags = empty({64}, ST::Bool, kRef);
  random_(flags, 0, std::nullopt, RandomPosition{9, 0});
  const std::vector<int64_t> fl = to_vector<int64_t>(flags);
  CHECK(std::count(fl.begin(), fl.end(), 1) > 10);
  CHECK(std::count(fl.begin(), fl.end(), 0) > 10);
}

TEST_CASE("native_dropout: mask of probability 1 - p, kept values scaled by 1 / (1 - p)") {
  const Tensor x = make<float>(std::vector<double>(1000, 3.0), {1000});
  const auto [out, mask] = native_dropout(x, 0.25, true, RandomPosition{5, 0});
  CHECK(dtype_str(mask) == "bool");
  const std::vector<double> o = to_vector<double>(out);
  const std::vector<int64_t> m = to_vector<int64_t>(mask);
  for (size_t i = 0; i < o.size(); ++i) CHECK(o[i] == (m[i] ? 4.0 : 0.0));
  const auto kept = std::count(m.begin(), m.end(), 1);
  CHECK(kept > 700);
  CHECK(kept < 800);
  check_values(
      native_dropout_backward(make<float>({1, 1, 1}, {3}), make<bool>({1, 0, 1}, {3}), 4.0),
      ST::Float32, {3}, {4, 0, 4});
  const auto [copy, all] = native_dropout(x, 0.25, false, RandomPosition{5, 0});
  CHECK(to_vector<double>(copy) == to_vector<double>(x));
  CHECK(to_vector<int64_t>(all) == std::vector<int64_t>(1000, 1));
  const auto [zeros_out, none] = native_dropout(x, 1.0, true, RandomPosition{5, 0});
  CHECK(to_vector<double>(zeros_out) == std::vector<double>(1000, 0.0));
}

TEST_CASE("random ops refuse bad arguments, naming them") {
  Tensor f = empty({3}, ST::Float32, kRef);
  Tensor i = empty({3}, ST::Int32, kRef);
  const RandomPosition at{1, 0};
  check_error([&] { uniform_(f, 2.0, 1.0, at); }, ErrorCode::InvalidArgument, "from = 2 > to = 1");
  check_error([&] { uniform_(f, 0.0, 1e39, at); }, ErrorCode::InvalidArgument, "'to'");
  check_error([&] { uniform_(i, 0.0, 1.0, at); }, ErrorCode::Type, "floating");
  check_error([&] { normal_(f, 0.0, -1.0, at); }, ErrorCode::InvalidArgument, "'std'");
  check_error([&] { random_(i, 5, 5, at); }, ErrorCode::InvalidArgument, "less than");
  Tensor u8 = empty({3}, ST::UInt8, kRef);
  check_error([&] { random_(u8, 0, 300, at); }, ErrorCode::InvalidArgument, "to - 1 = 299");
  check_error([&] { random_(u8, INT64_MIN, std::nullopt, at); }, ErrorCode::Type, "64 bits");
  check_error([&] { bernoulli_(f, 1.5, at); }, ErrorCode::InvalidArgument, "[0, 1]");
  check_error([&] { native_dropout(f, -0.5, true, at); }, ErrorCode::InvalidArgument, "[0, 1]");
  Tensor expanded = empty({1}, ST::Float32, kRef).expand({4});
  check_error([&] { uniform_(expanded, 0.0, 1.0, at); }, ErrorCode::InvalidArgument, "stride 0");
}

TEST_CASE("hardtanh clamps in self's dtype; hardtanh_backward passes strictly inside") {
  // PyTorch 1.13: F.hardtanh([-2, -1, 0.5, 1, 2, nan]) and hardtanh_backward(ones, x, -1, 1).
  const Tensor x = make<float>({-2, -1, 0.5, 1, 2, kNaN}, {6});
  check_values(hardtanh(x), ST::Float32, {6}, {-1, -1, 0.5, 1, 1, kNaN});
  check_values(hardtanh_backward(ones({6}, ST::Float32, kRef), x, -1, 1), ST::Float32, {6},
               {0, 0, 1, 0, 0, 1});
  // hardtanh(int32 [-3, 0, 3], -1, 2) = [-1, 0, 2]; ReLU6 of an i64 tensor stays i64.
  check_values(hardtanh(make<int32_t>({-3, 0, 3}, {3}), -1, 2), ST::Int32, {3}, {-1, 0, 2});
  check_values(hardtanh(make<int64_t>({-3, 4, 9}, {3}), 0, 6), ST::Int64, {3}, {0, 4, 6});
  check_error([&] { hardtanh(make<bool>({1}, {1})); }, ErrorCode::Type, "bool");
  check_error([&] { hardtanh(make<uint8_t>({1}, {1})); }, ErrorCode::InvalidArgument,
              "limits >= 0");
}

}  // namespace
}  // namespace bp::test
