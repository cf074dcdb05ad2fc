// Conformance records of the data movement group: copy_ (every dtype pair, strided and
// broadcast sources, offset destinations), fill_.Scalar, arange.start_step, cat,
// index_select, gather, where.self and embedding. The case dtype is the dtype of the main
// input: copy_'s source, fill_'s tensor, arange's `dtype`, the values of cat/index_select/
// gather/where (self) and embedding (weight).
#include "records_internal.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace bp::conformance::detail {
namespace {

using Args = std::vector<IValue>;
using Make = MakeArgs;
using V = Values;
using L = Layout;
using T = ScalarType;

Sample quick(std::string name, Make make) {
  return quick_sample(std::move(name), std::move(make));
}
Sample full(std::string name, Make make) {
  return full_sample(std::move(name), std::move(make));
}
Sample error(std::string name, std::string expect, Make make) {
  return error_sample(std::move(name), std::move(expect), std::move(make));
}

std::string dt(ScalarType t) {
  return std::string(dtype_name(t));
}

// A dtype other than `t` that a sample converts to or mixes with: promotion goes somewhere
// for every `t` (bool -> i32, integers -> f32, floats -> f64 or f32).
ScalarType partner(ScalarType t) {
  if (t == T::Bool) return T::Int32;
  if (is_integral(t)) return T::Float32;
  return t == T::Float64 ? T::Float32 : T::Float64;
}

// The range of an integral dtype as doubles, for deciding which float -> int conversions
// PyTorch defines (in range after truncation) and which are undefined behaviour there.
std::pair<double, double> int_limits(ScalarType t) {
  switch (t) {
    case T::Int8:
      return {-128.0, 127.0};
    case T::UInt8:
      return {0.0, 255.0};
    case T::Int16:
      return {-32768.0, 32767.0};
    case T::Int32:
      return {-2147483648.0, 2147483647.0};
    default:
      return {-0x1p63, 0x1p63 - 1024.0};  // the largest double below 2^63
  }
}

// Whether converting the float `v` to the integral dtype `to` is defined (not NaN, not
// infinite, in range after truncation toward zero).
bool defined_float_to_int(double v, ScalarType to) {
  if (!std::isfinite(v)) return false;
  const auto [lo, hi] = int_limits(to);
  const double t = std::trunc(v);
  return t >= lo && t <= hi;
}

// ---- copy_ -------------------------------------------------------------------------------

// Values for a source of dtype `src` converted to `dst` with defined results in PyTorch:
// floats into integers stay in range (and non-negative for u8); everything else gets the
// whole range, so integer narrowing wraps and floats overflow to inf when they must.
Values conversion_values(ScalarType src, ScalarType dst) {
  if (is_floating(src) && is_integral(dst)) return dst == T::UInt8 ? V::Positive : V::Normal;
  return V::Wide;
}

// copy_(dst, src) where dst is made by `dst` and src by `src`.
Make copy_of(std::function<Tensor(InputMaker&)> dst, std::function<Tensor(InputMaker&)> src) {
  return [dst, src](InputMaker& m) -> Args {
    Tensor d = dst(m);
    return {d, src(m)};
  };
}

// A tensor of the sample's inputs, made when the case runs.
std::function<Tensor(InputMaker&)> tensor_of(Shape sizes, ScalarType t, Values v = V::Normal,
                                             Layout l = L::Contiguous) {
  return [=](InputMaker& m) { return m.tensor(sizes, t, v, l); };
}

// Every conversion from `s`, with values whose result PyTorch defines.
std::vector<Sample> copy_conversion_samples(ScalarType s) {
  std::vector<Sample> out;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto d = static_cast<ScalarType>(i);
    if (d == s) continue;
    out.push_back(quick("to_" + dt(d), copy_of(tensor_of({3, 11}, d),
                                               tensor_of({3, 11}, s, conversion_values(s, d)))));
  }
  return out;
}

