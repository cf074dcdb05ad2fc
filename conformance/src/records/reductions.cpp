// Conformance records of the reductions: sum.dim_IntList, mean.dim, prod.dim_int, amax,
// amin, argmax, argmin, all.dim and any.dim. Samples cover dim lists (negative, unsorted,
// None and [] for a full reduction), keepdim both ways, 0-d inputs, reductions over 0-sized
// dims (sum 0, prod 1, mean NaN, all true, any false; an error for the selecting ones),
// every layout, NaN propagation, ties (first index) and the `dtype=` argument.
#include "records_internal.hpp"

#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using Make = MakeArgs;
using V = Values;
using L = Layout;
using T = ScalarType;

// One reduction input: its sizes, values and layout, and the `dim` argument.
struct In {
  Shape sizes;
  Values values = V::Normal;
  Layout layout = L::Contiguous;
};

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

// The number of elements folded into each output of reducing `sizes` over `dims` (None or
// [] = every dim). At least 1, as tolerance_for wants.
int64_t reduced_count(const Shape& sizes, const std::optional<Shape>& dims) {
  if (!dims || dims->empty()) return std::max<int64_t>(numel(sizes), 1);
  int64_t n = 1;
  for (int64_t d : *dims) {
    const auto nd = static_cast<int64_t>(sizes.size());
    n *= sizes.empty() ? 1 : sizes[static_cast<size_t>(d < 0 ? d + nd : d)];
  }
  return std::max<int64_t>(n, 1);
}

std::string dt(ScalarType t) {
  return std::string(dtype_name(t));
}

// A sample reducing `in` (of dtype t) with the trailing arguments `rest`.
Sample sample(std::string name, bool quick, ScalarType t, In in, Args rest, int64_t k = 1) {
  Make make = [t, in, rest](InputMaker& m) -> Args {
    Args args{m.tensor(in.sizes, t, in.values, in.layout)};
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
  };
  return Sample{std::move(name), quick, std::move(make), std::nullopt, k};
}

Sample error_sample(std::string name, std::string expect, ScalarType t, In in, Args rest) {
  Sample s = sample(std::move(name), true, t, std::move(in), std::move(rest));
  s.expect_error = std::move(expect);
  return s;
}

// Rows of special values whose sum (or product) does not depend on the order in which a
// backend folds them: NaN, +-inf and inf - inf propagate, an overflow stays an overflow,
// subnormals and -0 survive. (Random rows of Values::Special could hold max and -max with
// small values between them, where the order decides the result.) Integers fold exactly
// (wrapping) in any order, so they take Values::Special as they are.
Make special_rows(ScalarType t, bool prod, Args rest) {
  return [t, prod, rest](InputMaker& m) -> Args {
    const std::vector<double> sp = special_values(t);  // inputs.hpp gives the order
    const double nan = sp[0], inf = sp[1], sub = sp[5], max = sp[8];
    const std::vector<double> values =
        prod ? std::vector<double>{nan,  1, 2, inf, 0.5, -1, inf, 0, 1,
                                   -0.0, 1, 2, sub, 0.5, 1,  max, 1, -1}
             : std::vector<double>{nan,  1,    2,    inf, 1,   -1, inf, -inf, 1,
                                   -0.0, -0.0, -0.0, sub, sub, 0,  max, max,  1};
    Args args{m.from_doubles({6, 3}, t, values)};
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
  };
}

// ---- sum, mean (dim lists, optional dtype) -------------------------------------------------

