// Op records: for each operator of the catalog, the samples the conformance suite runs (in
// the spirit of PyTorch's OpInfo). A record names the dtypes the op allows and, per dtype,
// a list of samples: named argument lists built on the reference device from a seeded
// InputMaker, plus error inputs that every backend must reject the same way.
//
// Case id = `op/dtype/sample` (case_id.hpp). Sample names are unique within (op, dtype) and
// stable: expectations files and repro lines refer to them. Building the list of samples is
// cheap (no tensors are made); `make` builds one sample's arguments.
//
// Where to add a record: conformance/src/records/<group>.cpp, listed in records.cpp.
#pragma once

#include "backplane/conformance/inputs.hpp"

#include <backplane/backplane.hpp>
#include <backplane/core/ivalue.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bp::conformance {

struct Sample {
  std::string name;  // a-z 0-9 '_' '.'
  // Part of the quick suite (`--quick`, the default); the full suite runs every sample.
  bool quick = true;
  // The arguments in schema order (trailing defaults may be omitted), tensors on the
  // reference device. A Device argument (factories) is replaced by the device under test.
  // For ops that mutate an argument (copy_, fill_), that argument is the output.
  std::function<std::vector<IValue>(InputMaker&)> make;
  // Set for an error input: the call must throw bp::Error on every backend, and the
  // message must contain this text (the same text the reference backend's message has).
  std::optional<std::string> expect_error;
  // How many input elements each output value accumulates over (the reduced size of a
  // sum, the inner dimension of a matmul, the row length of a softmax): widens the
  // tolerance as tolerance_for(op, dtype, reduced_elements) documents. 1 for elementwise.
  int64_t reduced_elements = 1;
};

struct OpRecord {
  std::string op;                  // catalog name with overload, "add.Tensor"
  std::vector<ScalarType> dtypes;  // the dtypes the op allows: the dtype part of its case ids
  std::function<std::vector<Sample>(ScalarType)> samples;
};

// Every record, in catalog order. Built on first use; read-only afterwards.
const std::vector<OpRecord>& op_records();
// The record of an op, or nullptr.
const OpRecord* find_record(std::string_view op);

// Every dtype of op set v1, in ScalarType order.
std::vector<ScalarType> all_dtypes();
std::vector<ScalarType> floating_dtypes();  // f16, bf16, f32, f64
std::vector<ScalarType> numeric_dtypes();   // every dtype but bool

}  // namespace bp::conformance
