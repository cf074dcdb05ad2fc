// The elementwise fast path (Note [Elementwise fast path] in fast_path.hpp).
#include "fast_path.hpp"

#include "arguments.hpp"
#include "storage_pool.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <string_view>
#include <vector>

namespace bp::detail {
namespace {

constexpr int kMaxTensors = 3;
constexpr int kMaxScalars = 2;

// Whether the meta rule left argument `arg` as the caller's tensor (it may replace it with
// an expanded or otherwise changed view, which the fast path does not reproduce).
bool unchanged(const IValue& arg, const Tensor& given) {
  if (!arg.is_tensor()) return false;
  const Tensor& t = arg.tensor();
  return t.storage() == given.storage() && t.sizes() == given.sizes() &&
         same_view_of_storage(t, given) && t.is_wrapped_number() == given.is_wrapped_number();
}

// The ops whose output has the shape of their inputs when those share one shape: the only
// ones the fast path may run, since its cached answer per signature (dtypes, 0-d or not)
// assumes the output shape is the inputs' whatever that shape is. A schema alone does not
// say it: matmul's (Tensor, Tensor) -> Tensor gives [n, n] for two [n, n] operands but a 0-d
// result for two [n] ones. The typed API's elementwise functions (ops.cpp) are these ops.
constexpr std::string_view kElementwiseOps[] = {"neg",
                                                "abs",
                                                "sign",
                                                "exp",
                                                "log",
                                                "sqrt",
                                                "rsqrt",
                                                "reciprocal",
                                                "sin",
                                                "cos",
                                                "tanh",
                                                "sigmoid",
                                                "erf",
                                                "relu",
                                                "floor",
                                                "ceil",
                                                "logical_not",
                                                "silu",
                                                "add.Tensor",
                                                "sub.Tensor",
                                                "mul.Tensor",
                                                "div.Tensor",
                                                "pow.Tensor_Tensor",
                                                "eq.Tensor",
                                                "ne.Tensor",
                                                "lt.Tensor",
                                                "le.Tensor",
                                                "gt.Tensor",
                                                "ge.Tensor",
                                                "maximum",
                                                "minimum",
                                                "logical_and",
                                                "logical_or",
                                                "where.self"};

// One ElementwiseCall per op of kElementwiseOps, by OpId; null for the others.
class BoxedElementwiseCalls {
 public:
  BoxedElementwiseCalls() {
    for (const OpDef& op : Catalog::get().ops()) {
      if (std::find(std::begin(kElementwiseOps), std::end(kElementwiseOps), op.name) ==
          std::end(kElementwiseOps)) {
        calls_.emplace_back();
        continue;
      }
      int tensors = 0, scalars = 0;
      for (const Argument& arg : op.schema.arguments) {
        if (arg.type.kind == TypeKind::Tensor && scalars == 0)
          ++tensors;
        else if (arg.type.kind == TypeKind::Scalar)
          ++scalars;
        else
          tensors = -1;  // another kind: not elementwise
      }
      std::unique_ptr<ElementwiseCall> call;
      if (tensors >= 1) {
        call = std::make_unique<ElementwiseCall>(op.name, tensors, scalars);
        if (!call->enabled()) call.reset();
      }
      calls_.push_back(std::move(call));
    }
  }
  ElementwiseCall* find(OpId op) const { return op < calls_.size() ? calls_[op].get() : nullptr; }

