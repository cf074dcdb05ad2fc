// Conformance records of the v1 overloads that core decomposes into another overload of the
// same op: pow.Scalar (a number to tensor powers), clamp.Tensor (tensor bounds),
// where.Scalar / where.ScalarSelf / where.ScalarOther (number operands), fill_.Tensor (a 0-d
// value) and prod / all / any of every element. A backend may override each with a kernel
// of its own; these samples check the result either way. The case dtype is the dtype of the
// tensor operand (pow.Scalar: the exponent; where.Scalar, which has none: the result).
#include "records_internal.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using L = Layout;
using V = Values;
using T = ScalarType;

// ---- pow.Scalar --------------------------------------------------------------------------

std::vector<Sample> pow_scalar_samples(ScalarType t) {
  // Integer exponents in [-1, 1] keep integer powers defined and exact; 2 ** -1 is 0.
  const Values ev = is_floating(t) ? V::Normal : V::Unit;
  const Scalar base = is_floating(t) ? Scalar(2.5) : Scalar(int64_t{2});
  const auto pow_of = [t](Scalar b, Shape sizes, Values v, Layout l = L::Contiguous) {
    return [=](InputMaker& m) -> Args { return {b, m.tensor(sizes, t, v, l)}; };
  };
  std::vector<Sample> out = {
      quick_sample("contiguous_7x13", pow_of(base, {7, 13}, ev)),
      quick_sample("scalar_0d", pow_of(base, {}, ev)),
      quick_sample("empty_0x5", pow_of(base, {0, 5}, ev)),
      quick_sample("transposed_17x9", pow_of(base, {17, 9}, ev, L::Transposed)),
      // A float base makes an integral exponent's result the default float dtype.
      quick_sample("float_base_promotes", pow_of(Scalar(1.5), {5, 6}, ev)),
      full_sample("odd_1031", pow_of(base, {1031}, ev)),
      full_sample("permuted_3x4x5", pow_of(base, {3, 4, 5}, ev, L::Permuted)),
  };
  if (is_floating(t)) {
    out.push_back(quick_sample("special_exponents", pow_of(base, {4, 8}, V::Special)));
    // A negative base to non-integer powers is NaN; to integer ones it alternates sign.
    out.push_back(quick_sample("negative_base", pow_of(Scalar(-1.5), {7, 5}, V::Ties)));
    out.push_back(full_sample("nan_base", pow_of(Scalar(std::nan("")), {13}, V::Ties)));
  }
  if (t == T::Bool) {
    out.push_back(
        error_sample("error_bool_base_and_exponent", "bool", pow_of(Scalar(true), {5}, V::Normal)));
  }
  return out;
}

// ---- clamp.Tensor ------------------------------------------------------------------------

std::vector<Sample> clamp_tensor_samples(ScalarType t) {
  // Bounds drawn like the values: some elements fall below min, some above max.
  const auto clamp_of = [t](Shape self, std::optional<Shape> lo, std::optional<Shape> hi,
                            Values v = V::Normal, Layout l = L::Contiguous,
                            ScalarType bound_dtype = T::Undefined) {
    const ScalarType bt = bound_dtype == T::Undefined ? t : bound_dtype;
    return [=](InputMaker& m) -> Args {
      Tensor s = m.tensor(self, t, v, l);
      IValue a = lo ? IValue(m.tensor(*lo, bt, v)) : IValue();
      IValue b = hi ? IValue(m.tensor(*hi, bt, v)) : IValue();
      return {s, a, b};
    };
  };
  const ScalarType other = is_floating(t) ? (t == T::Float64 ? T::Float32 : T::Float64) : T::Int64;
  return {
      quick_sample("both_7x13", clamp_of({7, 13}, Shape{7, 13}, Shape{7, 13})),
      quick_sample("min_only_broadcast_13", clamp_of({7, 13}, Shape{13}, std::nullopt)),
      quick_sample("max_only_0d", clamp_of({7, 13}, std::nullopt, Shape{})),
      quick_sample("scalar_0d", clamp_of({}, Shape{}, Shape{})),
      quick_sample("empty_0x5", clamp_of({0, 5}, Shape{5}, Shape{1})),
      quick_sample("transposed_17x9",
                   clamp_of({17, 9}, Shape{17, 1}, Shape{9}, V::Normal, L::Transposed)),
      quick_sample("special_values", clamp_of({4, 8}, Shape{4, 8}, Shape{8}, V::Special)),
      // Bounds of another dtype promote with self (result_type).
      quick_sample("bounds_" + std::string(dtype_name(other)),
                   clamp_of({5, 6}, Shape{6}, Shape{5, 1}, V::Normal, L::Contiguous, other)),
      full_sample("odd_1031", clamp_of({1031}, Shape{1031}, Shape{})),
      full_sample("permuted_3x4x5",
                  clamp_of({3, 4, 5}, Shape{5}, Shape{4, 5}, V::Normal, L::Permuted)),
      error_sample("error_no_bounds", "at least one of",
                   clamp_of({3, 4}, std::nullopt, std::nullopt)),
      error_sample("error_broadcast", "broadcast", clamp_of({5, 3}, Shape{4, 3}, std::nullopt)),
      // Bool is refused, as by clamp (the record's dtypes leave it out).
      error_sample("error_bool", "bool",
                   [](InputMaker& m) -> Args {
                     return {m.tensor({5}, T::Bool), m.tensor({5}, T::Bool), IValue()};
                   }),
  };
}