// Special values into every dtype: NaN, +-inf, -0, subnormals, extremes. Float -> integer
// keeps only the values PyTorch defines; the others get their own samples.
std::vector<Sample> copy_special_value_samples(ScalarType s) {
  std::vector<Sample> out;
  for (int i = 0; i < kNumScalarTypes; ++i) {
    const auto d = static_cast<ScalarType>(i);
    std::vector<double> defined, undefined;
    for (double v : special_values(s)) {
      const bool ok = !is_floating(s) || !is_integral(d) || defined_float_to_int(v, d);
      (ok ? defined : undefined).push_back(v);
    }
    out.push_back(Sample{"special_to_" + dt(d), d == s,
                         [=](InputMaker& m) -> Args {
                           const auto n = static_cast<int64_t>(defined.size());
                           return {m.tensor({n}, d), m.from_doubles({n}, s, defined)};
                         },
                         std::nullopt, 1});
    // NaN, inf and out-of-range floats into an integer dtype are undefined behaviour in
    // PyTorch; the reference gives PyTorch's x86-64 results (docs/reference.md). Backends
    // that saturate (CUDA, ARM) differ legitimately: these samples have their own names
    // so that an expectations file can mark them unsupported.
    if (!undefined.empty()) {
      out.push_back(full("out_of_range_to_" + dt(d), [=](InputMaker& m) -> Args {
        const auto n = static_cast<int64_t>(undefined.size());
        return {m.tensor({n}, d), m.from_doubles({n}, s, undefined)};
      }));
    }
  }
  return out;
}

// Strided, permuted, offset and broadcast sources and destinations, small and large.
std::vector<Sample> copy_layout_samples(ScalarType s) {
  const ScalarType p = partner(s);
  const auto plain = [](Shape sizes, ScalarType t, Values v = V::Normal, Layout l = L::Contiguous) {
    return tensor_of(std::move(sizes), t, v, l);
  };
  std::vector<Sample> out = {
      full("strided_5x8", copy_of(plain({5, 8}, s), plain({5, 8}, s, V::Normal, L::Strided))),
      full("permuted_3x4x5",
           copy_of(plain({3, 4, 5}, s), plain({3, 4, 5}, s, V::Normal, L::Permuted))),
      full("offset_src_33", copy_of(plain({33}, s), plain({33}, s, V::Normal, L::Offset))),
      full("offset_dst_33", copy_of(plain({33}, s, V::Normal, L::Offset), plain({33}, s))),
      full("transposed_dst_9x17",
           copy_of(plain({9, 17}, s, V::Normal, L::Transposed), plain({9, 17}, s))),
      full("strided_dst_7x13_from_transposed",
           copy_of(plain({7, 13}, s, V::Normal, L::Strided),
                   plain({7, 13}, s, V::Normal, L::Transposed))),
      full("transposed_17x9_to_" + dt(p),
           copy_of(plain({17, 9}, p), plain({17, 9}, s, conversion_values(s, p), L::Transposed))),
      full("broadcast_0d_to_5x6", copy_of(plain({5, 6}, s), plain({}, s))),
      full("broadcast_13_to_7x13", copy_of(plain({7, 13}, s), plain({13}, s))),
      full("broadcast_7x1_to_7x13_" + dt(p),
           copy_of(plain({7, 13}, p), plain({7, 1}, s, conversion_values(s, p)))),
      // A source that is already an expanded (stride 0) view of the same shape as dst.
      full("expanded_src_7x13",
           [s](InputMaker& m) -> Args {
             Tensor dst = m.tensor({7, 13}, s);
             return {dst, m.tensor({1, 13}, s).expand({7, 13})};
           }),
      // Python's src[:, 2:39:3]: a step-3 slice that starts inside its storage.
      full("sliced_step3_7x13",
           [s](InputMaker& m) -> Args {
             Tensor dst = m.tensor({7, 13}, s);
             return {dst, m.tensor({7, 40}, s).slice(1, 2, 39, 3)};
           }),
      full("large_1048576", copy_of(plain({1024, 1024}, s), plain({1024, 1024}, s))),
      full("large_transposed_1031x257_to_" + dt(p),
           copy_of(plain({1031, 257}, p),
                   plain({1031, 257}, s, conversion_values(s, p), L::Transposed))),
      full("large_broadcast_1x65537_to_3x65537",
           copy_of(plain({3, 65537}, s), plain({1, 65537}, s))),
  };
  return out;
}