// The samples of a reduction over an `int[]? dim` list with the given `dtype=` argument.
// Floats get Normal values (their sums stay well-conditioned) and fixed special rows;
// integers also get their extremes, whose sums wrap (i64) or widen (narrower ints).
std::vector<Sample> dim_list_samples(ScalarType t, std::optional<ScalarType> dtype) {
  const IValue d(dtype);
  const auto s = [&](std::string name, bool quick, In in, std::optional<Shape> dims, bool keep) {
    const int64_t k = reduced_count(in.sizes, dims);
    return sample(std::move(name), quick, t, std::move(in), {IValue(dims), keep, d}, k);
  };
  std::vector<Sample> out = {
      s("full_none_7x13", true, {{7, 13}}, std::nullopt, false),
      s("full_empty_list_7x13", true, {{7, 13}}, Shape{}, false),
      s("dim1_7x13", true, {{7, 13}}, Shape{1}, false),
      s("dim0_keepdim_7x13", true, {{7, 13}}, Shape{0}, true),
      s("negative_dims_3x4x5", true, {{3, 4, 5}}, Shape{-1, -3}, false),
      s("scalar_0d", true, {{}}, std::nullopt, false),
      s("unsorted_dims_keepdim_2x3x4x5", false, {{2, 3, 4, 5}}, Shape{3, 1}, true),
      s("scalar_0d_dim0_keepdim", false, {{}}, Shape{0}, true),
      s("transposed_17x9_dim0", false, {{17, 9}, V::Normal, L::Transposed}, Shape{0}, false),
      s("strided_5x8_dim1", false, {{5, 8}, V::Normal, L::Strided}, Shape{1}, false),
      s("permuted_3x4x5_dims_0_2", false, {{3, 4, 5}, V::Normal, L::Permuted}, Shape{0, 2}, true),
      s("offset_33", false, {{33}, V::Normal, L::Offset}, std::nullopt, false),
      s("odd_1031", false, {{1031}}, Shape{0}, false),
      s("odd_127x33_dim0", false, {{127, 33}}, Shape{0}, false),
      s("special_values_full", false, {{16}, V::Special}, std::nullopt, false),
      s("large_1024x1024_dim1", false, {{1024, 1024}}, Shape{1}, false),
      s("large_1024x1024_dim0_transposed", false, {{1024, 1024}, V::Normal, L::Transposed},
        Shape{0}, false),
      s("large_full_1048576", false, {{1048576}}, std::nullopt, false),
      error_sample("error_dim_out_of_range", "must be in", t, {{7, 13}}, {Shape{2}, false, d}),
      error_sample("error_duplicate_dim", "more than once", t, {{7, 13}}, {Shape{1, -1}, false, d}),
      // sum over a 0-sized dim is 0 (mean: NaN); keeping the 0-sized dim gives an empty result.
      s("empty_0x5_dim0", true, {{0, 5}}, Shape{0}, false),
      s("empty_0x5_dim1", false, {{0, 5}}, Shape{1}, true),
      s("empty_0x5_full", false, {{0, 5}}, std::nullopt, false),
  };
  if (is_floating(t)) {
    out.push_back(
        Sample{"special_rows_6x3", false, special_rows(t, false, {Shape{1}, false, d}), {}, 3});
  } else {
    out.push_back(s("special_values_4x4", false, {{4, 4}, V::Special}, Shape{1}, false));
    out.push_back(s("wide_values_7x13", false, {{7, 13}, V::Wide}, Shape{1}, false));
  }
  return out;
}

// The dtype a `dtype=` sample converts to: a wider float for floats, the input's own dtype
// for integers (narrow accumulation wraps, as in PyTorch), i64 for bool.
ScalarType dtype_arg_for(ScalarType t) {
  if (t == T::Float64) return T::Float32;
  if (is_floating(t)) return T::Float64;
  return t == T::Bool ? T::Int64 : t;
}

std::vector<Sample> sum_samples(ScalarType t) {
  std::vector<Sample> out = dim_list_samples(t, std::nullopt);
  // Integers: wide values make a narrow dtype= accumulation wrap. Floats: positive values,
  // since converting first and summing in a narrower dtype (as PyTorch does) loses to
  // cancellation what the reference's double accumulation keeps.
  const ScalarType d = dtype_arg_for(t);
  const Values v = is_floating(t) ? V::Positive : V::Wide;
  out.push_back(sample("dtype_" + dt(d), true, t, {{7, 13}, v}, {Shape{1}, false, d}, 13));
  out.push_back(
      sample("dtype_f32_full", false, t, {{127, 33}}, {std::nullopt, false, T::Float32}, 127 * 33));
  return out;
}

