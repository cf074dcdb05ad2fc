// The registry of op records (records.hpp): the groups' lists in catalog order.
#include "records_internal.hpp"

#include <backplane/core/catalog.hpp>

#include <algorithm>

namespace bp::conformance {

const std::vector<OpRecord>& op_records() {
  static const std::vector<OpRecord> records = [] {
    std::vector<OpRecord> all;
    detail::add_data_movement_records(all);
    detail::add_elementwise_records(all);
    detail::add_reduction_records(all);
    detail::add_nn_records(all);
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
