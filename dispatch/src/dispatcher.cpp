// The call path of every operator: check the arguments against the schema, find the
// device and its dispatch slot, run the meta rule, convert inputs, allocate (or check)
// outputs, and call the backend's kernel through the C ABI — or run the op's composite
// decomposition when the backend has no kernel for it. docs/architecture.md walks through
// it for one bp::add call.
#include "backplane/dispatch/dispatcher.hpp"

#include "arguments.hpp"
#include "boxing.hpp"
#include "calls_in_flight.hpp"
#include "dispatch_impl.hpp"
#include "fallback_impl.hpp"
#include "fast_path.hpp"
#include "kernel_call.hpp"
#include "layers_impl.hpp"
#include "runtime_impl.hpp"
#include "trace_impl.hpp"

#include "backplane/core/error.hpp"
#include "backplane/ops.hpp"
#include "backplane/tensor_api.hpp"

#include <fmt/format.h>
#include <boost/container/small_vector.hpp>

#include <exception>
#include <optional>

namespace bp {
namespace detail {

// Which device a call runs on. Tensors on two devices are an error naming both, except a
// 0-d tensor, which may live anywhere (PyTorch allows 0-d CPU tensors in CUDA ops) and is
// moved to the call's device.
Device call_device(const OpDef& op, const std::vector<IValue>& args) {
  std::optional<Device> device;  // from a tensor with dim > 0
  std::optional<Device> zero_dim;
  std::string device_arg_name;
  auto visit = [&](const Tensor& t, std::string_view name) {
    if (!t.defined()) return;
    if (t.dim() == 0) {
      if (!zero_dim) zero_dim = t.device();
      return;
    }
    if (!device) {
      device = t.device();
      device_arg_name = name;
    } else if (*device != t.device()) {
      BP_FAIL(ErrorCode::Device,
              "{}: expected all tensors on one device, but argument '{}' is on {} and "
              "argument '{}' is on {}",
              op.name, device_arg_name, device->str(), name, t.device().str());
    }
  };
  const auto& schema_args = op.schema.arguments;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_tensor()) visit(args[i].tensor(), schema_args[i].name);
    if (args[i].is_tensor_list())
      for (const Tensor& t : args[i].tensor_list()) visit(t, schema_args[i].name);
  }
  if (device) return *device;
  if (zero_dim) return *zero_dim;
  // Factories: an explicit `Device? device` argument, else the default device.
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_device()) return args[i].device();
  return Runtime::get().default_device();
}

void kernel_failed(bp_status status, const OpDef& op, Device device) {
  throw_status(status, fmt::format("{} on {}", op.name, device.str()));
}

namespace {

void move_to(IValue& v, Device device) {
  if (v.is_tensor() && v.tensor().defined() && v.tensor().device() != device) {
    const bool wrapped = v.tensor().is_wrapped_number();
    Tensor moved = bp::to(v.tensor(), device);
    moved.set_wrapped_number(wrapped);
    v = IValue(std::move(moved));
  } else if (v.is_tensor_list()) {
    TensorList list = v.tensor_list();
    bool changed = false;
    for (Tensor& t : list)
      if (t.defined() && t.device() != device) {  // undefined: a Tensor?[] None
        t = bp::to(t, device);
        changed = true;
      }
    if (changed) v = IValue(std::move(list));
  }
}

void convert_inputs(std::vector<IValue>& args, const MetaResult& meta) {
  if (meta.convert_mask == 0 || meta.compute_dtype == ScalarType::Undefined) return;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!((meta.convert_mask >> i) & 1u)) continue;
    if (args[i].is_tensor() && args[i].tensor().defined() &&
        args[i].tensor().dtype() != meta.compute_dtype) {
      args[i] = IValue(bp::to(args[i].tensor(), meta.compute_dtype));
    } else if (args[i].is_tensor_list()) {
      TensorList list = args[i].tensor_list();
      for (Tensor& t : list)
        if (t.defined() && t.dtype() != meta.compute_dtype) t = bp::to(t, meta.compute_dtype);
      args[i] = IValue(std::move(list));
    }
  }
}

ScalarType kernel_dtype(const MetaResult& meta, const std::vector<IValue>& args) {
  if (meta.compute_dtype != ScalarType::Undefined) return meta.compute_dtype;
  for (const IValue& v : args) {
    if (v.is_tensor() && v.tensor().defined()) return v.tensor().dtype();
    if (v.is_tensor_list())
      for (const Tensor& t : v.tensor_list())
        if (t.defined()) return t.dtype();
  }
  return meta.outputs.empty() ? ScalarType::Undefined : meta.outputs[0].dtype;
}

