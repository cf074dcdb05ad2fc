// Helpers for the meta-rule tests (test_meta_*.cpp): run an operator's meta rule from the
// catalog on boxed arguments, with the schema's defaults filled in for the arguments not
// given, and capture the result, the canonicalised arguments or the error.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/core/error.hpp"

#include <doctest/doctest.h>

#include "test_support.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bp::test {

struct MetaCall {
  MetaResult result;
  std::vector<IValue> args;  // as the meta rule left them (what a kernel receives)

  const TensorMeta& out(size_t i = 0) const { return result.outputs.at(i); }
  // The shape the kernel sees output i as.
  Shape kernel_sizes(size_t i = 0) const {
    return out(i).kernel_sizes ? *out(i).kernel_sizes : out(i).sizes;
  }
};

// `args` followed by the schema defaults of the arguments not given.
inline std::vector<IValue> with_defaults(const OpDef& op, std::vector<IValue> args) {
  for (size_t i = args.size(); i < op.num_arguments(); ++i) {
    const auto& d = op.schema.arguments[i].default_value;
    REQUIRE_MESSAGE(d.has_value(), op.name, ": argument ", op.schema.arguments[i].name,
                    " has no default and was not given");
    args.push_back(*d);
  }
  return args;
}

inline MetaCall call_meta(std::string_view name, std::vector<IValue> args) {
  const OpDef& op = Catalog::get().at(name);
  args = with_defaults(op, std::move(args));
  MetaResult r = op.meta(op, args);
  return {std::move(r), std::move(args)};
}

// The bp::Error the meta rule throws (the test fails when it throws none).
inline Error meta_error(std::string_view name, std::vector<IValue> args) {
  try {
    call_meta(name, std::move(args));
  } catch (const Error& e) {
    return e;
  }
  FAIL(name, ": the meta rule threw no error");
  throw std::logic_error("unreachable");
}

// Runs decompositions on metadata alone: each call an op makes is checked (every schema
// argument given) and its meta rule run; primitives return fresh tensors with the meta
// rule's outputs, composites are decomposed in turn (with their canonicalised arguments, as
// the dispatcher does) and their outputs checked against their meta rule. `calls` and
// `call_args` record each call in order (a composite before the calls it makes), for checks
// such as "beta == 0 does not call add".
class RecordingContext final : public OpContext {
 public:
  std::vector<std::string> calls;
  std::vector<std::vector<IValue>> call_args;  // as given by the caller

  size_t count(std::string_view name) const {
    return static_cast<size_t>(std::count(calls.begin(), calls.end(), name));
  }
  // Arguments of the first call of `name`.
  const std::vector<IValue>& args_of(std::string_view name) const {
    const auto it = std::find(calls.begin(), calls.end(), name);
    REQUIRE_MESSAGE(it != calls.end(), name, " was not called");
    return call_args[static_cast<size_t>(it - calls.begin())];
  }

  std::vector<Tensor> call(OpId id, std::vector<IValue> args) override {
    const OpDef& op = Catalog::get().at(id);
    calls.push_back(op.name);
    call_args.push_back(args);
    CHECK_MESSAGE(args.size() == op.num_arguments(), op.name, " called with ", args.size(),
                  " arguments; its schema has ", op.num_arguments());
    MetaResult meta = op.meta(op, args);
    if (op.kind == OpKind::Composite) {
      std::vector<Tensor> outs = op.decompose(*this, args);
      REQUIRE(outs.size() == meta.outputs.size());
      for (size_t i = 0; i < outs.size(); ++i) {
        CHECK_MESSAGE(outs[i].sizes() == meta.outputs[i].sizes, op.name, " output ", i);
        CHECK_MESSAGE(outs[i].dtype() == meta.outputs[i].dtype, op.name, " output ", i);
      }
      return outs;
    }
    std::vector<Tensor> outs;
    for (const TensorMeta& m : meta.outputs) outs.push_back(make_tensor(m.sizes, m.dtype));
    return outs;
  }
  Tensor empty(IntArrayRef sizes, ScalarType dtype) override {
    return make_tensor(Shape(sizes.begin(), sizes.end()), dtype);
  }
  Tensor scalar_tensor(Scalar, ScalarType dtype) override {
    Tensor t = make_tensor({}, dtype);
    t.set_wrapped_number(true);
    return t;
  }
  // Metadata only: no values to read (a composite reading one is not meta-testable).
  Scalar item(const Tensor&) override {
    FAIL("a composite read a value in a metadata-only test");
    return Scalar(int64_t{0});
  }
};

// Decomposes composite `name` on `args` (defaults filled in, NOT canonicalised: a
// decomposition must work on arguments as the user gave them) and checks that its one
// output has the sizes and dtype its meta rule promises. Returns the context for more checks.
inline RecordingContext decompose_checked(std::string_view name, std::vector<IValue> args) {
  const OpDef& op = Catalog::get().at(name);
  REQUIRE(op.kind == OpKind::Composite);
  args = with_defaults(op, std::move(args));
  const MetaCall expected = call_meta(name, args);
  RecordingContext ctx;
  std::vector<Tensor> outs = op.decompose(ctx, args);
  REQUIRE(outs.size() == 1);
  CHECK(shape_str(as_ref(outs[0].sizes())) == shape_str(as_ref(expected.out().sizes)));
  CHECK(dtype_name(outs[0].dtype()) == dtype_name(expected.out().dtype));
  return ctx;
}

// Printable forms for CHECKs, so a failure shows the values: "[2, 3]", "f32".
inline std::string str(const Shape& s) {
  return shape_str(as_ref(s));
}
inline std::string str(ScalarType t) {
  return std::string(dtype_name(t));
}

}  // namespace bp::test