std::vector<Sample> mean_samples(ScalarType t) {
  if (is_floating(t)) {
    std::vector<Sample> out = dim_list_samples(t, std::nullopt);
    const ScalarType d = dtype_arg_for(t);
    out.push_back(sample("dtype_" + dt(d), true, t, {{7, 13}}, {Shape{1}, false, d}, 13));
    return out;
  }
  // Integer and bool inputs need a floating dtype=. Their special and wide values (the
  // integer extremes) are left out: converted to f32 they cancel (INT_MIN + INT_MAX + 1),
  // and the result then depends on the order of summation, not on the backend being right.
  std::vector<Sample> out;
  for (Sample& s : dim_list_samples(t, T::Float32)) {
    if (s.name.rfind("special_values", 0) != 0 && s.name.rfind("wide_values", 0) != 0)
      out.push_back(std::move(s));
  }
  out.push_back(sample("dtype_f64", true, t, {{7, 13}}, {Shape{0}, true, T::Float64}, 7));
  out.push_back(error_sample("error_no_float_dtype", "needs a floating dtype", t, {{7, 13}},
                             {Shape{1}, false, IValue()}));
  out.push_back(error_sample("error_integer_dtype_arg", "needs a floating result dtype", t,
                             {{7, 13}}, {Shape{1}, false, T::Int64}));
  return out;
}

// ---- prod (one int dim, optional dtype) ----------------------------------------------------

std::vector<Sample> prod_samples(ScalarType t) {
  const IValue none;
  // Long products of floats use values in (-1, 1) so that they underflow rather than
  // overflow near the boundary of the dtype (where a rounding decides inf or finite).
  const Values long_values = is_floating(t) ? V::Unit : V::Normal;
  const auto s = [&](std::string name, bool quick, In in, int64_t dim, bool keep, IValue dtype,
                     int64_t k) {
    return sample(std::move(name), quick, t, std::move(in), {dim, keep, std::move(dtype)}, k);
  };
  const ScalarType d = dtype_arg_for(t);
  return {
      s("dim1_7x13", true, {{7, 13}, long_values}, 1, false, none, 13),
      s("dim0_keepdim_7x5", true, {{7, 5}}, 0, true, none, 7),
      s("negative_dim_3x4x5", true, {{3, 4, 5}}, -2, false, none, 4),
      s("scalar_0d", true, {{}}, 0, false, none, 1),
      s("empty_0x5_dim0", true, {{0, 5}}, 0, false, none, 1),
      s("dtype_" + dt(d), true, {{7, 5}, V::Wide}, 1, false, d, 5),
      s("empty_0x5_dim1_keepdim", false, {{0, 5}}, 1, true, none, 5),
      s("transposed_17x9_dim0", false, {{17, 9}, long_values, L::Transposed}, 0, false, none, 17),
      s("strided_5x8_dim1", false, {{5, 8}, V::Normal, L::Strided}, 1, false, none, 8),
      s("permuted_3x4x5_dim0", false, {{3, 4, 5}, V::Normal, L::Permuted}, 0, true, none, 3),
      s("offset_33", false, {{33}, long_values, L::Offset}, 0, false, none, 33),
      is_floating(t) ? Sample{"special_rows_6x3",
                              false,
                              special_rows(t, true, {int64_t{1}, false, none}),
                              {},
                              3}
                     : s("special_values_4x4", false, {{4, 4}, V::Special}, 1, false, none, 4),
      s("special_values_16", false, {{16}, V::Special}, 0, false, none, 16),
      s("wide_values_7x5", false, {{7, 5}, V::Wide}, 1, false, none, 5),
      s("odd_1031", false, {{1031}, long_values}, 0, false, none, 1031),
      s("large_1024x1024_dim1", false, {{1024, 1024}, long_values}, 1, false, none, 1024),
      error_sample("error_dim_out_of_range", "must be in", t, {{7, 13}}, {int64_t{2}, false, none}),
  };
}