// Whether two views may touch a common byte (conservative: compares the address ranges).
bool may_overlap(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.storage() != b.storage()) return false;
  if (a.numel() == 0 || b.numel() == 0) return false;
  auto range = [](const Tensor& t) {
    int64_t last = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
    const int64_t es = static_cast<int64_t>(t.element_size());
    return std::pair<int64_t, int64_t>{t.storage_offset() * es, (last + 1) * es};
  };
  auto [a0, a1] = range(a);
  auto [b0, b1] = range(b);
  return a0 < b1 && b0 < a1;
}

bool same_view(const Tensor& a, const Tensor& b) {
  return a.storage() == b.storage() && a.storage_offset() == b.storage_offset() &&
         a.sizes() == b.sizes() && a.strides() == b.strides() && a.dtype() == b.dtype();
}

// True when `out` cannot be written by the kernel directly because an input aliases part
// of it (an identical view is fine: that is an in-place op).
bool aliases_input(const Tensor& out, const std::vector<IValue>& args, int skip_arg) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (static_cast<int>(i) == skip_arg) continue;
    auto check = [&](const Tensor& t) { return may_overlap(out, t) && !same_view(out, t); };
    if (args[i].is_tensor() && check(args[i].tensor())) return true;
    if (args[i].is_tensor_list())
      for (const Tensor& t : args[i].tensor_list())
        if (check(t)) return true;
  }
  return false;
}

// An out (or in-place self) in which several elements share one memory location (a dim
// of size > 1 with stride 0: an expanded tensor) would have one location written from
// several elements, in an order the kernel chooses (a race on a parallel device). An
// error, as in PyTorch, worded as copy_'s check in core (ops/data_movement.cpp). Like
// PyTorch, other self-overlapping views (as_strided) are not looked for.
void check_no_internal_overlap(const OpDef& op, const Tensor& written, bool in_place) {
  if (written.numel() == 0) return;  // nothing is written
  for (size_t d = 0; d < written.sizes().size(); ++d)
    BP_CHECK(written.strides()[d] != 0 || written.sizes()[d] <= 1, ErrorCode::InvalidArgument,
             "{}: argument '{}' ({}) has a dim of size {} with stride 0, so several of its "
             "elements share one memory location; write to a contiguous copy instead",
             op.name, in_place ? "self" : "out", written.meta_str(), written.sizes()[d]);
}

std::string kernel_backends(const OpTable& table) {
  std::vector<std::string> names;
  for (const BackendInfo& b : Runtime::get().backend_infos())
    if (table.slots[b.type].fn) names.push_back(b.name);
  return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", "));
}

// What a call writes its result into: the user's out (when the kernel can write it
// directly) or a fresh tensor copied into the user's out afterwards.
struct OutputPlan {
  Tensor kernel_out;       // what the kernel writes (user-facing shape)
  Tensor* user = nullptr;  // the user's out, when given
  bool copy_back = false;
};

void check_user_out(const OpDef& op, const TensorMeta& meta, Device device, const Tensor& user,
                    bool in_place) {
  BP_CHECK(user.device() == device, ErrorCode::Device, "{}: out is on {} but the inputs are on {}",
           op.name, user.device().str(), device.str());
  BP_CHECK(user.sizes() == meta.sizes, ErrorCode::Shape,
           "{}: out has shape {} but the result has shape {}", op.name,
           shape_str(as_ref(user.sizes())), shape_str(as_ref(meta.sizes)));
  check_no_internal_overlap(op, user, in_place);
  BP_CHECK(can_cast(meta.dtype, user.dtype()), ErrorCode::Type,
           "{}: result type {} can't be cast to the desired output type {}", op.name,
           dtype_name(meta.dtype), dtype_name(user.dtype()));
}

OutputPlan plan_output(const OpDef& op, const TensorMeta& meta, Device device, Tensor* user,
                       const std::vector<IValue>& args, bool in_place) {
  OutputPlan plan;
  plan.user = user;
  if (user && user->defined() && (user->numel() > 0 || in_place)) {
    check_user_out(op, meta, device, *user, in_place);
    if (user->dtype() == meta.dtype && !aliases_input(*user, args, -1)) {
      plan.kernel_out = *user;
      return plan;
    }
    plan.copy_back = true;
  }
  plan.kernel_out = bp::empty(as_ref(meta.sizes), meta.dtype, device);
  if (user && !plan.copy_back) *user = plan.kernel_out;  // undefined or empty out: replace
  return plan;
}

