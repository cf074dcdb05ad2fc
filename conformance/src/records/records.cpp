// The registry of op records (records.hpp): the groups' lists in catalog order.
#include "records_internal.hpp"

#include "../written_args.hpp"

#include <backplane/core/catalog.hpp>

#include <algorithm>

namespace bp::conformance {
namespace {

// The layout variants every record gets in the quick suite: its first quick sample (not an
// error input) again, with every tensor input in another layout. A layout does not change
// what an op computes, so any sample of any op can take them; the groups' own samples hold
// the shapes (0-d, empty, odd sizes) and the layouts that need a particular shape.
// tests/conformance/test_records_layouts.cpp checks that each op and dtype then holds every
// class. `expanded` repeats a tensor's first slice (a stride-0 dim): other values than the
// base sample's, taken from them, so an index or a divisor stays valid. An argument an op
// writes (copy_'s, fill_'s, native_batch_norm's running statistics: written_args.hpp) is
// never expanded: a written view must not overlap itself.
struct LayoutVariant {
  const char* name;
  std::function<Tensor(const Tensor&)> apply;
  bool written_too;
};
const std::vector<LayoutVariant>& layout_variants() {
  static const std::vector<LayoutVariant> variants = {
      {"layout_transposed", [](const Tensor& t) { return relayout(t, Layout::Transposed); }, true},
      {"layout_strided", [](const Tensor& t) { return relayout(t, Layout::Strided); }, true},
      {"layout_offset", [](const Tensor& t) { return relayout(t, Layout::Offset); }, true},
      {"layout_expanded", expanded_first_slice, false},
  };
  return variants;
}

Sample layout_variant(const Sample& base, const LayoutVariant& variant, const OpDef& op) {
  Sample s = base;
  s.name = variant.name;
  s.make = [make = base.make, apply = variant.apply, written_too = variant.written_too,
            &op](InputMaker& maker) {
    std::vector<IValue> args = make(maker);
    for (size_t i = 0; i < args.size(); ++i) {
      if (writes_argument(op, i) && !written_too) continue;
      IValue& a = args[i];
      if (a.is_tensor() && a.tensor().defined()) {
        a = IValue(apply(a.tensor()));
      } else if (a.is_tensor_list()) {
        TensorList list;
        for (const Tensor& t : a.tensor_list()) list.push_back(t.defined() ? apply(t) : t);
        a = IValue(std::move(list));
      }
    }
    return args;
  };
  return s;
}

void add_layout_variants(OpRecord& record) {
  const OpDef& op = Catalog::get().at(record.op);  // the catalog outlives the records
  record.samples = [own = std::move(record.samples), &op](ScalarType dtype) {
    std::vector<Sample> samples = own(dtype);
    const auto base = std::find_if(samples.begin(), samples.end(),
                                   [](const Sample& s) { return s.quick && !s.expect_error; });
    if (base == samples.end()) return samples;
    const Sample first = *base;
    for (const LayoutVariant& v : layout_variants())
      samples.push_back(layout_variant(first, v, op));
    return samples;
  };
}

}  // namespace

const std::vector<OpRecord>& op_records() {
  static const std::vector<OpRecord> records = [] {
    std::vector<OpRecord> all;
    detail::add_data_movement_records(all);
    detail::add_elementwise_records(all);
    detail::add_reduction_records(all);
    detail::add_composite_overload_records(all);
    detail::add_nn_records(all);
    detail::add_gradient_records(all);
    detail::add_loss_and_optimizer_records(all);
    detail::add_indexed_write_records(all);
    detail::add_mask_and_statistics_records(all);
    detail::add_scan_and_selection_records(all);
    detail::add_convolution_records(all);
    detail::add_pooling_records(all);
    detail::add_batch_norm_records(all);
    detail::add_group_norm_records(all);
    detail::add_random_records(all);
    detail::add_hardtanh_records(all);
    detail::add_sort_records(all);
    detail::add_scatter_records(all);
    detail::add_indexing_records(all);
    for (OpRecord& record : all) add_layout_variants(record);
    const Catalog& catalog = Catalog::get();
    std::stable_sort(all.begin(), all.end(), [&](const OpRecord& a, const OpRecord& b) {
      return catalog.at(a.op).id < catalog.at(b.op).id;
    });
    return all;
  }();
  return records;
}

const OpRecord* find_record(std::string_view op) {
  for (const OpRecord& r : op_records())
    if (r.op == op) return &r;
  return nullptr;
}

std::vector<ScalarType> all_dtypes() {
  std::vector<ScalarType> out;
  for (int t = 0; t < kNumScalarTypes; ++t) out.push_back(static_cast<ScalarType>(t));
  return out;
}

std::vector<ScalarType> floating_dtypes() {
  return {ScalarType::Float16, ScalarType::BFloat16, ScalarType::Float32, ScalarType::Float64};
}

std::vector<ScalarType> numeric_dtypes() {
  std::vector<ScalarType> out;
  for (int t = 1; t < kNumScalarTypes; ++t) out.push_back(static_cast<ScalarType>(t));
  return out;
}

}  // namespace bp::conformance
