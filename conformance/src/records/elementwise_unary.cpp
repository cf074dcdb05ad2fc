// Conformance records of the elementwise unary ops (neg ... logical_not, gelu in both
// approximations, silu): one table row per op with the dtypes it accepts and the values
// that make its results meaningful, and one list of samples every row gets (every layout,
// 0-d, empty, odd sizes for SIMD tails, special values, integer extremes, large sizes).
#include "elementwise_common.hpp"

namespace bp::conformance::detail {
namespace {

struct UnaryOp {
  const char* name;
  DtypeSet dtypes;
  // Values of the ordinary samples: Positive where the function is only real there.
  Values domain;
  // Also run on Values::Wide (floats ~ N(0, 1000), integers over the whole range): argument
  // reduction for sin/cos, saturation for tanh/sigmoid/erf, wrap-around of neg/abs on ints.
  bool wide;
};

// exp ... erf on integral and bool inputs compute in the default float dtype (the host
// converts), so every dtype is a valid case dtype for them.
constexpr UnaryOp kUnaryOps[] = {
    {"neg", DtypeSet::NoBool, Values::Normal, true},
    {"abs", DtypeSet::NoBool, Values::Normal, true},
    {"sign", DtypeSet::All, Values::Normal, true},
    {"exp", DtypeSet::All, Values::Normal, false},
    {"log", DtypeSet::All, Values::Positive, false},
    {"sqrt", DtypeSet::All, Values::Positive, false},
    {"rsqrt", DtypeSet::All, Values::Positive, false},
    {"reciprocal", DtypeSet::All, Values::Normal, true},
    {"sin", DtypeSet::All, Values::Normal, true},
    {"cos", DtypeSet::All, Values::Normal, true},
    {"tanh", DtypeSet::All, Values::Normal, true},
    {"sigmoid", DtypeSet::All, Values::Normal, true},
    {"erf", DtypeSet::All, Values::Normal, true},
    {"relu", DtypeSet::NoBool, Values::Normal, true},
    {"gelu", DtypeSet::Floating, Values::Normal, true},
    {"silu", DtypeSet::Floating, Values::Normal, true},
    {"floor", DtypeSet::NoBool, Values::Normal, true},
    {"ceil", DtypeSet::NoBool, Values::Normal, true},
    // Ties: many zeros, so both results occur.
    {"logical_not", DtypeSet::All, Values::Ties, false},
};

struct Shaped {
  const char* name;
  Shape sizes;
  Layout layout;
  bool quick;
};

// The ordinary samples: one per layout, 0-d, empty, SIMD-tail and OpenMP-threshold sizes.
const std::vector<Shaped>& shaped_samples() {
  static const std::vector<Shaped> samples = {
      {"contiguous_7x13", {7, 13}, Layout::Contiguous, true},
      {"scalar_0d", {}, Layout::Contiguous, true},
      {"empty_0x5", {0, 5}, Layout::Contiguous, true},
      {"transposed_17x9", {17, 9}, Layout::Transposed, true},
      {"strided_5x8", {5, 8}, Layout::Strided, true},
      {"offset_33", {33}, Layout::Offset, true},
      {"permuted_3x4x5", {3, 4, 5}, Layout::Permuted, false},
      {"odd_127", {127}, Layout::Contiguous, false},
      {"odd_1031", {1031}, Layout::Contiguous, false},
      {"transposed_33x31", {33, 31}, Layout::Transposed, false},
      // 66013 elements: past the CPU plugin's 64K OpenMP threshold, with a SIMD tail.
      {"large_263x251", {263, 251}, Layout::Contiguous, false},
      {"large_strided_257x255", {257, 255}, Layout::Strided, false},
  };
  return samples;
}

// `prefix` names a variant of the op's trailing arguments (gelu's approximation).
void add_unary_samples(std::vector<Sample>& out, const UnaryOp& op, ScalarType dt,
                       const std::string& prefix, const std::vector<IValue>& extra) {
  auto args_of = [extra](Tensor t) {
    std::vector<IValue> args{IValue(std::move(t))};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  const Values domain = op.domain;
  for (const Shaped& s : shaped_samples()) {
    Shape sizes = s.sizes;
    const Layout layout = s.layout;
    MakeArgs make = [=](InputMaker& in) {
      return args_of(in.tensor(as_ref(sizes), dt, domain, layout));
    };
    out.push_back(s.quick ? quick_sample(prefix + s.name, make)
                          : full_sample(prefix + s.name, make));
  }
  // NaN, +-Inf, -0, subnormals, extremes, rounding ties (floor/ceil); integer min/max
  // (abs(INT_MIN) wraps to INT_MIN as in PyTorch). 32 elements: every special value and
  // ordinary neighbours.
  out.push_back(quick_sample(prefix + "special_values", [=](InputMaker& in) {
    return args_of(in.tensor({4, 8}, dt, Values::Special));
  }));
  out.push_back(full_sample(prefix + "special_strided_6x9", [=](InputMaker& in) {
    return args_of(in.tensor({6, 9}, dt, Values::Special, Layout::Strided));
  }));
  if (op.wide || !is_floating(dt)) {
    out.push_back(full_sample(prefix + "wide_1031", [=](InputMaker& in) {
      return args_of(in.tensor({1031}, dt, Values::Wide));
    }));
  }
}

std::vector<Sample> unary_samples(const UnaryOp& op, ScalarType dt) {
  std::vector<Sample> out;
  if (std::string_view(op.name) != "gelu") {
    add_unary_samples(out, op, dt, "", {});
    return out;
  }
  // gelu: every sample in both approximations; the default (omitted argument) once more.
  add_unary_samples(out, op, dt, "", {IValue("none")});
  add_unary_samples(out, op, dt, "tanh_", {IValue("tanh")});
  out.push_back(quick_sample("default_approximate_7x13", [dt](InputMaker& in) {
    return std::vector<IValue>{in.tensor({7, 13}, dt)};
  }));
  out.push_back(error_sample("error_bad_approximate", "approximate", [dt](InputMaker& in) {
    return std::vector<IValue>{in.tensor({3, 4}, dt), IValue("sigmoid")};
  }));
  return out;
}

}  // namespace

void add_unary_records(std::vector<OpRecord>& out) {
  for (const UnaryOp& op : kUnaryOps) {
    out.push_back(OpRecord{op.name, dtypes_of(op.dtypes),
                           [op](ScalarType dt) { return unary_samples(op, dt); }});
  }
}

}  // namespace bp::conformance::detail