class CompositeContext final : public OpContext {
 public:
  explicit CompositeContext(Device device) : device_(device) {}
  std::vector<Tensor> call(OpId op, std::vector<IValue> args) override {
    return bp::call(op, std::move(args));
  }
  Tensor empty(IntArrayRef sizes, ScalarType dtype) override {
    return bp::empty(sizes, dtype, device_);
  }
  Tensor scalar_tensor(Scalar value, ScalarType dtype) override {
    return bp::scalar_tensor(value, dtype, device_, /*wrapped_number=*/true);
  }
  Scalar item(const Tensor& t) override { return bp::item(t); }

 private:
  Device device_;
};

// Runs the op's decomposition on the call's device and writes the results into the user's
// outs (replacing an undefined or empty out, checking and copying into any other).
std::vector<Tensor> run_composite(const OpDef& op, const std::vector<IValue>& args,
                                  std::span<Tensor* const> user_outs, bool in_place, Device device,
                                  const MetaResult& meta) {
  CompositeContext ctx(device);
  std::vector<Tensor> results = op.decompose(ctx, std::span<const IValue>(args));
  for (size_t j = 0; j < user_outs.size(); ++j) {
    Tensor* out = user_outs[j];
    if (!results[j].defined()) continue;  // an output the op leaves undefined (a masked one)
    if (!out->defined() || (out->numel() == 0 && !in_place)) {
      *out = results[j];
    } else {
      // A data-dependent size (kDataDependentSize) is known now: the result's.
      const TensorMeta& expected = meta.outputs[j];
      const bool data_dependent = std::find(expected.sizes.begin(), expected.sizes.end(),
                                            kDataDependentSize) != expected.sizes.end();
      check_user_out(op,
                     data_dependent ? TensorMeta{results[j].sizes(), expected.dtype, {}} : expected,
                     device, *out, in_place);
      bp::copy_(*out, results[j]);
    }
  }
  return results;
}

// The call cannot run its kernel (`gate`): the CPU fallback when the backend forces it or
// the policy allows it, else the op's composite, else an error saying why neither.
std::vector<Tensor> leave_kernel_path(const OpDef& op, std::vector<IValue>& args,
                                      std::span<Tensor* const> user_outs, bool in_place,
                                      Device device, const MetaResult& meta, KernelGate gate,
                                      ScalarType dtype, CallRecord* record) {
  // The CPU never falls back to itself.
  const bool can_leave = device.type != device_types::CPU;
  const bool fall_back = gate == KernelGate::Forced || (op.kind != OpKind::Composite && can_leave &&
                                                        fallback_policy() == FallbackPolicy::Cpu);
  if (fall_back) {
    if (record) record->fallback = true;
    std::vector<Tensor> results = run_on_cpu(op, args, user_outs, in_place, device);
    if (record) record->path = CallPath::Fallback;
    return results;
  }
  if (op.kind == OpKind::Composite) {
    std::vector<Tensor> results = run_composite(op, args, user_outs, in_place, device, meta);
    if (record) record->path = CallPath::Composite;
    return results;
  }
  const KernelSlot& slot = Runtime::get().table(op.id).slots[device.type];
  const std::string hint = can_leave && op.can_fall_back ? "; " + fallback_hint() : "";
  if (slot.fn)
    BP_FAIL(ErrorCode::NotImplemented,
            "{}: backend '{}' has no kernel for dtype {} on {} (it supports: {}){}", op.name,
            device_type_name(device.type), dtype_name(dtype), device.str(),
            dtype_mask_names(slot.dtypes), hint);
  BP_FAIL(ErrorCode::NotImplemented,
          "{}: no kernel for device {} (backend '{}'); backends that have one: {}{}", op.name,
          device.str(), device_type_name(device.type), kernel_backends(Runtime::get().table(op.id)),
          hint);
}

