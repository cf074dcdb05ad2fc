// The op reference of `backplane ops --markdown` (op_reference.hpp): the catalog, the
// conformance records and the family texts of op_reference_text.cpp, as Markdown.
#include "op_reference.hpp"

#include <backplane/conformance/records.hpp>
#include <backplane/core/catalog.hpp>
#include <backplane/core/error.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <utility>

namespace bp::cli {
namespace {

// For one input dtype of an op: the dtype its kernel is looked up by (and sees its
// converted inputs in) and the dtype of its output.
struct DtypeRoute {
  ScalarType input;
  ScalarType kernel;
  ScalarType output;
};

// The dtype a kernel is looked up by when the meta rule names none: the first tensor's.
ScalarType first_tensor_dtype(std::span<const IValue> args) {
  for (const IValue& a : args) {
    if (a.is_tensor()) return a.tensor().dtype();
    if (a.is_tensor_list())
      for (const Tensor& t : a.tensor_list())
        if (t.defined()) return t.dtype();
  }
  return ScalarType::Undefined;
}

// Runs the op's meta rule on the first sample (not an error input) of its record for
// `dtype`, as the conformance suite builds it: what a call of that dtype hands the kernel.
// Throws bp::Error naming the op and dtype when the record has no such sample.
DtypeRoute route(const OpDef& op, const conformance::OpRecord& record, ScalarType dtype) {
  for (const conformance::Sample& sample : record.samples(dtype)) {
    if (sample.expect_error) continue;
    conformance::InputMaker maker(0);
    std::vector<IValue> args = sample.make(maker);
    for (size_t i = args.size(); i < op.num_arguments(); ++i) {
      const auto& fallback = op.schema.arguments[i].default_value;
      args.push_back(fallback ? *fallback : IValue());
    }
    const MetaResult meta = op.meta(op, args);
    const ScalarType kernel =
        meta.compute_dtype != ScalarType::Undefined ? meta.compute_dtype : first_tensor_dtype(args);
    const ScalarType output = !meta.outputs.empty() ? meta.outputs[0].dtype
                              : op.mutated_arg >= 0 ? args[op.mutated_arg].tensor().dtype()
                                                    : kernel;
    return {dtype, kernel, output};
  }
  throw Error(ErrorCode::Internal,
              fmt::format("op reference: the conformance record of '{}' has no sample for {} "
                          "that the op accepts",
                          op.name, dtype_name(dtype)));
}

std::string dtype_list(const std::vector<ScalarType>& dtypes) {
  if (dtypes.size() == static_cast<size_t>(kNumScalarTypes)) return "all ten";
  std::vector<std::string> names;
  for (ScalarType t : dtypes) names.push_back(fmt::format("`{}`", dtype_name(t)));
  return fmt::format("{}", fmt::join(names, ", "));
}

// How the dtypes travel, grouped by what the kernel sees and what comes out: a dtype that
// is the same for every input is named, else it is "the input's" where it equals the input
// ("- input `i8`, `i16`: kernel dtype: the input's; output: `i64`").
std::string routes_text(const std::vector<DtypeRoute>& routes) {
  auto all_same = [&](ScalarType DtypeRoute::*field) {
    return std::all_of(routes.begin(), routes.end(),
                       [&](const DtypeRoute& r) { return r.*field == routes[0].*field; });
  };
  const bool fixed_kernel = all_same(&DtypeRoute::kernel);
  const bool fixed_output = all_same(&DtypeRoute::output);
  auto text = [](ScalarType t, ScalarType input, bool fixed) {
    return t == input && !fixed ? std::string("the input's") : fmt::format("`{}`", dtype_name(t));
  };
  std::vector<std::pair<std::string, std::vector<ScalarType>>> groups;  // first-seen order
  for (const DtypeRoute& r : routes) {
    const std::string key =
        fmt::format("kernel dtype: {}; output: {}", text(r.kernel, r.input, fixed_kernel),
                    text(r.output, r.input, fixed_output));
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(r.input);
  }
  std::string out;
  for (const auto& [key, inputs] : groups)
    out += fmt::format("- input {}: {}\n", dtype_list(inputs), key);
  return out;
}

// Throws unless every catalog op is described by exactly one family and every family
// names catalog ops only.
void check_families() {
  const Catalog& catalog = Catalog::get();
  std::map<std::string, const OpFamily*> family_of;
  std::vector<std::string> problems;
  for (const OpFamily& f : op_families())
    for (std::string_view op : f.ops) {
      if (!catalog.find(op))
        problems.push_back(
            fmt::format("family '{}' lists '{}', which the catalog does not have", f.title, op));
      else if (!family_of.emplace(std::string(op), &f).second)
        problems.push_back(fmt::format("'{}' is listed by two families", op));
    }
  std::vector<std::string> missing;
  for (const OpDef& op : catalog.ops())
    if (!family_of.count(op.name)) missing.push_back(op.name);
  if (!missing.empty())
    problems.push_back(
        fmt::format("no description of {} (add each to the `ops` of its family in "
                    "tools/backplane/op_reference_text.cpp, or give it a family of its own)",
                    fmt::join(missing, ", ")));
  if (!problems.empty())
    throw Error(ErrorCode::Internal, fmt::format("op reference: {}", fmt::join(problems, "; ")));
}

std::string op_entry(const OpDef& op) {
  const conformance::OpRecord* record = conformance::find_record(op.name);
  BP_CHECK(record, ErrorCode::Internal,
           "op reference: '{}' has no conformance record (conformance/src/records/), which "
           "says the dtypes it allows",
           op.name);
  std::vector<DtypeRoute> routes;
  for (ScalarType t : record->dtypes) routes.push_back(route(op, *record, t));
  return fmt::format("### `{}`\n\n```\n{}\n```\n\n- {}; dtypes: {}\n{}", op.name, op.schema.str(),
                     op.kind == OpKind::Primitive
                         ? "primitive (a backend implements it)"
                         : "composite (core decomposes it; a backend may override it)",
                     dtype_list(record->dtypes), routes_text(routes));
}

constexpr std::string_view kPreamble =
    R"(# Op reference

<!-- Generated by `backplane ops --markdown` from the operator catalog, the conformance
records and tools/backplane/op_reference_text.cpp. Do not edit: the docs/op_reference test
fails when this file differs from what the program prints, and says how to regenerate it. -->

Every operator of op set v1, grouped by family. For each op: its schema (PyTorch's;
[schema.md](schema.md) has the language), whether it is a **primitive** (a backend that
claims full coverage implements it) or a **composite** (core decomposes it into other ops; a
backend may register a fused kernel instead), the **dtypes** it allows, and for each input
dtype the dtype its kernel is looked up by and sees its converted inputs in, and the dtype
of its output. For each family: **what a kernel receives** (the canonical form the meta
rule puts the arguments in) and the **edge semantics** (conversions, special values,
overflow, rounding) that the reference backend implements and the conformance suite
checks.

The dtypes are those of the op's conformance record (the dtype part of its case ids); the
dtype routes come from running the op's meta rule on the record's first sample of each
dtype, so where an argument changes them (`sum`'s `dtype=`) they show the sample's call.

What holds for every op ([ops.md](ops.md), "What a kernel receives"):

- A kernel is the **out-variant** of the functional op: the op's arguments in schema order,
  then its outputs, already allocated with the meta rule's shapes and dtypes. Ops that write
  an argument (`copy_`, `fill_`) have no appended output.
- Inputs of elementwise ops are **expanded** (stride 0) to the output's shape.
- Any tensor may be **strided**: non-contiguous, transposed, sliced with steps, 0-strides,
  a byte offset. Outputs never partially overlap inputs; an in-place call passes the same
  view as input and output.
- Every `int dim` is **wrapped** into `[0, ndim)`.
- Inputs are converted to the kernel's dtype by the dispatcher with the device's `copy_`,
  by the conversion rules of [copy_](#copy-and-dtype-conversion).

The dtypes are `bool`, `i8`, `u8`, `i16`, `i32`, `i64`, `f16`, `bf16`, `f32`, `f64`; "all ten"
means every one of them.
)";

// GitHub's anchor of a heading: lowercase, spaces to '-', punctuation dropped.
std::string anchor(std::string_view title) {
  std::string out;
  for (char c : title) {
    if (c == ' ')
      out += '-';
    else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')
      out += c;
    else if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string op_reference_markdown() {
  check_families();
  const Catalog& catalog = Catalog::get();
  std::string out(kPreamble);

  out += "\n## Families\n\n| family | ops |\n| --- | --- |\n";
  for (const OpFamily& f : op_families()) {
    std::vector<std::string> names;
    for (std::string_view op : f.ops) names.push_back(fmt::format("`{}`", op));
    out += fmt::format("| [{}](#{}) | {} |\n", f.title, anchor(f.title), fmt::join(names, " "));
  }
  for (const OpFamily& f : op_families()) {
    out +=
        fmt::format("\n## {}\n\n**What a kernel receives.**\n\n{}\n\n**Edge semantics.**\n\n{}\n",
                    f.title, f.receives, f.edges);
    for (std::string_view name : f.ops) out += "\n" + op_entry(catalog.at(name));
  }
  while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

}  // namespace bp::cli
