// The operator catalog: parses each registered schema into an OpDef, assigns OpIds in
// registration order, and answers lookups by name (with "did you mean" suggestions).
#include "backplane/core/catalog.hpp"

#include "ops/register.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <tuple>

namespace bp {
namespace {

// Levenshtein distance, for suggesting close operator names.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];  // row[i-1][j-1]
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

std::string_view base_name(std::string_view full_name) {
  return full_name.substr(0, full_name.find('.'));
}

// Up to three names close to `query`: by distance to the full name or to the name without
// its overload (so "add" suggests "add.Tensor" and "add.Scalar"); ties go to the closer full
// name, then alphabetically.
std::vector<std::string_view> close_names(std::span<const OpDef> ops, std::string_view query) {
  const size_t limit = std::max<size_t>(2, query.size() / 3);
  std::vector<std::tuple<size_t, size_t, std::string_view>> scored;
  for (const OpDef& op : ops) {
    const size_t full = edit_distance(query, op.name);
    const size_t d = std::min(full, edit_distance(base_name(query), base_name(op.name)));
    if (d <= limit) scored.emplace_back(d, full, op.name);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string_view> out;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(std::get<2>(scored[i]));
  return out;
}

Catalog build_catalog() {
  Catalog c;
  ops::register_data_movement_ops(c);
  ops::register_unary_ops(c);
  ops::register_binary_ops(c);
  ops::register_reduction_ops(c);
  ops::register_nn_ops(c);
  ops::register_linalg_ops(c);
  ops::register_activation_backward_ops(c);
  ops::register_nn_backward_ops(c);
  ops::register_loss_ops(c);
  ops::register_pointwise_ops(c);
  ops::register_indexed_write_ops(c);
  ops::register_mask_ops(c);
  ops::register_statistics_ops(c);
  ops::register_scan_ops(c);
  ops::register_extreme_dim_ops(c);
  ops::register_convolution_primitives(c);
  ops::register_convolution_composites(c);
  ops::register_pooling_ops(c);
  ops::register_batch_norm_ops(c);
  ops::register_group_norm_ops(c);
  ops::register_hardtanh_ops(c);
  ops::register_random_ops(c);
  ops::register_sort_ops(c);
  ops::register_scatter_ops(c);
  ops::register_nonzero_ops(c);
  ops::register_advanced_indexing_ops(c);
  return c;
}

}  // namespace

const Catalog& Catalog::get() {
  // Built on first use; C++ guarantees one thread builds it while others wait.
  static const Catalog catalog = build_catalog();
  return catalog;
}

void Catalog::add(const OpRegistration& reg) {
  OpDef def;
  def.schema = parse_schema(reg.schema, "catalog schema");
  def.name = def.schema.full_name();
  BP_CHECK(index_.find(def.name) == index_.end(), ErrorCode::Internal,
           "catalog: operator '{}' is registered twice", def.name);
  BP_CHECK(reg.meta != nullptr, ErrorCode::Internal, "catalog: operator '{}' has no meta rule",
           def.name);
  BP_CHECK((reg.kind == OpKind::Composite) == (reg.decompose != nullptr), ErrorCode::Internal,
           "catalog: operator '{}': a composite needs a decomposition and a primitive has none",
           def.name);
  for (size_t i = 0; i < def.schema.arguments.size(); ++i) {
    // The plugin ABI's tensor lists have no None entries (bp_call, plugin.h).
    BP_CHECK(!def.schema.arguments[i].type.optional_elements || reg.kind == OpKind::Composite,
             ErrorCode::Internal, "catalog: operator '{}': a Tensor?[] argument needs a composite",
             def.name);
    const auto& alias = def.schema.arguments[i].alias;
    if (!alias || !alias->is_write) continue;
    BP_CHECK(def.mutated_arg < 0, ErrorCode::Internal,
             "catalog: operator '{}' writes more than one argument", def.name);
    def.mutated_arg = static_cast<int>(i);
  }
  def.id = static_cast<OpId>(ops_.size());
  def.kind = reg.kind;
  def.meta = reg.meta;
  def.decompose = reg.decompose;
  def.can_fall_back = reg.can_fall_back;
  index_.emplace(def.name, def.id);
  ops_.push_back(std::move(def));
}

const OpDef* Catalog::find(std::string_view full_name) const {
  const auto it = index_.find(std::string(full_name));
  return it == index_.end() ? nullptr : &ops_[it->second];
}

const OpDef& Catalog::at(std::string_view full_name) const {
  if (const OpDef* op = find(full_name)) return *op;
  const std::vector<std::string_view> close = close_names(ops_, full_name);
  std::string hint;
  if (!close.empty()) {
    hint = "; did you mean ";
    for (size_t i = 0; i < close.size(); ++i) {
      hint += fmt::format("{}'{}'", i == 0 ? "" : i + 1 == close.size() ? " or " : ", ", close[i]);
    }
    hint += "?";
  }
  BP_FAIL(ErrorCode::NotImplemented, "unknown operator '{}'{}", full_name, hint);
}

OpId op_id(std::string_view full_name) {
  return Catalog::get().at(full_name).id;
}

}  // namespace bp