// Converts the inputs, plans the outputs (the user's outs, or new tensors), boxes the call
// and runs the backend's kernel (kernel_call.hpp); copies into the user's outs where the
// kernel could not write them directly.
std::vector<Tensor> run_kernel(const OpDef& op, std::vector<IValue>& args,
                               std::span<Tensor* const> user_outs, bool in_place, Device device,
                               const MetaResult& meta, const KernelSlot& slot) {
  convert_inputs(args, meta);
  std::vector<Tensor> results;
  results.reserve(meta.outputs.size() + 1);
  // Inline room for two outputs (every op of v1 has at most two): no heap allocation.
  boost::container::small_vector<OutputPlan, 2> plans;
  // The views the kernel writes; they own the shape/stride arrays its descriptors borrow,
  // so they must outlive the kernel call (reserved: no reallocation moves them).
  boost::container::small_vector<Tensor, 2> kernel_outputs;
  kernel_outputs.reserve(meta.outputs.size());
  CallFrame frame;
  for (const IValue& v : args) frame.add(v);
  if (op.mutated_arg >= 0) {
    const Tensor& target = args[static_cast<size_t>(op.mutated_arg)].tensor();
    BP_CHECK(!aliases_input(target, args, op.mutated_arg), ErrorCode::InvalidArgument,
             "{}: unsupported operation: some elements of the input tensor and the written-to "
             "tensor refer to a single memory location",
             op.name);
    results.push_back(target);
  } else {
    for (size_t j = 0; j < meta.outputs.size(); ++j) {
      plans.push_back(plan_output(op, meta.outputs[j], device,
                                  user_outs.empty() ? nullptr : user_outs[j], args, in_place));
      const TensorMeta& m = meta.outputs[j];
      kernel_outputs.push_back(m.kernel_sizes
                                   ? plans.back().kernel_out.view(as_ref(*m.kernel_sizes))
                                   : plans.back().kernel_out);
      frame.add_tensor(kernel_outputs.back());
      results.push_back(plans.back().kernel_out);
    }
  }
  const size_t noutputs = op.mutated_arg >= 0 ? 0 : meta.outputs.size();
  call_kernel(slot, op, device, frame.values(), frame.size(), noutputs);
  for (OutputPlan& p : plans)
    if (p.copy_back) bp::copy_(*p.user, p.kernel_out);
  return results;
}

}  // namespace

std::vector<Tensor> dispatch(OpId id, std::vector<IValue>& args, std::span<Tensor* const> user_outs,
                             bool in_place, CallRecord* record) {
  // Before the backend and the kernel table are read (Note [Waiting for calls in flight]).
  PluginCallScope in_flight;
  const OpDef& op = Catalog::get().at(id);
  normalize_arguments(op, args);
  BP_CHECK(user_outs.empty() || user_outs.size() == op.num_outputs(), ErrorCode::InvalidArgument,
           "{}: expected {} out tensor(s), got {}", op.name, op.num_outputs(), user_outs.size());
  const Device device = call_device(op, args);
  Runtime& rt = Runtime::get();
  rt.backend_for(device, op.name);  // the device must exist
  for (IValue& v : args) move_to(v, device);

  const KernelSlot& slot = rt.table(id).slots[device.type];
  const MetaResult meta = op.meta(op, std::span<IValue>(args));
  const ScalarType dtype = kernel_dtype(meta, args);
  const KernelGate gate = kernel_gate(slot, op, device, static_cast<unsigned>(dtype));
  if (gate != KernelGate::Run)
    return leave_kernel_path(op, args, user_outs, in_place, device, meta, gate, dtype, record);
  return run_kernel(op, args, user_outs, in_place, device, meta, slot);
}

}  // namespace detail

// Without layers on (the common case) a call costs one relaxed load and a predicted branch
// over the backend dispatch; with them it goes through run_layers (layers.cpp).
std::vector<Tensor> call(OpId op, std::vector<IValue> args) {
  if (detail::layers_on()) [[unlikely]]
    return detail::run_layers(op, args, {}, false, detail::active_layers(), nullptr);
  // Small elementwise calls skip the meta rule and the call frame (fast_path.hpp).
  std::vector<Tensor> results(1);
  if (detail::run_elementwise_boxed(op, args, results[0], /*allocate=*/true)) return results;
  return detail::dispatch(op, args, {}, false, nullptr);
}

std::vector<Tensor> call(std::string_view op_name, std::vector<IValue> args) {
  return call(Catalog::get().at(op_name).id, std::move(args));
}

void call_out(OpId op, std::vector<IValue> args, std::span<Tensor* const> outs, bool in_place) {
  BP_CHECK(!outs.empty(), ErrorCode::InvalidArgument, "{}: call_out needs out tensors",
           Catalog::get().at(op).name);
  if (detail::layers_on()) [[unlikely]] {
    detail::run_layers(op, args, outs, in_place, detail::active_layers(), nullptr);
    return;
  }
  // The fast path writes an out of exactly the result's shape and dtype (or self in place).
  if (outs.size() == 1 && outs[0]->defined() &&
      detail::run_elementwise_boxed(op, args, *outs[0], /*allocate=*/false))
    return;
  detail::dispatch(op, args, outs, in_place, nullptr);
}

}  // namespace bp