 private:
  std::vector<std::unique_ptr<ElementwiseCall>> calls_;
};

const BoxedElementwiseCalls& boxed_elementwise_calls() {
  static const BoxedElementwiseCalls calls;
  return calls;
}

template <int N, int S>
bool run_boxed(ElementwiseCall& call, std::span<const IValue> args, Tensor& out, bool allocate) {
  const OpDef& op = Catalog::get().at(call.id());
  const Tensor* tensors[N];
  Scalar scalars[S > 0 ? S : 1];
  for (int i = 0; i < N; ++i) {
    if (!args[i].is_tensor()) return false;
    tensors[i] = &args[i].tensor();
  }
  for (int j = 0; j < S; ++j) {
    const size_t k = static_cast<size_t>(N + j);
    const IValue& value =
        k < args.size() ? args[k] : op.schema.arguments[k].default_value.value_or(IValue());
    if (!(value.is_scalar() || value.is_int() || value.is_double() || value.is_bool()))
      return false;
    scalars[j] = value.scalar();
  }
  return call.run<N, S>(tensors, scalars, out, allocate);
}

}  // namespace

bool has_dense_form(OpId op) {
  return boxed_elementwise_calls().find(op) != nullptr;
}

bool run_elementwise_boxed(OpId op, std::span<const IValue> args, Tensor& out, bool allocate) {
  ElementwiseCall* call = boxed_elementwise_calls().find(op);
  if (call == nullptr || args.size() < static_cast<size_t>(call->num_tensors()) ||
      args.size() > static_cast<size_t>(call->num_tensors() + call->num_scalars()))
    return false;
  // run_boxed<N, S> for N tensors and S Scalars.
  using Runner = bool (*)(ElementwiseCall&, std::span<const IValue>, Tensor&, bool);
  static constexpr Runner kRunners[kMaxTensors][kMaxScalars + 1] = {
      {run_boxed<1, 0>, run_boxed<1, 1>, run_boxed<1, 2>},
      {run_boxed<2, 0>, run_boxed<2, 1>, run_boxed<2, 2>},
      {run_boxed<3, 0>, run_boxed<3, 1>, run_boxed<3, 2>}};
  return kRunners[call->num_tensors() - 1][call->num_scalars()](*call, args, out, allocate);
}

ElementwiseCall::ElementwiseCall(std::string_view op_name, int num_tensors, int num_scalars)
    : num_tensors_(num_tensors), num_scalars_(num_scalars) {
  op_ = &Catalog::get().at(op_name);
  runtime_ = &Runtime::get();
  id_ = op_->id;
  const auto& args = op_->schema.arguments;
  bool fits = num_tensors >= 1 && num_tensors <= kMaxTensors && num_scalars >= 0 &&
              num_scalars <= kMaxScalars && op_->mutated_arg < 0 && op_->num_outputs() == 1 &&
              args.size() == static_cast<size_t>(num_tensors + num_scalars);
  for (size_t i = 0; fits && i < args.size(); ++i) {
    const ArgType& type = args[i].type;
    const TypeKind want = static_cast<int>(i) < num_tensors ? TypeKind::Tensor : TypeKind::Scalar;
    fits = type.kind == want && !type.is_list && !type.is_optional;
  }
  enabled_ = fits;
}

void ElementwiseCall::allocate_output(Backend& backend, Device device, const Tensor& like,
                                      ScalarType dtype, Tensor& out) const {
  const size_t nbytes = static_cast<size_t>(like.numel()) * element_size(dtype);
  DataPtr data = backend.allocators[static_cast<size_t>(device.index)]->allocate(nbytes);
  out.set_contiguous_like(
      make_storage(std::move(data), nbytes, device, backend.host_accessible(device.index)), like,
      dtype);
}

// Runs the meta rule on this call's arguments and caches what it says about the signature.
[[gnu::noinline, gnu::cold]] uint64_t ElementwiseCall::learn(uint32_t signature,
                                                             const Tensor* const* tensors,
                                                             const Scalar* scalars) {
  std::vector<IValue> args;
  for (int i = 0; i < num_tensors_; ++i) args.emplace_back(*tensors[i]);
  for (int j = 0; j < num_scalars_; ++j) args.emplace_back(scalars[j]);
  uint64_t answer = 0;
  try {
    normalize_arguments(*op_, args);
    const MetaResult meta = op_->meta(*op_, std::span<IValue>(args));
    bool fast = meta.outputs.size() == 1 && !meta.outputs[0].kernel_sizes &&
                meta.outputs[0].sizes == tensors[0]->sizes();
    for (int i = 0; fast && i < num_tensors_; ++i) {
      fast = unchanged(args[static_cast<size_t>(i)], *tensors[i]);
      const bool converted = ((meta.convert_mask >> i) & 1u) &&
                             meta.compute_dtype != ScalarType::Undefined &&
                             tensors[i]->dtype() != meta.compute_dtype;
      fast = fast && !converted;
    }
    const ScalarType kernel_dtype =
        meta.compute_dtype != ScalarType::Undefined ? meta.compute_dtype : tensors[0]->dtype();
    // A dense entry takes every tensor argument in the kernel's dtype (bp_dense_call.dtype).
    bool one_dtype = true;
    for (int i = 0; i < num_tensors_; ++i)
      one_dtype = one_dtype && tensors[i]->dtype() == kernel_dtype;
    if (fast)
      answer = kFast | (one_dtype ? kOneDtype : 0) |
               uint64_t{static_cast<uint8_t>(kernel_dtype)} << 8 |
               static_cast<uint8_t>(meta.outputs[0].dtype);
  } catch (const Error&) {
    // Not fast: the boxed path runs the meta rule again and reports the error.
  }
  const uint64_t entry = (uint64_t{signature} + 1) << 32 | answer;
  cache_[signature & (kCacheSize - 1)].store(entry, std::memory_order_relaxed);
  return entry;
}

}  // namespace bp::detail
