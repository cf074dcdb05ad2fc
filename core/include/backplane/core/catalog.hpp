// The operator catalog: every operator of op set v1 with its schema, its kind (primitive or
// composite), its meta rule (output shapes/dtypes and the compute dtype of its inputs,
// computed from the inputs alone, device-neutral) and, for composites, its decomposition
// into other operators. Built once on first use; read-only afterwards, so thread-safe.
//
// Where to add an operator: write its schema, meta rule and (if composite) decomposition in
// the core/src/ops/<group>.cpp file of its group and add it to that file's register
// function; then a reference kernel in plugins/reference/ and a conformance record.
#pragma once

#include "backplane/core/ivalue.hpp"
#include "backplane/core/schema.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace bp {

using OpId = uint32_t;
inline constexpr OpId kInvalidOp = ~OpId{0};

enum class OpKind {
  Primitive,  // a backend claiming full coverage implements its out-variant kernel
  Composite,  // core decomposes it; a backend may override it with a fused kernel
};

// A size no meta rule can know: it depends on the values of the inputs (the rows of
// nonzero, the length of masked_select). Only composites have one; they read the count to
// the host (OpContext::item) and the dispatcher checks a user's out against the result.
inline constexpr int64_t kDataDependentSize = -1;

struct TensorMeta {
  Shape sizes;  // kDataDependentSize where the size depends on the inputs' values
  ScalarType dtype = ScalarType::Undefined;
  // The shape the kernel sees this output as, when it differs from `sizes`: only size-1
  // dims are inserted (always a valid view), e.g. keepdim-shaped outputs of reductions and
  // [n, 1] for a matrix-vector matmul. Empty = `sizes`.
  std::optional<Shape> kernel_sizes;
};

// What a meta rule computes for one call.
struct MetaResult {
  // Outputs of the functional form, in schema order (empty for mutating ops like copy_,
  // whose output is their first argument).
  boost::container::small_vector<TensorMeta, 2> outputs;
  // Inputs whose bit is set in convert_mask (bit i = argument i, a Tensor, Tensor? or
  // Tensor[]) are converted to compute_dtype by the dispatcher before the kernel runs, so
  // a kernel sees one dtype. compute_dtype also selects the kernel's dtype entry; when it is
  // Undefined the dtype of the first tensor argument does.
  ScalarType compute_dtype = ScalarType::Undefined;
  uint32_t convert_mask = 0;
};

struct OpDef;

// Validates the arguments (throwing bp::Error that names the op, the argument and the
// value) and returns the output metadata. `args` is the dispatcher's own copy of the call's
// arguments (defaults filled in, one per schema argument); the meta rule canonicalises it in
// place into what kernels receive (docs/ops.md, "What a kernel receives"): dims wrapped,
// dim lists sorted and made explicit, inputs of elementwise ops expanded to the output
// shape, matmul operands made >= 2-D with equal batch dims. Only metadata changes here;
// dtype conversions are requested through compute_dtype/convert_mask.
using MetaFn = MetaResult (*)(const OpDef& op, std::span<IValue> args);

// Lets a decomposition call other operators. Implemented by the dispatcher; calls go
// through the full dispatch path (so a backend's fused kernels are used when present).
class OpContext {
 public:
  virtual ~OpContext() = default;
  // Calls the functional form of `op` and returns its outputs.
  virtual std::vector<Tensor> call(OpId op, std::vector<IValue> args) = 0;
  // Convenience for single-output ops.
  Tensor call1(OpId op, std::vector<IValue> args) { return call(op, std::move(args)).at(0); }
  // An empty tensor with the given metadata on the device the composite runs on.
  virtual Tensor empty(IntArrayRef sizes, ScalarType dtype) = 0;
  // A 0-d tensor holding `value`, flagged as a wrapped number, on that device.
  virtual Tensor scalar_tensor(Scalar value, ScalarType dtype) = 0;
  // The value of a one-element tensor, read to the host: a synchronisation with the device,
  // for composites whose result shape depends on values (nonzero's count, one_hot's classes).
  virtual Scalar item(const Tensor& t) = 0;
};

// Returns the outputs of the functional form (same order and metadata as the meta rule).
using DecomposeFn = std::vector<Tensor> (*)(OpContext& ctx, std::span<const IValue> args);

struct OpDef {
  OpId id = kInvalidOp;
  std::string name;  // full name, "add.Tensor"
  FunctionSchema schema;
  OpKind kind = OpKind::Primitive;
  MetaFn meta = nullptr;
  DecomposeFn decompose = nullptr;  // composites only
  // Index of the argument the op writes in place (copy_, fill_), or -1.
  int mutated_arg = -1;
  // False for ops that must not be run on another device by the CPU fallback (factories).
  bool can_fall_back = true;

  size_t num_arguments() const { return schema.arguments.size(); }
  size_t num_outputs() const { return mutated_arg >= 0 ? 0 : schema.returns.size(); }
};

// Everything the register functions of the op groups provide for one op.
struct OpRegistration {
  std::string_view schema;
  OpKind kind;
  MetaFn meta;
  DecomposeFn decompose = nullptr;
  bool can_fall_back = true;
};

class Catalog {
 public:
  static const Catalog& get();

  const OpDef* find(std::string_view full_name) const;  // nullptr when unknown
  // Throws bp::Error(NotImplemented) "unknown operator 'x.y'" with close matches.
  const OpDef& at(std::string_view full_name) const;
  const OpDef& at(OpId id) const { return ops_[id]; }
  std::span<const OpDef> ops() const { return ops_; }

  // Used by the catalog's own construction (and tests building small catalogs).
  void add(const OpRegistration& reg);

 private:
  std::vector<OpDef> ops_;
  std::unordered_map<std::string, OpId> index_;
};

// Id of an op by full name, throwing when unknown. For composites:
//   static const OpId kSub = op_id("sub.Tensor");
OpId op_id(std::string_view full_name);

}  // namespace bp