// ---- where.Scalar / where.ScalarSelf / where.ScalarOther ---------------------------------

// where.Scalar: both operands are numbers; the case dtype names their kind (i64: ints, f32:
// floats, whose wrapped numbers give the default float dtype, bool: bools).
std::vector<Sample> where_scalar_samples(ScalarType t) {
  const Scalar a = t == T::Bool ? Scalar(true) : t == T::Int64 ? Scalar(int64_t{7}) : Scalar(-0.0);
  const Scalar b = t == T::Bool ? Scalar(false) : t == T::Int64 ? Scalar(int64_t{-2}) : Scalar(0.0);
  const auto where_of = [](Shape cond, Scalar x, Scalar y, Layout l = L::Contiguous) {
    return [=](InputMaker& m) -> Args { return {m.mask(cond, 0.5, l), x, y}; };
  };
  std::vector<Sample> out = {
      quick_sample("contiguous_7x13", where_of({7, 13}, a, b)),
      quick_sample("scalar_0d", where_of({}, a, b)),
      quick_sample("empty_0x5", where_of({0, 5}, a, b)),
      quick_sample("transposed_17x9", where_of({17, 9}, a, b, L::Transposed)),
      full_sample("odd_1031", where_of({1031}, a, b)),
  };
  if (t == T::Float32) {
    out.push_back(quick_sample(
        "nan_and_inf",
        where_of({13}, Scalar(std::nan("")), Scalar(-std::numeric_limits<double>::infinity()))));
    out.push_back(quick_sample("int_and_float", where_of({13}, Scalar(int64_t{3}), Scalar(0.5))));
  }
  return out;
}

// where.ScalarSelf (number_first) and where.ScalarOther: one tensor of dtype `t`, one number.
std::vector<Sample> where_one_scalar_samples(ScalarType t, bool number_first) {
  const auto where_of = [t, number_first](Shape cond, Shape tensor, Scalar x,
                                          Layout l = L::Contiguous, Values v = V::Normal) {
    return [=](InputMaker& m) -> Args {
      Tensor c = m.mask(cond, 0.5, l);
      Tensor s = m.tensor(tensor, t, v, l);
      return number_first ? Args{c, x, s} : Args{c, s, x};
    };
  };
  const Scalar x = natural_value(t);
  std::vector<Sample> out = {
      quick_sample("contiguous_7x13", where_of({7, 13}, {7, 13}, x)),
      quick_sample("broadcast_7x1_13", where_of({7, 1}, {13}, x)),
      quick_sample("scalar_0d", where_of({}, {}, x)),
      quick_sample("empty_0x5", where_of({0, 5}, {0, 5}, x)),
      quick_sample("transposed_17x9", where_of({17, 9}, {17, 9}, x, L::Transposed)),
      full_sample("odd_1031", where_of({1031}, {1031}, x)),
      full_sample("special_values", where_of({16}, {16}, x, L::Contiguous, V::Special)),
  };
  if (!is_floating(t)) {
    // A float number makes an integral or bool tensor's result the default float dtype.
    out.push_back(quick_sample("float_number_promotes", where_of({5, 6}, {5, 6}, Scalar(0.5))));
  }
  if (t == T::Int8) {
    out.push_back(error_sample("error_number_overflows", "without overflow",
                               where_of({5}, {5}, Scalar(int64_t{300}))));
  }
  return out;
}

// ---- fill_.Tensor ------------------------------------------------------------------------