std::vector<Sample> copy_samples(ScalarType s) {
  std::vector<Sample> out = {
      quick("contiguous_7x13", copy_of(tensor_of({7, 13}, s), tensor_of({7, 13}, s))),
      quick("scalar_0d", copy_of(tensor_of({}, s), tensor_of({}, s))),
      quick("empty_0x5", copy_of(tensor_of({0, 5}, s), tensor_of({0, 5}, s))),
      quick("transposed_17x9",
            copy_of(tensor_of({17, 9}, s), tensor_of({17, 9}, s, V::Normal, L::Transposed))),
      quick("broadcast_1x13_to_7x13", copy_of(tensor_of({7, 13}, s), tensor_of({1, 13}, s))),
  };
  append_samples(out, copy_conversion_samples(s));
  append_samples(out, copy_special_value_samples(s));
  append_samples(out, copy_layout_samples(s));
  out.push_back(error("error_shape_mismatch", "cannot be broadcast",
                      copy_of(tensor_of({4, 3}, s), tensor_of({3, 4}, s))));
  // Writing through a stride-0 view would write one location from several elements.
  out.push_back(error("error_dst_overlap", "stride 0", [s](InputMaker& m) -> Args {
    Tensor dst = m.tensor({1, 5}, s).expand({4, 5});
    return {dst, m.tensor({4, 5}, s)};
  }));
  return out;
}

// ---- fill_.Scalar ------------------------------------------------------------------------

Make fill_of(Shape sizes, ScalarType t, Scalar value, Layout l = L::Contiguous) {
  return [=](InputMaker& m) -> Args { return {m.tensor(sizes, t, V::Normal, l), value}; };
}

// NaN, infinities, -0, a subnormal and the largest finite value; a value beyond the dtype's
// range is an error.
std::vector<Sample> fill_floating_value_samples(ScalarType t) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> specials = special_values(t);
  std::vector<Sample> out = {
      quick("nan", fill_of({13}, t, Scalar(std::nan("")))),
      full("inf", fill_of({13}, t, Scalar(inf))),
      full("neg_inf", fill_of({13}, t, Scalar(-inf))),
      full("neg_zero", fill_of({13}, t, Scalar(-0.0))),
      full("subnormal", fill_of({13}, t, Scalar(specials[5]))),
      full("largest_finite", fill_of({13}, t, Scalar(specials[8]))),
  };
  // A double beyond the dtype's finite range is refused, not rounded to inf (f64 has
  // no such double).
  if (t != T::Float64) {
    const double too_big = t == T::Float16 ? 65520.0 : 1e39;
    out.push_back(
        error("error_value_overflow", "without overflow", fill_of({13}, t, Scalar(too_big))));
  }
  return out;
}

// The integer dtype's extremes; one past them, and NaN, are errors.
std::vector<Sample> fill_integer_value_samples(ScalarType t) {
  const auto [lo, hi] = int_limits(t);
  const int64_t min =
      t == T::Int64 ? std::numeric_limits<int64_t>::min() : static_cast<int64_t>(lo);
  const int64_t max =
      t == T::Int64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi);
  std::vector<Sample> out = {
      quick("int_min", fill_of({13}, t, Scalar(min))),
      full("int_max", fill_of({13}, t, Scalar(max))),
  };
  if (t == T::UInt8) {
    // PyTorch lets an unsigned dtype take negatives down to -max: -1 wraps to 255.
    out.push_back(full("negative_wraps", fill_of({13}, t, Scalar(int64_t{-1}))));
    out.push_back(
        error("error_value_overflow", "without overflow", fill_of({13}, t, Scalar(int64_t{256}))));
  } else if (t == T::Int64) {
    out.push_back(
        error("error_value_overflow", "without overflow", fill_of({13}, t, Scalar(1e19))));
  } else {
    out.push_back(
        error("error_value_overflow", "without overflow", fill_of({13}, t, Scalar(max + 1))));
  }
  out.push_back(
      error("error_nan_value", "without overflow", fill_of({13}, t, Scalar(std::nan("")))));
  return out;
}