// ---- amax, amin (dim lists; NaN propagates; empty reduction is an error) ---------------------

std::vector<Sample> amax_samples(ScalarType t) {
  const auto s = [&](std::string name, bool quick, In in, Shape dims, bool keep) {
    return sample(std::move(name), quick, t, std::move(in), {dims, keep});
  };
  return {
      s("full_empty_list_7x13", true, {{7, 13}}, {}, false),
      s("dim1_7x13", true, {{7, 13}}, {1}, false),
      s("dim0_keepdim_7x13", true, {{7, 13}}, {0}, true),
      s("negative_dims_3x4x5", true, {{3, 4, 5}}, {-1, 0}, false),
      s("scalar_0d", true, {{}}, {}, false),
      s("special_values_4x4", true, {{4, 4}, V::Special}, {1}, false),
      s("ties_7x13", false, {{7, 13}, V::Ties}, {1}, false),
      s("scalar_0d_dim0_keepdim", false, {{}}, {0}, true),
      s("special_values_full", false, {{16}, V::Special}, {}, false),
      s("wide_values_7x13", false, {{7, 13}, V::Wide}, {0}, false),
      s("transposed_17x9_dim0", false, {{17, 9}, V::Normal, L::Transposed}, {0}, false),
      s("strided_5x8_dim1", false, {{5, 8}, V::Normal, L::Strided}, {1}, true),
      s("permuted_3x4x5_dims_1_2", false, {{3, 4, 5}, V::Normal, L::Permuted}, {1, 2}, false),
      s("offset_33", false, {{33}, V::Normal, L::Offset}, {}, false),
      s("odd_1031", false, {{1031}}, {0}, false),
      // Reducing a non-empty dim of a tensor with an empty other dim is fine.
      s("empty_0x5_dim1", true, {{0, 5}}, {1}, false),
      s("large_1024x1024_dim1", false, {{1024, 1024}}, {1}, false),
      s("large_full_1048576", false, {{1048576}, V::Wide}, {}, false),
      error_sample("error_empty_dim", "size 0", t, {{0, 5}}, {Shape{0}, false}),
      error_sample("error_empty_full", "size 0", t, {{0, 5}}, {Shape{}, false}),
      error_sample("error_dim_out_of_range", "must be in", t, {{7, 13}}, {Shape{-3}, false}),
  };
}

// ---- argmax, argmin (int? dim; first index on ties; NaN wins) ------------------------------

std::vector<Sample> argmax_samples(ScalarType t) {
  const IValue none;
  const auto s = [&](std::string name, bool quick, In in, IValue dim, bool keep) {
    return sample(std::move(name), quick, t, std::move(in), {std::move(dim), keep});
  };
  return {
      s("flat_none_7x13", true, {{7, 13}}, none, false),
      s("dim1_7x13", true, {{7, 13}}, int64_t{1}, false),
      s("dim0_keepdim_7x13", true, {{7, 13}}, int64_t{0}, true),
      s("ties_dim1_7x13", true, {{7, 13}, V::Ties}, int64_t{1}, false),
      s("special_values_4x4", true, {{4, 4}, V::Special}, int64_t{1}, false),
      s("scalar_0d", true, {{}}, none, false),
      s("ties_flat_none_keepdim", false, {{5, 6}, V::Ties}, none, true),
      s("scalar_0d_dim0", false, {{}}, int64_t{0}, false),
      s("negative_dim_3x4x5", false, {{3, 4, 5}}, int64_t{-2}, false),
      s("special_values_flat", false, {{16}, V::Special}, none, false),
      s("wide_values_7x13", false, {{7, 13}, V::Wide}, int64_t{0}, false),
      s("transposed_17x9_dim0", false, {{17, 9}, V::Ties, L::Transposed}, int64_t{0}, false),
      s("transposed_flat_none", false, {{17, 9}, V::Ties, L::Transposed}, none, false),
      s("strided_5x8_dim1", false, {{5, 8}, V::Ties, L::Strided}, int64_t{1}, true),
      s("permuted_3x4x5_dim2", false, {{3, 4, 5}, V::Normal, L::Permuted}, int64_t{2}, false),
      s("offset_33", false, {{33}, V::Ties, L::Offset}, int64_t{0}, false),
      s("odd_1031", false, {{1031}}, int64_t{0}, false),
      s("empty_0x5_dim1", true, {{0, 5}}, int64_t{1}, false),
      s("large_1024x1024_dim1", false, {{1024, 1024}, V::Ties}, int64_t{1}, false),
      s("large_flat_1048576", false, {{1048576}, V::Wide}, none, false),
      error_sample("error_empty_dim", "size 0", t, {{0, 5}}, {int64_t{0}, false}),
      error_sample("error_empty_flat", "is empty", t, {{0, 5}}, {none, false}),
      error_sample("error_dim_out_of_range", "must be in", t, {{7, 13}}, {int64_t{2}, false}),
  };
}

