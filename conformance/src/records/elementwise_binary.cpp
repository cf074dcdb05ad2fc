// Conformance records of the elementwise binary ops in every catalog overload: the .Tensor
// forms (add sub mul div div.Tensor_mode pow maximum minimum eq ne lt le gt ge logical_and
// logical_or) and the .Scalar forms (a Python number as `other`). One table per form; every
// row gets the same list of samples (layouts, 0-d, empty, broadcasting both ways, every pair
// of special values, mixed dtypes, wrapped numbers, integer wrap-around, large sizes) plus
// the op's own extras (alpha, rounding modes, error inputs).
#include "elementwise_common.hpp"

#include <limits>

namespace bp::conformance::detail {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using Args = std::vector<IValue>;

// A setting of an op's trailing arguments (div's rounding_mode), run over the whole list.
struct Variant {
  std::string prefix;        // prepended to the sample names ("trunc_")
  std::vector<IValue> tail;  // the arguments after self and other
  bool quick = true;         // false: its samples only run in the full suite
  // Integer division with a rounding mode throws on a zero divisor: keep 0 out of the
  // integer `other` of ordinary samples (an error sample checks the zero).
  bool nonzero_int_other = false;
};

using Extras = void (*)(std::vector<Sample>&, ScalarType);

struct TensorOp {
  const char* name;
  DtypeSet dtypes;
  Values self_values, other_values;
  // pow and rounding division refuse bool with bool: a bool case pairs with an int32 other.
  bool bool_with_int_other = false;
  std::vector<Variant> variants = {Variant{}};
  Extras extras = nullptr;
};

Args join(Tensor a, Tensor b, const std::vector<IValue>& tail) {
  Args args{IValue(std::move(a)), IValue(std::move(b))};
  args.insert(args.end(), tail.begin(), tail.end());
  return args;
}

// Every special value of `self_dt` against every one of `other_dt` (an [n, 1] by [1, m]
// broadcast): NaN propagation, Inf - Inf, signed zeros, extremes, INT_MIN / -1.
Args special_pairs(InputMaker& in, ScalarType self_dt, ScalarType other_dt, bool nonzero_other,
                   const std::vector<IValue>& tail) {
  const std::vector<double> a = special_values(self_dt);
  std::vector<double> b;
  for (double v : special_values(other_dt)) {
    if (!(nonzero_other && !is_floating(other_dt) && v == 0.0)) b.push_back(v);
  }
  const auto n = static_cast<int64_t>(a.size());
  const auto m = static_cast<int64_t>(b.size());
  return join(in.from_doubles({n, 1}, self_dt, a), in.from_doubles({1, m}, other_dt, b), tail);
}

// Adds the samples of one variant of an op's tensor form (self and other tensors) to `out`:
// the dtypes and value domains of self and other, and the variant's name prefix and tail.
class TensorFormSamples {
 public:
  TensorFormSamples(std::vector<Sample>& out, const TensorOp& op, ScalarType self_dtype,
                    const Variant& variant)
      : dt(self_dtype),
        odt(op.bool_with_int_other && self_dtype == ScalarType::Bool ? ScalarType::Int32
                                                                     : self_dtype),
        sv(op.self_values),
        ov(op.other_values),
        tail(variant.tail),
        v(variant),
        out_(out) {}

  void add(const std::string& name, bool quick, MakeArgs make) {
    out_.push_back(quick && v.quick ? quick_sample(v.prefix + name, std::move(make))
                                    : full_sample(v.prefix + name, std::move(make)));
  }

  // self and other of the given sizes and layouts, values from the op's domains.
  void pair(const std::string& name, bool quick, Shape a, Shape b, Layout la = Layout::Contiguous,
            Layout lb = Layout::Contiguous) {
    add(name, quick,
        [a, b, la, lb, dt = dt, odt = odt, sv = sv, ov = ov, tail = tail](InputMaker& in) {
          Tensor x = in.tensor(as_ref(a), dt, sv, la);
          return join(x, in.tensor(as_ref(b), odt, ov, lb), tail);
        });
  }

  const ScalarType dt, odt;  // self's dtype, other's
  const Values sv, ov;       // self's values, other's
  const std::vector<IValue> tail;
  const Variant& v;