std::vector<Sample> fill_samples(ScalarType t) {
  const Scalar v = natural_value(t);
  std::vector<Sample> out = {
      quick("contiguous_7x13", fill_of({7, 13}, t, v)),
      quick("scalar_0d", fill_of({}, t, v)),
      quick("empty_0x5", fill_of({0, 5}, t, v)),
      quick("strided_5x8", fill_of({5, 8}, t, v, L::Strided)),
      quick("transposed_17x9", fill_of({17, 9}, t, v, L::Transposed)),
      full("offset_33", fill_of({33}, t, v, L::Offset)),
      full("permuted_3x4x5", fill_of({3, 4, 5}, t, v, L::Permuted)),
      full("odd_1031", fill_of({1031}, t, v)),
      full("large_1048576", fill_of({1048576}, t, v)),
      full("large_strided_1031x257", fill_of({1031, 257}, t, v, L::Strided)),
  };
  // Scalars of the other kinds: converted (checked) to the tensor's dtype.
  if (t != T::Bool) out.push_back(quick("bool_value", fill_of({13}, t, Scalar(true))));
  if (is_floating(t) || t == T::Bool) {
    out.push_back(quick("int_value", fill_of({13}, t, Scalar(int64_t{3}))));
  } else {
    out.push_back(quick("float_value_truncated", fill_of({13}, t, Scalar(2.75))));
  }
  if (is_floating(t)) {
    append_samples(out, fill_floating_value_samples(t));
  } else if (t == T::Bool) {
    out.push_back(full("int_value_2_is_true", fill_of({13}, t, Scalar(int64_t{2}))));
    out.push_back(full("float_value_0_is_false", fill_of({13}, t, Scalar(0.0))));
  } else {
    append_samples(out, fill_integer_value_samples(t));
  }
  return out;
}

// ---- arange.start_step -------------------------------------------------------------------

Make arange_of(Scalar start, Scalar end, Scalar step, std::optional<ScalarType> dtype) {
  return [=](InputMaker&) -> Args {
    return {start, end, step, IValue(dtype), IValue(kReferenceDevice)};
  };
}

std::vector<Sample> arange_samples(ScalarType t) {
  using I = int64_t;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Sample> out = {
      quick("range_0_10", arange_of(I{0}, I{10}, I{1}, t)),
      quick("step_3_not_dividing", arange_of(I{-7}, I{20}, I{3}, t)),
      quick("negative_step", arange_of(I{10}, I{-3}, I{-1}, t)),
      quick("empty_5_5", arange_of(I{5}, I{5}, I{1}, t)),
      full("odd_1031", arange_of(I{-500}, I{531}, I{1}, t)),
      error("error_zero_step", "nonzero", arange_of(I{0}, I{10}, I{0}, t)),
      error("error_wrong_sign", "wrong sign", arange_of(I{0}, I{10}, I{-1}, t)),
  };
  if (is_floating(t)) {
    out.push_back(quick("float_step_0.1", arange_of(0.0, 1.0, 0.1, t)));
    out.push_back(quick("float_step_not_dividing", arange_of(0.0, 1.0, 0.3, t)));
    out.push_back(full("negative_float_step", arange_of(1.0, -1.0, -0.25, t)));
    out.push_back(full("large_1048576", arange_of(-8.0, 8.0, 0x1p-16, t)));
    out.push_back(error("error_infinite_end", "must be finite", arange_of(0.0, inf, 1.0, t)));
    if (t == T::Float32) {
      // dtype None with a float Scalar: the default float dtype.
      out.push_back(quick("dtype_none_float_scalars", arange_of(0.0, 2.0, 0.125, std::nullopt)));
    }
  } else {
    // Float Scalars truncated to integers first: [5, 4, 3, 2] (PyTorch).
    out.push_back(quick("float_scalars_truncated", arange_of(5.0, 0.0, -1.5, t)));
    // Values wrap into narrow dtypes: int8 gives [0, 100, -56].
    out.push_back(quick("wrap_0_300_100", arange_of(I{0}, I{300}, I{100}, t)));
    out.push_back(full("large_1048576", arange_of(I{-524288}, I{524288}, I{1}, t)));
    out.push_back(error("error_infinite_end", "without overflow", arange_of(0.0, inf, 1.0, t)));
    if (t == T::Int64) {
      out.push_back(quick("dtype_none_int_scalars", arange_of(I{-3}, I{9}, I{2}, std::nullopt)));
    }
  }
  return out;
}