// ---- all.dim, any.dim (one int dim; nonzero and NaN are true) --------------------------------

std::vector<Sample> all_any_samples(ScalarType t) {
  const auto s = [&](std::string name, bool quick, In in, int64_t dim, bool keep) {
    return sample(std::move(name), quick, t, std::move(in), {dim, keep});
  };
  // Ties give many zeros (false) next to nonzeros; Positive has no zero at all (all true).
  std::vector<Sample> out = {
      s("dim1_7x13", true, {{7, 13}, V::Ties}, 1, false),
      s("dim0_keepdim_7x13", true, {{7, 13}, V::Ties}, 0, true),
      s("all_nonzero_7x13", true, {{7, 13}, V::Positive}, 1, false),
      s("scalar_0d", true, {{}, V::Ties}, 0, false),
      s("special_values_4x4", true, {{4, 4}, V::Special}, 1, false),
      s("empty_0x5_dim0", true, {{0, 5}}, 0, false),
      s("negative_dim_3x4x5", false, {{3, 4, 5}, V::Ties}, -1, false),
      s("empty_0x5_dim1_keepdim", false, {{0, 5}}, 1, true),
      s("transposed_17x9_dim0", false, {{17, 9}, V::Ties, L::Transposed}, 0, false),
      s("strided_5x8_dim1", false, {{5, 8}, V::Ties, L::Strided}, 1, true),
      s("permuted_3x4x5_dim0", false, {{3, 4, 5}, V::Ties, L::Permuted}, 0, false),
      s("offset_33", false, {{33}, V::Positive, L::Offset}, 0, false),
      s("special_values_16", false, {{16}, V::Special}, 0, false),
      s("odd_1031", false, {{1031}, V::Positive}, 0, false),
      s("large_1024x1024_dim1", false, {{1024, 1024}, V::Ties}, 1, false),
      s("large_1048576_nonzero", false, {{1048576}, V::Positive}, 0, false),
      error_sample("error_dim_out_of_range", "must be in", t, {{7, 13}}, {int64_t{-3}, false}),
  };
  return out;
}

}  // namespace

void add_reduction_records(std::vector<OpRecord>& out) {
  const std::vector<ScalarType> all = all_dtypes();
  out.push_back({"sum.dim_IntList", all, sum_samples});
  // Every dtype: integer and bool inputs are averaged with a floating dtype= argument.
  out.push_back({"mean.dim", all, mean_samples});
  out.push_back({"prod.dim_int", all, prod_samples});
  out.push_back({"amax", all, amax_samples});
  out.push_back({"amin", all, amax_samples});
  // PyTorch has no argmax/argmin for bool (and neither has the reference).
  out.push_back({"argmax", numeric_dtypes(), argmax_samples});
  out.push_back({"argmin", numeric_dtypes(), argmax_samples});
  out.push_back({"all.dim", all, all_any_samples});
  out.push_back({"any.dim", all, all_any_samples});
}

}  // namespace bp::conformance::detail