 private:
  std::vector<Sample>& out_;
};

// Promotion: other of another dtype, a wrapped number, a 0-d tensor; a 0-d self.
void add_promotion_samples(TensorFormSamples& s) {
  const ScalarType dt = s.dt, odt = s.odt;
  const Values sv = s.sv, ov = s.ov;
  const std::vector<IValue> tail = s.tail;
  // A tensor of another dtype (u8 + i8 -> i16, f16 + bf16 -> f32, ...).
  const ScalarType partner = partner_dtype(odt);
  s.add(std::string("mixed_") + std::string(dtype_name(partner)) + "_6x5", true,
        [=](InputMaker& in) {
          Tensor x = in.tensor({6, 5}, dt, sv);
          return join(x, in.tensor({6, 5}, partner, ov), tail);
        });
  // Wrapped numbers never raise an integer tensor's dtype within its category, a float
  // one turns ints into the default float.
  s.add("wrapped_int_5x6", true, [=](InputMaker& in) {
    return join(in.tensor({5, 6}, dt, sv), wrapped_scalar(Scalar(int64_t{3})), tail);
  });
  s.add("wrapped_float_5x6", false, [=](InputMaker& in) {
    return join(in.tensor({5, 6}, dt, sv), wrapped_scalar(Scalar(2.5)), tail);
  });
  // A 0-d f32 tensor (not a wrapped number): promotes ints to f32, leaves f16 as f16.
  s.add("f32_0d_other_4x5", false, [=](InputMaker& in) {
    Tensor x = in.tensor({4, 5}, dt, sv);
    return join(x, in.tensor({}, ScalarType::Float32, ov), tail);
  });
  s.add("self_0d_other_4x5", false, [=](InputMaker& in) {
    Tensor x = in.tensor({}, dt, sv);
    return join(x, in.tensor({4, 5}, odt, ov), tail);
  });
}

void add_tensor_form_samples(std::vector<Sample>& out, const TensorOp& op, ScalarType dt,
                             const Variant& v) {
  TensorFormSamples s(out, op, dt, v);
  s.pair("contiguous_7x13", true, {7, 13}, {7, 13});
  s.pair("scalar_0d", true, {}, {});
  s.pair("empty_0x5", true, {0, 5}, {0, 5});
  s.pair("broadcast_3x1_1x4", true, {3, 1}, {1, 4});
  s.pair("other_0d_5x6", true, {5, 6}, {});
  s.pair("transposed_17x9", true, {17, 9}, {17, 9}, Layout::Transposed, Layout::Transposed);
  s.pair("strided_offset_5x8", true, {5, 8}, {5, 8}, Layout::Strided, Layout::Offset);
  s.add("special_pairs", true, [=, odt = s.odt, tail = s.tail](InputMaker& in) {
    return special_pairs(in, dt, odt, v.nonzero_int_other, tail);
  });
  add_promotion_samples(s);
  s.pair("broadcast_7x13_13", false, {7, 13}, {13});
  s.pair("broadcast_13_7x13", false, {13}, {7, 13});
  s.pair("broadcast_empty_0x1_1x4", false, {0, 1}, {1, 4});
  s.pair("permuted_3x4x5", false, {3, 4, 5}, {3, 4, 5}, Layout::Permuted, Layout::Permuted);
  s.pair("offset_transposed_9x11", false, {9, 11}, {9, 11}, Layout::Offset, Layout::Transposed);
  s.pair("odd_127", false, {127}, {127});
  s.pair("odd_1031", false, {1031}, {1031});
  // Integers over their whole range: add/sub/mul wrap around as in PyTorch.
  const Values wide_other = v.nonzero_int_other ? s.ov : Values::Wide;
  s.add("wide_1031", false, [=, odt = s.odt, tail = s.tail](InputMaker& in) {
    Tensor x = in.tensor({1031}, dt, Values::Wide);
    return join(x, in.tensor({1031}, odt, wide_other), tail);
  });
  s.pair("large_263x251", false, {263, 251}, {263, 251});
}

std::vector<Sample> tensor_form_samples(const TensorOp& op, ScalarType dt) {
  std::vector<Sample> out;
  for (const Variant& v : op.variants) add_tensor_form_samples(out, op, dt, v);
  const ScalarType odt = op.bool_with_int_other && dt == ScalarType::Bool ? ScalarType::Int32 : dt;
  const std::vector<IValue> tail = op.variants.front().tail;
  out.push_back(error_sample("error_broadcast_3x4_5x4", "cannot broadcast", [=](InputMaker& in) {
    return join(in.tensor({3, 4}, dt), in.tensor({5, 4}, odt), tail);
  }));
  if (op.extras != nullptr) op.extras(out, dt);
  return out;
}

// ---- the extras of each op ----------------------------------------------------------------

// add/sub: alpha scales `other`; its dtype must suit the result (checked as PyTorch).
void alpha_samples(std::vector<Sample>& out, ScalarType dt, bool scalar_form) {
  auto other = [=](InputMaker& in) -> IValue {
    // A bool tensor with an int scalar computes in i64, where a bool alpha is refused.
    if (scalar_form) return IValue(dt == ScalarType::Bool ? Scalar(true) : Scalar(int64_t{3}));
    return IValue(in.tensor({7, 13}, dt));
  };
  auto with_alpha = [=](Scalar alpha) {
    return [=](InputMaker& in) {
      Tensor x = in.tensor({7, 13}, dt);
      return Args{x, other(in), IValue(alpha)};
    };
  };
  if (dt == ScalarType::Bool) {
    out.push_back(quick_sample("alpha_true_7x13", with_alpha(Scalar(true))));
    out.push_back(error_sample("error_float_alpha", "alpha", with_alpha(Scalar(0.5))));
    return;
  }
  out.push_back(quick_sample("alpha_2_7x13", with_alpha(Scalar(int64_t{2}))));
  if (is_floating(dt)) {
    out.push_back(quick_sample("alpha_float_0.5_7x13", with_alpha(Scalar(-0.5))));
  }
  if (dt == ScalarType::Float64) {
    // Alphas f32 cannot hold: an f64 kernel that narrows alpha to float is caught (1/3
    // rounds, 1e-40 is an f32 subnormal with 17 bits, 1e300 overflows to inf).
    out.push_back(quick_sample("alpha_f64_third_7x13", with_alpha(Scalar(1.0 / 3.0))));
    out.push_back(quick_sample("alpha_f64_1em40_7x13", with_alpha(Scalar(1e-40))));
    out.push_back(quick_sample("alpha_f64_1e300_7x13", with_alpha(Scalar(1e300))));
  }
  if (!is_floating(dt)) {
    out.push_back(error_sample("error_float_alpha", "alpha", with_alpha(Scalar(0.5))));
  }
  out.push_back(error_sample("error_bool_alpha", "alpha", with_alpha(Scalar(true))));
}

void add_extras(std::vector<Sample>& out, ScalarType dt) {
  alpha_samples(out, dt, false);
}

void sub_extras(std::vector<Sample>& out, ScalarType dt) {
  alpha_samples(out, dt, false);
  out.push_back(
      error_sample("error_bool_other", "bool tensors are not supported", [dt](InputMaker& in) {
        Tensor x = in.tensor({3, 4}, dt);
        return Args{x, in.mask({3, 4})};
      }));
}

// Integer rounding division by zero is an error (PyTorch's ZeroDivisionError); an
// unknown rounding mode too.
void div_mode_extras(std::vector<Sample>& out, ScalarType dt) {
  if (dt == ScalarType::Bool) {
    out.push_back(
        error_sample("error_bool_bool_trunc", "bool tensors are not supported", [](InputMaker& in) {
          Tensor x = in.mask({3, 4});
          return Args{x, in.mask({3, 4}), IValue("trunc")};
        }));
  } else if (!is_floating(dt)) {
    for (const char* mode : {"trunc", "floor"}) {
      out.push_back(error_sample(std::string("error_division_by_zero_") + mode, "division by zero",
                                 [dt, mode](InputMaker& in) {
                                   Tensor x = in.tensor({2, 3}, dt, Values::Positive);
                                   Tensor y = in.from_doubles({2, 3}, dt, {1, 2, 0, 3, 1, 2});
                                   return Args{x, y, IValue(mode)};
                                 }));
    }
  }
  out.push_back(error_sample("error_bad_rounding_mode", "rounding_mode", [dt](InputMaker& in) {
    Tensor x = in.tensor({3, 4}, dt, Values::Positive);
    return Args{x, in.tensor({3, 4}, dt, Values::Positive), IValue("round")};
  }));
}

void pow_extras(std::vector<Sample>& out, ScalarType dt) {
  if (dt == ScalarType::Bool) {
    out.push_back(
        error_sample("error_bool_bool", "bool tensors are not supported", [](InputMaker& in) {
          Tensor x = in.mask({3, 4});
          return Args{x, in.mask({3, 4})};
        }));
  } else if (is_floating(dt)) {
    // Negative bases to fractional powers: NaN.
    out.push_back(quick_sample("negative_base_5x6", [dt](InputMaker& in) {
      Tensor x = in.tensor({5, 6}, dt, Values::Normal);
      return Args{x, in.tensor({5, 6}, dt, Values::Unit)};
    }));
  } else {
    // Negative integer exponents of a tensor: 1, +-1 for bases 1 and -1, else 0.
    out.push_back(quick_sample("negative_exponent_5x6", [dt](InputMaker& in) {
      Tensor x = in.tensor({5, 6}, dt, Values::Ties);
      return Args{x, in.tensor({5, 6}, dt, Values::Ties)};
    }));
  }
}

const std::vector<TensorOp>& tensor_ops() {
  static const std::vector<TensorOp> ops = {
      {"add.Tensor", DtypeSet::All, Values::Normal, Values::Normal, false, {Variant{}}, add_extras},
      {"sub.Tensor",
       DtypeSet::NoBool,
       Values::Normal,
       Values::Normal,
       false,
       {Variant{}},
       sub_extras},
      {"mul.Tensor", DtypeSet::All, Values::Normal, Values::Normal},
      // True division: Positive divisors keep results finite; special_pairs divides by 0.
      {"div.Tensor", DtypeSet::All, Values::Normal, Values::Positive},
      {"div.Tensor_mode",
       DtypeSet::All,
       Values::Wide,
       Values::Positive,
       true,
       {Variant{"trunc_", {IValue("trunc")}, true, true},
        Variant{"floor_", {IValue("floor")}, true, true},
        Variant{"none_", {IValue()}, false, false}},
       div_mode_extras},
      // Small exponents (Unit), positive bases: real, finite results.
      {"pow.Tensor_Tensor",
       DtypeSet::All,
       Values::Positive,
       Values::Unit,
       true,
       {Variant{}},
       pow_extras},
      {"maximum", DtypeSet::All, Values::Normal, Values::Normal},
      {"minimum", DtypeSet::All, Values::Normal, Values::Normal},
      // Ties: equal elements occur, so every comparison sees both results.
      {"eq.Tensor", DtypeSet::All, Values::Ties, Values::Ties},
      {"ne.Tensor", DtypeSet::All, Values::Ties, Values::Ties},
      {"lt.Tensor", DtypeSet::All, Values::Ties, Values::Ties},
      {"le.Tensor", DtypeSet::All, Values::Ties, Values::Ties},
      {"gt.Tensor", DtypeSet::All, Values::Ties, Values::Ties},
      {"ge.Tensor", DtypeSet::All, Values::Ties, Values::Ties},
      {"logical_and", DtypeSet::All, Values::Ties, Values::Ties},
      {"logical_or", DtypeSet::All, Values::Ties, Values::Ties},
  };
  return ops;
}

// ---- .Scalar forms --------------------------------------------------------------------------

struct NamedScalar {
  const char* name;
  Scalar value;
};

struct ScalarOp {
  const char* name;
  DtypeSet dtypes;
  Values self_values;
  // The scalars of the quick samples, per case dtype; the first one is used for the
  // layout samples.
  std::vector<NamedScalar> (*scalars)(ScalarType);
  std::vector<Variant> variants = {Variant{}};
  Extras extras = nullptr;
};

std::vector<NamedScalar> arithmetic_scalars(ScalarType) {
  return {{"int_scalar", Scalar(int64_t{3})},
          {"float_scalar", Scalar(2.5)},
          {"negative_scalar", Scalar(int64_t{-7})},
          {"bool_scalar", Scalar(true)}};
}

std::vector<NamedScalar> sub_scalars(ScalarType) {
  return {{"int_scalar", Scalar(int64_t{3})},
          {"float_scalar", Scalar(2.5)},
          {"negative_scalar", Scalar(int64_t{-7})}};
}

// Division by a zero scalar gives +-Inf and NaN (integers are divided as floats).
std::vector<NamedScalar> div_scalars(ScalarType) {
  return {{"int_scalar", Scalar(int64_t{3})},
          {"float_scalar", Scalar(2.5)},
          {"negative_scalar", Scalar(int64_t{-7})},
          {"zero_scalar", Scalar(int64_t{0})}};
}

std::vector<NamedScalar> div_mode_scalars(ScalarType) {
  return {{"int_scalar", Scalar(int64_t{3})},
          {"float_scalar", Scalar(2.5)},
          {"negative_scalar", Scalar(int64_t{-7})},
          {"negative_float_scalar", Scalar(-0.75)}};
}

// Integral tensors refuse negative integer exponents (an error sample checks that).
std::vector<NamedScalar> pow_scalars(ScalarType dt) {
  std::vector<NamedScalar> s = {{"square", Scalar(int64_t{2})},
                                {"cube", Scalar(int64_t{3})},
                                {"zero_exponent", Scalar(int64_t{0})},
                                {"sqrt_exponent", Scalar(0.5)}};
  if (is_floating(dt)) {
    s.push_back({"negative_int_exponent", Scalar(int64_t{-2})});
    s.push_back({"negative_float_exponent", Scalar(-1.5)});
  }
  return s;
}

std::vector<NamedScalar> compare_scalars(ScalarType) {
  return {{"int_scalar", Scalar(int64_t{0})},
          {"float_scalar", Scalar(0.5)},
          {"negative_scalar", Scalar(int64_t{-1})},
          {"nan_scalar", Scalar(kNaN)},
          {"inf_scalar", Scalar(kInf)}};
}

void add_scalar_form_samples(std::vector<Sample>& out, const ScalarOp& op, ScalarType dt,
                             const Variant& v) {
  const Values sv = op.self_values;
  const std::vector<IValue> tail = v.tail;
  const std::vector<NamedScalar> scalars = op.scalars(dt);
  const Scalar first = scalars.front().value;
  auto add = [&](const std::string& name, bool quick, MakeArgs make) {
    out.push_back(quick && v.quick ? quick_sample(v.prefix + name, std::move(make))
                                   : full_sample(v.prefix + name, std::move(make)));
  };
  auto call_with = [tail](Tensor x, Scalar s) {
    Args args{IValue(std::move(x)), IValue(s)};
    args.insert(args.end(), tail.begin(), tail.end());
    return args;
  };
  for (const NamedScalar& s : scalars) {
    const Scalar value = s.value;
    add(std::string(s.name) + "_7x13", true, [=](InputMaker& in) {
      return call_with(in.tensor({7, 13}, dt, sv), value);
    });
  }
  auto shaped = [&](const std::string& name, bool quick, Shape sizes, Layout layout,
                    Values values) {
    add(name, quick, [=](InputMaker& in) {
      return call_with(in.tensor(as_ref(sizes), dt, values, layout), first);
    });
  };
  shaped("scalar_0d", true, {}, Layout::Contiguous, sv);
  shaped("empty_0x5", true, {0, 5}, Layout::Contiguous, sv);
  shaped("transposed_17x9", true, {17, 9}, Layout::Transposed, sv);
  shaped("strided_5x8", true, {5, 8}, Layout::Strided, sv);
  shaped("special_values", true, {4, 8}, Layout::Contiguous, Values::Special);
  shaped("offset_33", false, {33}, Layout::Offset, sv);
  shaped("permuted_3x4x5", false, {3, 4, 5}, Layout::Permuted, sv);
  shaped("odd_1031", false, {1031}, Layout::Contiguous, sv);
  shaped("wide_1031", false, {1031}, Layout::Contiguous, Values::Wide);
  shaped("large_263x251", false, {263, 251}, Layout::Contiguous, sv);
}

std::vector<Sample> scalar_form_samples(const ScalarOp& op, ScalarType dt) {
  std::vector<Sample> out;
  for (const Variant& v : op.variants) add_scalar_form_samples(out, op, dt, v);
  if (op.extras != nullptr) op.extras(out, dt);
  return out;
}

void add_scalar_extras(std::vector<Sample>& out, ScalarType dt) {
  alpha_samples(out, dt, true);
}

void sub_scalar_extras(std::vector<Sample>& out, ScalarType dt) {
  alpha_samples(out, dt, true);
  out.push_back(
      error_sample("error_bool_scalar", "bool tensors are not supported", [dt](InputMaker& in) {
        Tensor x = in.tensor({3, 4}, dt);
        return Args{x, IValue(Scalar(true))};
      }));
}

void div_scalar_mode_extras(std::vector<Sample>& out, ScalarType dt) {
  if (is_integral(dt, /*include_bool=*/true)) {
    out.push_back(error_sample("error_division_by_zero", "division by zero", [dt](InputMaker& in) {
      Tensor x = in.tensor({2, 3}, dt, Values::Positive);
      return Args{x, IValue(Scalar(int64_t{0})), IValue("floor")};
    }));
  }
  out.push_back(error_sample("error_bad_rounding_mode", "rounding_mode", [dt](InputMaker& in) {
    Tensor x = in.tensor({3, 4}, dt);
    return Args{x, IValue(Scalar(int64_t{2})), IValue("ceil")};
  }));
}

void pow_scalar_extras(std::vector<Sample>& out, ScalarType dt) {
  if (is_integral(dt, /*include_bool=*/true)) {
    out.push_back(error_sample("error_negative_int_exponent", "negative integer powers",
                               [dt](InputMaker& in) {
                                 Tensor x = in.tensor({3, 4}, dt);
                                 return Args{x, IValue(Scalar(int64_t{-2}))};
                               }));
  }
  if (dt == ScalarType::Bool) {
    out.push_back(
        error_sample("error_bool_exponent", "bool tensors are not supported", [](InputMaker& in) {
          Tensor x = in.mask({3, 4});
          return Args{x, IValue(Scalar(true))};
        }));
  }
}

const std::vector<ScalarOp>& scalar_ops() {
  static const std::vector<ScalarOp> ops = {
      {"add.Scalar",
       DtypeSet::All,
       Values::Normal,
       arithmetic_scalars,
       {Variant{}},
       add_scalar_extras},
      {"sub.Scalar", DtypeSet::NoBool, Values::Normal, sub_scalars, {Variant{}}, sub_scalar_extras},
      {"mul.Scalar", DtypeSet::All, Values::Normal, arithmetic_scalars},
      {"div.Scalar", DtypeSet::All, Values::Normal, div_scalars},
      {"div.Scalar_mode",
       DtypeSet::All,
       Values::Wide,
       div_mode_scalars,
       {Variant{"trunc_", {IValue("trunc")}}, Variant{"floor_", {IValue("floor")}},
        Variant{"none_", {IValue()}, false}},
       div_scalar_mode_extras},
      {"pow.Tensor_Scalar",
       DtypeSet::All,
       Values::Positive,
       pow_scalars,
       {Variant{}},
       pow_scalar_extras},
      {"eq.Scalar", DtypeSet::All, Values::Ties, compare_scalars},
      {"ne.Scalar", DtypeSet::All, Values::Ties, compare_scalars},
      {"lt.Scalar", DtypeSet::All, Values::Ties, compare_scalars},
      {"le.Scalar", DtypeSet::All, Values::Ties, compare_scalars},
      {"gt.Scalar", DtypeSet::All, Values::Ties, compare_scalars},
      {"ge.Scalar", DtypeSet::All, Values::Ties, compare_scalars},
  };
  return ops;
}

}  // namespace

void add_binary_records(std::vector<OpRecord>& out) {
  for (const TensorOp& op : tensor_ops()) {
    const TensorOp* p = &op;  // the table is static: rows outlive the records
    out.push_back(OpRecord{op.name, dtypes_of(op.dtypes),
                           [p](ScalarType dt) { return tensor_form_samples(*p, dt); }});
  }
  for (const ScalarOp& op : scalar_ops()) {
    const ScalarOp* p = &op;
    out.push_back(OpRecord{op.name, dtypes_of(op.dtypes),
                           [p](ScalarType dt) { return scalar_form_samples(*p, dt); }});
  }
}

}  // namespace bp::conformance::detail