// ---- cat ---------------------------------------------------------------------------------

// cat of tensors made by `parts`, along `dim`.
Make cat_of(std::vector<std::function<Tensor(InputMaker&)>> parts, int64_t dim) {
  return [=](InputMaker& m) -> Args {
    TensorList list;
    for (const auto& part : parts) list.push_back(part(m));
    return {list, dim};
  };
}

std::vector<Sample> cat_samples(ScalarType t) {
  const auto ten = [t](Shape sizes, Layout l = L::Contiguous, Values v = V::Normal) {
    return [=](InputMaker& m) { return m.tensor(sizes, t, v, l); };
  };
  const ScalarType p = partner(t);
  const auto other = [p](Shape sizes) { return [=](InputMaker& m) { return m.tensor(sizes, p); }; };
  return {
      quick("dim0_3x5_4x5", cat_of({ten({3, 5}), ten({4, 5})}, 0)),
      quick("dim1_5x3_5x4", cat_of({ten({5, 3}), ten({5, 4})}, 1)),
      quick("negative_dim_2x3x4_2x3x1", cat_of({ten({2, 3, 4}), ten({2, 3, 1})}, -1)),
      quick("odd_1d_7_13_33", cat_of({ten({7}), ten({13}), ten({33})}, 0)),
      quick("transposed_and_strided_9x7",
            cat_of({ten({9, 7}, L::Transposed), ten({9, 5}, L::Strided)}, 1)),
      quick("mixed_dtype_" + dt(p), cat_of({ten({3, 5}), other({2, 5})}, 0)),
      // 1-D empty tensors are skipped in shape checks (but promote).
      quick("legacy_empty_skipped", cat_of({ten({0}), ten({3, 5}), ten({0})}, 1)),
      full("empty_along_dim_0x5_3x5", cat_of({ten({0, 5}), ten({3, 5})}, 0)),
      full("all_empty_1d", cat_of({ten({0}), ten({0})}, 0)),
      full("single_tensor_4x6", cat_of({ten({4, 6}, L::Permuted)}, 1)),
      full("three_3d_dim1",
           cat_of({ten({2, 3, 4}), ten({2, 1, 4}, L::Offset), ten({2, 5, 4}, L::Permuted)}, 1)),
      full("special_values", cat_of({ten({16}, L::Contiguous, V::Special), ten({5})}, 0)),
      full("large_2x_256x1031_dim1",
           cat_of({ten({256, 1031}), ten({256, 1031}, L::Transposed)}, 1)),
      error("error_empty_list", "empty list",
            [](InputMaker&) -> Args {
              return {TensorList{}, int64_t{0}};
            }),
      error("error_0d_tensor", "0-d", cat_of({ten({3}), ten({})}, 0)),
      error("error_shape_mismatch", "does not match", cat_of({ten({3, 5}), ten({3, 4})}, 0)),
      error("error_ndim_mismatch", "same number of dims", cat_of({ten({3, 5}), ten({5})}, 0)),
      error("error_dim_out_of_range", "must be in", cat_of({ten({3, 5}), ten({3, 5})}, 2)),
  };
}

// ---- index_select and embedding -----------------------------------------------------------

