// Shared by the op-record tests (test_records_*.cpp): the samples of a record checked the
// way the suite runs them — through run_case, in this process — on the reference backend
// (which checks the sample itself: it builds, runs, or is rejected with the expected text)
// and on the CPU plugin; and the reference's result of one named sample for spot checks
// against PyTorch's values.
#pragma once

#include <backplane/backplane.hpp>
#include <backplane/conformance/case_id.hpp>
#include <backplane/conformance/records.hpp>
#include <backplane/conformance/run_case.hpp>
#include <backplane/core/catalog.hpp>
#include <backplane/dispatch/dispatcher.hpp>

#include <doctest/doctest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace bp::test {

// cpu:0, loading the CPU plugin from the build tree unless this process already has it.
inline Device record_cpu_device() {
  static const Device device = [] {
    // Idle OpenMP workers spin by default and would double these tests' CPU time.
    ::setenv("OMP_WAIT_POLICY", "passive", /*overwrite=*/0);
    for (const PluginLoadReport& r : plugin_reports())
      if (r.plugin == "cpu" && r.status == LoadStatus::Loaded) return Device{device_types::CPU, 0};
    const PluginLoadReport r =
        load_plugin(std::string(BP_PLUGIN_DIR) + "/libbackplane_plugin_cpu.so");
    INFO(r.message);
    REQUIRE(r.status == LoadStatus::Loaded);
    return Device{device_types::CPU, 0};
  }();
  return device;
}

inline const conformance::OpRecord& record_of(const std::string& op) {
  const conformance::OpRecord* r = conformance::find_record(op);
  REQUIRE_MESSAGE(r != nullptr, "no record for " << op);
  return *r;
}

struct RecordCounts {
  int samples = 0;
  int quick = 0;
  int errors = 0;
};

// Every sample of every dtype of `op`'s record: a valid and unique name, error inputs in
// the quick suite, and for the quick samples a pass of the case (suite seed 0) on the
// reference and on cpu:0.
inline RecordCounts check_record(const std::string& op) {
  using namespace conformance;
  const OpRecord& record = record_of(op);
  RecordCounts counts;
  REQUIRE_FALSE(record.dtypes.empty());
  for (ScalarType dtype : record.dtypes) {
    std::set<std::string> names;
    for (const Sample& sample : record.samples(dtype)) {
      const CaseId id = CaseId::make(op, dtype_name(dtype), sample.name);
      INFO(id.str());
      CHECK_MESSAGE(names.insert(sample.name).second, "duplicate sample name");
      CHECK(sample.reduced_elements >= 1);
      ++counts.samples;
      counts.quick += sample.quick;
      if (sample.expect_error) {
        ++counts.errors;
        CHECK(sample.quick);
      }
      // The full samples run in the conformance/suite_*_full tests (the whole suite on the
      // reference and on the CPU plugin); here the quick ones keep the test fast.
      if (!sample.quick) continue;
      for (Device device : {kReferenceDevice, record_cpu_device()}) {
        const CaseRun run = run_case(id, device, 0);
        CHECK_MESSAGE(run.kind == CaseRun::Kind::Passed, device.str() << ": " << run.message);
      }
    }
  }
  return counts;
}

// check_record for each op of a record group, one subcase per op.
inline void check_record_group(const std::vector<std::string>& ops) {
  for (const std::string& op : ops) {
    SUBCASE(op.c_str()) {
      const RecordCounts c = check_record(op);
      MESSAGE(op << ": " << c.samples << " samples (" << c.quick << " quick), " << c.errors
                 << " error inputs");
      CHECK(c.quick >= 4);
    }
  }
}

// The reference's result of one sample (suite seed 0): its output, or the argument it writes.
inline Tensor reference_result(const std::string& op, ScalarType dtype, const std::string& name) {
  using namespace conformance;
  const OpDef& def = Catalog::get().at(op);
  for (const Sample& s : record_of(op).samples(dtype)) {
    if (s.name != name) continue;
    InputMaker maker(case_seed(0, CaseId::make(op, dtype_name(dtype), name)));
    std::vector<IValue> args = s.make(maker);
    std::vector<Tensor> out = call(def.id, args);
    if (def.mutated_arg >= 0) return args[static_cast<size_t>(def.mutated_arg)].tensor();
    REQUIRE(out.size() == 1);
    return out[0];
  }
  FAIL("no sample " << op << "/" << dtype_name(dtype) << "/" << name);
  return {};
}

}  // namespace bp::test