std::vector<Sample> fill_tensor_samples(ScalarType t) {
  const ScalarType other = t == T::Bool ? T::Int32 : is_integral(t) ? T::Float32 : T::Float64;
  const auto fill_of = [t](Shape sizes, ScalarType value_dtype, Layout l = L::Contiguous,
                           Values v = V::Normal) {
    return [=](InputMaker& m) -> Args {
      Tensor self = m.tensor(sizes, t, V::Normal, l);
      return {self, m.tensor({}, value_dtype, v)};
    };
  };
  // A value of another dtype converts as copy_ converts: keep it in the target's range.
  const Values in_range = is_integral(t) && is_floating(other) ? V::Positive : V::Normal;
  std::vector<Sample> out = {
      quick_sample("contiguous_7x13", fill_of({7, 13}, t)),
      quick_sample("scalar_0d", fill_of({}, t)),
      quick_sample("empty_0x5", fill_of({0, 5}, t)),
      quick_sample("transposed_17x9", fill_of({17, 9}, t, L::Transposed)),
      quick_sample("value_" + std::string(dtype_name(other)),
                   fill_of({5, 6}, other, L::Contiguous, in_range)),
      full_sample("odd_1031", fill_of({1031}, t)),
      full_sample("permuted_3x4x5", fill_of({3, 4, 5}, t, L::Permuted)),
      error_sample("error_value_not_0d", "must be a 0-d tensor",
                   [t](InputMaker& m) -> Args {
                     return {m.tensor({5}, t), m.tensor({1}, t)};
                   }),
  };
  if (is_floating(t)) {
    out.push_back(quick_sample("special_value", fill_of({13}, t, L::Contiguous, V::Special)));
  }
  return out;
}

// ---- prod / all / any of every element ----------------------------------------------------

std::vector<Sample> prod_all_samples(ScalarType t) {
  // Long float products use values in (-1, 1): they underflow rather than overflow.
  const Values v = is_floating(t) ? V::Unit : V::Normal;
  const auto prod_of = [t](Shape sizes, Values values, Layout l = L::Contiguous,
                           IValue dtype = IValue()) {
    return [=](InputMaker& m) -> Args { return {m.tensor(sizes, t, values, l), dtype}; };
  };
  const ScalarType d = is_floating(t) && t != T::Float64 ? T::Float64 : T::Int64;
  return {
      quick_sample("contiguous_7x13", prod_of({7, 13}, v), 91),
      quick_sample("scalar_0d", prod_of({}, v), 1),
      quick_sample("empty_0x5", prod_of({0, 5}, v), 1),
      quick_sample("transposed_17x9", prod_of({17, 9}, v, L::Transposed), 153),
      quick_sample("dtype_" + std::string(dtype_name(d)), prod_of({5, 7}, v, L::Contiguous, d), 35),
      full_sample("odd_1031", prod_of({1031}, V::Unit), 1031),
      full_sample("permuted_3x4x5", prod_of({3, 4, 5}, v, L::Permuted), 60),
  };
}

std::vector<Sample> all_any_samples(ScalarType t) {
  const auto of = [t](Shape sizes, Values values, Layout l = L::Contiguous) {
    return [=](InputMaker& m) -> Args { return {m.tensor(sizes, t, values, l)}; };
  };
  // Ties give zeros (false) next to nonzeros; Positive has no zero (every element true).
  return {
      quick_sample("contiguous_7x13", of({7, 13}, V::Ties)),
      quick_sample("all_nonzero_7x13", of({7, 13}, V::Positive)),
      quick_sample("scalar_0d", of({}, V::Ties)),
      quick_sample("empty_0x5", of({0, 5}, V::Normal)),
      quick_sample("transposed_17x9", of({17, 9}, V::Positive, L::Transposed)),
      quick_sample("special_values_4x4", of({4, 4}, V::Special)),
      full_sample("odd_1031", of({1031}, V::Positive)),
      full_sample("permuted_3x4x5", of({3, 4, 5}, V::Ties, L::Permuted)),
  };
}

}  // namespace

void add_composite_overload_records(std::vector<OpRecord>& out) {
  const std::vector<ScalarType> all = all_dtypes();
  out.push_back({"pow.Scalar", all, pow_scalar_samples});
  out.push_back({"clamp.Tensor", numeric_dtypes(), clamp_tensor_samples});
  out.push_back({"where.Scalar", {T::Bool, T::Int64, T::Float32}, where_scalar_samples});
  out.push_back({"where.ScalarSelf", all,
                 [](ScalarType t) { return where_one_scalar_samples(t, /*number_first=*/true); }});
  out.push_back({"where.ScalarOther", all,
                 [](ScalarType t) { return where_one_scalar_samples(t, /*number_first=*/false); }});
  out.push_back({"fill_.Tensor", all, fill_tensor_samples});
  out.push_back({"prod", all, prod_all_samples});
  out.push_back({"all", all, all_any_samples});
  out.push_back({"any", all, all_any_samples});
}

}  // namespace bp::conformance::detail