// index_select(self, dim, index) with index values in [lo, hi].
Make index_select_of(ScalarType t, Shape sizes, int64_t dim, Shape index_sizes, int64_t lo,
                     int64_t hi, Layout self_layout = L::Contiguous,
                     ScalarType index_dtype = T::Int64, Layout index_layout = L::Contiguous) {
  return [=](InputMaker& m) -> Args {
    Tensor self = m.tensor(sizes, t, V::Normal, self_layout);
    return {self, dim, m.indices(index_sizes, lo, hi, index_dtype, index_layout)};
  };
}

std::vector<Sample> index_select_samples(ScalarType t) {
  return {
      quick("dim0_7x13_index5", index_select_of(t, {7, 13}, 0, {5}, 0, 6)),
      quick("dim1_7x13_index_i32",
            index_select_of(t, {7, 13}, 1, {9}, 0, 12, L::Contiguous, T::Int32)),
      quick("negative_dim_3x4x5", index_select_of(t, {3, 4, 5}, -1, {6}, 0, 4)),
      quick("index_0d", index_select_of(t, {7, 13}, 0, {}, 0, 6)),
      quick("self_0d", index_select_of(t, {}, 0, {1}, 0, 0)),
      quick("transposed_17x9_strided_index",
            index_select_of(t, {17, 9}, 1, {11}, 0, 8, L::Transposed, T::Int64, L::Strided)),
      quick("empty_index", index_select_of(t, {7, 13}, 1, {0}, 0, 0)),
      full("empty_self_0x5", index_select_of(t, {0, 5}, 1, {3}, 0, 4)),
      full("repeated_indices_3d_dim1", index_select_of(t, {3, 4, 5}, 1, {10}, 1, 2, L::Permuted)),
      full("offset_self_33", index_select_of(t, {33}, 0, {40}, 0, 32, L::Offset)),
      full("special_values",
           [t](InputMaker& m) -> Args {
             return {m.tensor({16}, t, V::Special), int64_t{0}, m.indices({16}, 0, 15)};
           }),
      full("large_1031x257_dim0", index_select_of(t, {1031, 257}, 0, {1031}, 0, 1030)),
      error("error_index_out_of_range", "out of range", index_select_of(t, {7, 13}, 0, {5}, 7, 7)),
      error("error_negative_index", "out of range", index_select_of(t, {7, 13}, 1, {3}, -1, -1)),
      error("error_index_dtype_f32", "has dtype f32",
            [t](InputMaker& m) -> Args {
              return {m.tensor({7, 13}, t), int64_t{0}, m.tensor({3}, T::Float32, V::Positive)};
            }),
      error("error_index_2d", "0-d or 1-D", index_select_of(t, {7, 13}, 0, {2, 2}, 0, 6)),
      error("error_dim_out_of_range", "must be in", index_select_of(t, {7, 13}, 2, {2}, 0, 6)),
  };
}

// embedding(weight [rows, cols], indices in [0, rows), padding_idx).
Make embedding_of(ScalarType t, Shape weight_sizes, Shape index_sizes, int64_t lo, int64_t hi,
                  int64_t padding_idx = -1, Layout weight_layout = L::Contiguous,
                  ScalarType index_dtype = T::Int64, Layout index_layout = L::Contiguous) {
  return [=](InputMaker& m) -> Args {
    Tensor weight = m.tensor(weight_sizes, t, V::Normal, weight_layout);
    return {weight, m.indices(index_sizes, lo, hi, index_dtype, index_layout), padding_idx};
  };
}

