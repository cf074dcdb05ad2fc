// Deriving the aten -> Backplane mapping from the two catalogs (op_mapping.hpp).
#include "op_mapping.hpp"

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <regex>
#include <string_view>

namespace bp::torch_bridge {
namespace {

// aten primitives whose Backplane op has another name, by the aten name of their
// functional form (an out= form is looked up by its base name). `dim` is the rank aten requires of
// every tensor argument (matmul accepts more); `argument`/`value` an aten argument without
// a default that must hold that value for the Backplane op to compute the same thing, or that
// may hold any value (`any_value`: it changes nothing Backplane computes).
struct Alias {
  std::string_view aten_base;
  std::string_view backplane;
  int dim = -1;
  std::string_view argument = {};
  bool value = false;
  bool any_value = false;
};
constexpr Alias kAliases[] = {
    {"mm", "matmul", 2},
    {"bmm", "matmul", 3},
    {"_softmax", "softmax.int", -1, "half_to_float", false},
    {"_log_softmax", "log_softmax.int", -1, "half_to_float", false},
    // Reductions of every element are Backplane's dim reductions with dim=None (max and min
    // of every element are amax and amin over every dim: F.one_hot checks its classes so).
    {"sum", "sum.dim_IntList"},
    {"mean", "mean.dim"},
    {"max", "amax"},
    {"min", "amin"},
    // The in-place index_put that index's gradient calls: `unsafe` only skips PyTorch's
    // bounds checks, and Backplane checks the indices either way.
    {"_index_put_impl", "index_put", -1, "unsafe", false, true},
};

const Alias* find_alias(std::string_view aten_base) {
  for (const Alias& alias : kAliases)
    if (alias.aten_base == aten_base) return &alias;
  return nullptr;
}

// A schema type as text both sides agree on: SymInt is int, list lengths are dropped
// ("int[1]?" -> "int[]?").
std::string normalised(std::string type) {
  static const std::regex symint("SymInt");
  static const std::regex fixed_length("\\[[0-9]+\\]");
  type = std::regex_replace(type, symint, "int");
  return std::regex_replace(type, fixed_length, "[]");
}

// real_type: the schema's own type (ScalarType?, Layout?), not the JIT's stand-in (int?).
std::string type_text(const c10::Argument& argument) {
  return normalised(argument.real_type()->str());
}

bool is_write(const c10::Argument& argument) {
  return argument.alias_info() != nullptr && argument.alias_info()->isWrite();
}

// The values of an aten argument Backplane lacks under which the Backplane op computes the
// same: its default (None for an optional without one), and for the factory arguments the
// explicit forms of "no pinning" and "strided".
std::vector<c10::IValue> neutral_values(const c10::Argument& argument) {
  std::vector<c10::IValue> values{argument.default_value() ? *argument.default_value()
                                                           : c10::IValue()};
  if (argument.name() == "pin_memory") values.emplace_back(false);
  if (argument.name() == "layout") values.emplace_back(static_cast<int64_t>(at::kStrided));
  return values;
}

// A random op's `int seed, int offset` (keyword-only, no default) stand for aten's
// `Generator? generator` (when it has one): the seed is drawn per call (generic_kernel.cpp).
bool is_random_position(const Argument& wanted) {
  return (wanted.name == "seed" || wanted.name == "offset") && wanted.kwarg_only &&
         !wanted.default_value && wanted.type.kind == TypeKind::Int && !wanted.type.is_list;
}

// Matches the Backplane op's arguments to the aten arguments that are not outs; fills
// sources and required. Returns false when they do not correspond.
bool match_arguments(const OpDef& op, const c10::FunctionSchema& schema,
                     const std::vector<bool>& is_out, const Alias* alias, OpMapping& mapping) {
  const std::vector<c10::Argument>& aten = schema.arguments();
  std::vector<bool> used(aten.size(), false);
  mapping.sources.assign(op.schema.arguments.size(), -1);
  for (size_t j = 0; j < op.schema.arguments.size(); ++j) {
    const Argument& wanted = op.schema.arguments[j];
    if (is_random_position(wanted)) {
      mapping.sources[j] = wanted.name == "seed" ? kDrawnSeed : kZeroOffset;
      mapping.draws_seed = true;
      for (size_t i = 0; i < aten.size(); ++i)
        if (aten[i].name() == "generator" && !used[i]) {
          mapping.generator = static_cast<int>(i);
          used[i] = true;
        }
      continue;
    }
    int found = -1;
    for (size_t i = 0; i < aten.size(); ++i)
      if (!is_out[i] && !used[i] && aten[i].name() == wanted.name) found = static_cast<int>(i);
    // An alias may name a positional argument differently (mm's mat2 is matmul's other).
    if (found < 0 && alias != nullptr && j < aten.size() && !is_out[j] && !used[j] &&
        type_text(aten[j]) == normalised(wanted.type.str()))
      found = static_cast<int>(j);
    if (found < 0) {
      // Left to its default; an optional without one is None.
      if (!wanted.default_value && !wanted.type.is_optional) return false;
      continue;
    }
    if (type_text(aten[found]) != normalised(wanted.type.str())) return false;
    mapping.sources[j] = found;
    used[found] = true;
  }
  for (size_t i = 0; i < aten.size(); ++i) {
    if (is_out[i] || used[i]) continue;
    if (alias != nullptr && aten[i].name() == alias->argument && alias->any_value) continue;
    if (alias != nullptr && aten[i].name() == alias->argument) {
      mapping.required.push_back(
          {static_cast<int>(i), aten[i].name(), {c10::IValue(alias->value)}});
    } else if (aten[i].default_value() || aten[i].type()->kind() == c10::TypeKind::OptionalType) {
      mapping.required.push_back({static_cast<int>(i), aten[i].name(), neutral_values(aten[i])});
    } else {
      return false;
    }
  }
  return true;
}

// The candidate Backplane ops: by name for functional and in-place forms; for out= forms
// every functional op of the same base name (the arguments pick one). May hold nullptr.
std::vector<const OpDef*> candidate_ops(CallForm form, const Alias* alias,
                                        std::string_view functional_base,
                                        const std::string& suffix) {
  const Catalog& catalog = Catalog::get();
  std::vector<const OpDef*> candidates;
  if (alias != nullptr) {
    candidates.push_back(catalog.find(alias->backplane));
    if (form != CallForm::Out) return candidates;
    // An out= form named by its base (max.dim_max, for aliased max) may also be the out form
    // of a Backplane op of that base name: the arguments and outputs pick.
    for (const OpDef& op : catalog.ops())
      if (op.schema.name == functional_base) candidates.push_back(&op);
  } else if (form == CallForm::Out) {
    for (const OpDef& op : catalog.ops())
      if (op.schema.name == functional_base) candidates.push_back(&op);
  } else {
    candidates.push_back(catalog.find(std::string(functional_base) + suffix));
  }
  return candidates;
}

// Of the candidates whose outputs and arguments fit, the one that needs the fewest aten
// arguments pinned to their defaults; `mapping` has everything but the op.
std::optional<OpMapping> closest_match(const std::vector<const OpDef*>& candidates,
                                       const c10::FunctionSchema& schema,
                                       const std::vector<bool>& is_out, const Alias* alias,
                                       const OpMapping& mapping) {
  std::optional<OpMapping> best;
  for (const OpDef* op : candidates) {
    if (op == nullptr || op->mutated_arg >= 0) continue;
    if (mapping.form == CallForm::Out && op->num_outputs() != mapping.written.size()) continue;
    if (mapping.form != CallForm::Out && op->num_outputs() != schema.returns().size()) continue;
    OpMapping candidate = mapping;
    candidate.op = op->id;
    if (!match_arguments(*op, schema, is_out, alias, candidate)) continue;
    if (!best || candidate.required.size() < best->required.size()) best = std::move(candidate);
  }
  return best;
}

// The mapping of one aten operator, or nullopt.
std::optional<OpMapping> map_operator(const c10::OperatorHandle& handle) {
  const c10::FunctionSchema& schema = handle.schema();
  const c10::OperatorName& name = handle.operator_name();
  std::string_view base = name.name;
  if (!base.starts_with("aten::")) return std::nullopt;
  base.remove_prefix(6);
  const std::string overload = name.overload_name;
  const std::string suffix = overload.empty() ? "" : "." + overload;
  const std::vector<c10::Argument>& arguments = schema.arguments();

  OpMapping mapping;
  mapping.aten_name = std::string(base) + suffix;
  mapping.aten_argument_count = static_cast<int>(arguments.size());
  std::vector<bool> is_out(arguments.size(), false);
  for (size_t i = 0; i < arguments.size(); ++i)
    if (arguments[i].kwarg_only() && is_write(arguments[i])) {
      is_out[i] = true;
      mapping.written.push_back(static_cast<int>(i));
    }
  const bool writes_self = !arguments.empty() && is_write(arguments[0]);
  const Catalog& catalog = Catalog::get();

  // A Backplane op that mutates its argument under the same name (copy_, fill_.Tensor).
  if (const OpDef* op = catalog.find(mapping.aten_name);
      op != nullptr && op->mutated_arg == 0 && writes_self && mapping.written.empty()) {
    mapping.op = op->id;
    mapping.form = CallForm::Mutating;
    mapping.written = {0};
    if (!match_arguments(*op, schema, is_out, nullptr, mapping)) return std::nullopt;
    return mapping;
  }
  if (schema.is_mutable() && mapping.written.empty() && !(writes_self && base.ends_with('_')))
    return std::nullopt;  // mutates something other than a self or out (not ours)

  std::string_view functional_base = base;
  if (mapping.written.empty() && writes_self) {
    functional_base.remove_suffix(1);  // add_ -> add
    mapping.form = CallForm::InPlace;
    mapping.written = {0};
  } else if (!mapping.written.empty()) {
    mapping.form = CallForm::Out;
  }
  // Functional and in-place forms look up their own overload; out= forms their base name.
  const Alias* alias =
      find_alias(mapping.form == CallForm::Out ? std::string(functional_base)
                                               : std::string(functional_base) + suffix);
  if (alias != nullptr) mapping.required_dim = alias->dim;

  const std::vector<const OpDef*> candidates =
      candidate_ops(mapping.form, alias, functional_base, suffix);
  return closest_match(candidates, schema, is_out, alias, mapping);
}

}  // namespace

std::string_view to_string(CallForm form) {
  switch (form) {
    case CallForm::Functional:
      return "functional";
    case CallForm::InPlace:
      return "in-place";
    case CallForm::Out:
      return "out";
    case CallForm::Mutating:
      return "mutating";
  }
  return "?";
}

std::vector<OpMapping> derive_mappings() {
  c10::Dispatcher& dispatcher = c10::Dispatcher::singleton();
  std::vector<OpMapping> mappings;
  for (const c10::OperatorName& name : dispatcher.getAllOpNames()) {
    const auto handle = dispatcher.findSchema(name);
    if (!handle) continue;
    if (handle->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd) ||
        handle->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1))
      continue;
    if (std::optional<OpMapping> mapping = map_operator(*handle))
      mappings.push_back(std::move(*mapping));
  }
  return mappings;
}

}  // namespace bp::torch_bridge