std::vector<Sample> embedding_samples(ScalarType t) {
  return {
      quick("indices_1d_13x7", embedding_of(t, {13, 7}, {9}, 0, 12)),
      quick("indices_2d_i32", embedding_of(t, {13, 7}, {3, 5}, 0, 12, -1, L::Contiguous, T::Int32)),
      quick("indices_0d", embedding_of(t, {13, 7}, {}, 0, 12)),
      quick("padding_idx_2", embedding_of(t, {13, 7}, {4, 4}, 0, 4, 2)),
      quick("transposed_weight", embedding_of(t, {33, 9}, {17}, 0, 32, -1, L::Transposed)),
      // Indices whose strides cannot be flattened into one dim (the composite copies).
      full("transposed_indices_5x6",
           embedding_of(t, {13, 7}, {5, 6}, 0, 12, -1, L::Contiguous, T::Int64, L::Transposed)),
      quick("empty_indices", embedding_of(t, {13, 7}, {0, 3}, 0, 0)),
      full("repeated_indices", embedding_of(t, {13, 7}, {20}, 3, 4, -1, L::Strided)),
      full("large_1031x256_index_1024", embedding_of(t, {1031, 256}, {1024}, 0, 1030)),
      error("error_index_out_of_range", "out of range", embedding_of(t, {13, 7}, {4}, 13, 13)),
      error("error_weight_1d", "must be 2-D",
            [t](InputMaker& m) -> Args {
              return {m.tensor({13}, t), m.indices({4}, 0, 12), int64_t{-1}};
            }),
      error("error_padding_idx", "padding_idx", embedding_of(t, {13, 7}, {4}, 0, 12, 13)),
      error("error_index_dtype_f32", "has dtype f32",
            [t](InputMaker& m) -> Args {
              return {m.tensor({13, 7}, t), m.tensor({4}, T::Float32, V::Positive), int64_t{-1}};
            }),
  };
}

// ---- gather ------------------------------------------------------------------------------

Make gather_of(ScalarType t, Shape sizes, int64_t dim, Shape index_sizes, int64_t lo, int64_t hi,
               Layout self_layout = L::Contiguous, Layout index_layout = L::Contiguous) {
  return [=](InputMaker& m) -> Args {
    Tensor self = m.tensor(sizes, t, V::Normal, self_layout);
    return {self, dim, m.indices(index_sizes, lo, hi, T::Int64, index_layout)};
  };
}

std::vector<Sample> gather_samples(ScalarType t) {
  return {
      quick("dim0_7x13", gather_of(t, {7, 13}, 0, {7, 13}, 0, 6)),
      quick("dim1_index_smaller_5x9", gather_of(t, {7, 13}, 1, {5, 9}, 0, 12)),
      quick("index_larger_along_dim", gather_of(t, {7, 3}, 1, {7, 8}, 0, 2)),
      quick("negative_dim_3x4x5", gather_of(t, {3, 4, 5}, -1, {3, 4, 2}, 0, 4)),
      quick("scalar_0d", gather_of(t, {}, 0, {}, 0, 0)),
      quick("transposed_self_strided_index",
            gather_of(t, {17, 9}, 0, {17, 9}, 0, 16, L::Transposed, L::Strided)),
      quick("empty_index", gather_of(t, {7, 13}, 1, {7, 0}, 0, 0)),
      full("permuted_self_3d_dim1", gather_of(t, {3, 4, 5}, 1, {3, 6, 5}, 0, 3, L::Permuted)),
      full("offset_index_33", gather_of(t, {33}, 0, {33}, 0, 32, L::Contiguous, L::Offset)),
      full("special_values",
           [t](InputMaker& m) -> Args {
             return {m.tensor({16}, t, V::Special), int64_t{0}, m.indices({16}, 0, 15)};
           }),
      full("large_1031x257_dim1", gather_of(t, {1031, 257}, 1, {1031, 257}, 0, 256)),
      error("error_index_out_of_range", "out of range", gather_of(t, {7, 13}, 1, {7, 2}, 13, 13)),
      error("error_negative_index", "out of range", gather_of(t, {7, 13}, 0, {2, 2}, -1, -1)),
      error("error_index_dtype_i32", "has dtype i32",
            [t](InputMaker& m) -> Args {
              return {m.tensor({7, 13}, t), int64_t{0}, m.indices({7, 13}, 0, 6, T::Int32)};
            }),
      error("error_ndim_mismatch", "as many dims", gather_of(t, {7, 13}, 0, {7}, 0, 6)),
      error("error_index_larger_outside_dim", "is larger than",
            gather_of(t, {7, 13}, 0, {7, 14}, 0, 6)),
      error("error_dim_out_of_range", "must be in", gather_of(t, {7, 13}, -3, {7, 13}, 0, 6)),
  };
}

// ---- where.self --------------------------------------------------------------------------

Make where_of(Shape cond, std::function<Tensor(InputMaker&)> self,
              std::function<Tensor(InputMaker&)> other, Layout cond_layout = L::Contiguous) {
  return [=](InputMaker& m) -> Args {
    Tensor c = m.mask(cond, 0.5, cond_layout);
    Tensor s = self(m);
    return {c, s, other(m)};
  };
}

std::vector<Sample> where_samples(ScalarType t) {
  const auto ten = [t](Shape sizes, Layout l = L::Contiguous, Values v = V::Normal) {
    return [=](InputMaker& m) { return m.tensor(sizes, t, v, l); };
  };
  const ScalarType p = partner(t);
  return {
      quick("contiguous_7x13", where_of({7, 13}, ten({7, 13}), ten({7, 13}))),
      quick("broadcast_7x1_1x13_13", where_of({7, 1}, ten({1, 13}), ten({13}))),
      quick("scalar_0d", where_of({}, ten({}), ten({}))),
      quick("other_0d", where_of({7, 13}, ten({7, 13}), ten({}))),
      quick("transposed_17x9",
            where_of({17, 9}, ten({17, 9}, L::Transposed), ten({17, 9}), L::Transposed)),
      quick("mixed_dtype_" + dt(p), where_of({5, 6}, ten({5, 6}),
                                             [p](InputMaker& m) {
                                               return m.tensor({5, 6}, p);
                                             })),
      // A wrapped number (a Python scalar) does not take part in promotion over dims.
      quick("wrapped_number_other", where_of({5, 6}, ten({5, 6}),
                                             [](InputMaker& m) {
                                               return scalar_tensor(Scalar(m.uniform(-4.0, 4.0)),
                                                                    T::Float64, kReferenceDevice,
                                                                    /*wrapped_number=*/true);
                                             })),
      quick("empty_0x5", where_of({0, 5}, ten({0, 5}), ten({1, 5}))),
      full("strided_and_offset_5x8",
           where_of({5, 8}, ten({5, 8}, L::Strided), ten({5, 8}, L::Offset), L::Strided)),
      full("permuted_3x4x5", where_of({3, 4, 5}, ten({3, 4, 5}, L::Permuted), ten({4, 1}))),
      full("special_values", where_of({16}, ten({16}, L::Contiguous, V::Special),
                                      ten({16}, L::Contiguous, V::Special))),
      full("odd_1031", where_of({1031}, ten({1031}), ten({1031}))),
      full("large_1024x1024_broadcast", where_of({1024, 1024}, ten({1024, 1}), ten({1024, 1024}))),
      error("error_condition_not_bool", "must be a bool tensor",
            [t](InputMaker& m) -> Args {
              return {m.tensor({5}, T::UInt8, V::Unit), m.tensor({5}, t), m.tensor({5}, t)};
            }),
      error("error_broadcast", "cannot broadcast", where_of({5, 3}, ten({5, 3}), ten({4, 3}))),
  };
}

}  // namespace

void add_data_movement_records(std::vector<OpRecord>& out) {
  const std::vector<ScalarType> all = all_dtypes();
  out.push_back({"copy_", all, copy_samples});
  out.push_back({"fill_.Scalar", all, fill_samples});
  // PyTorch has no bool arange (and neither has the reference).
  out.push_back({"arange.start_step", numeric_dtypes(), arange_samples});
  out.push_back({"cat", all, cat_samples});
  out.push_back({"index_select", all, index_select_samples});
  out.push_back({"gather", all, gather_samples});
  out.push_back({"where.self", all, where_samples});
  out.push_back({"embedding", all, embedding_samples});
}

}  // namespace bp::conformance::detail
