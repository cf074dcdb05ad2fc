// Fallback settings, statistics and the CPU fallback itself (fallback.hpp, fallback_impl.hpp).
#include "fallback_impl.hpp"

#include "backplane/core/error.hpp"
#include "backplane/dispatch/dispatcher.hpp"
#include "backplane/ops.hpp"
#include "backplane/tensor_api.hpp"
#include "runtime_impl.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <set>
#include <utility>

namespace bp {
namespace detail {
namespace {

struct FallbackState {
  std::atomic<FallbackPolicy> policy{FallbackPolicy::Error};
  std::mutex mu;
  std::set<std::pair<std::string, std::string>> forced;  // (backend, op)
  std::set<std::string> warned;                          // "op on device"
  FallbackStats stats;
};

FallbackState& state() {
  static FallbackState s;
  return s;
}

uint64_t tensor_bytes(const IValue& v) {
  uint64_t n = 0;
  if (v.is_tensor() && v.tensor().defined()) n += v.tensor().nbytes();
  if (v.is_tensor_list())
    for (const Tensor& t : v.tensor_list())
      if (t.defined()) n += t.nbytes();
  return n;
}

// The elements a (possibly strided, non-empty) view covers, as a 1-D contiguous tensor over
// the same storage: from its first element to its last (strides are never negative).
Tensor covering_span(const Tensor& t) {
  int64_t last = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) last += (t.size(d) - 1) * t.stride(d);
  return Tensor(t.storage(), {last - t.storage_offset() + 1}, {1}, t.storage_offset(), t.dtype());
}

// `t`'s view over `span_copy`, a copy of covering_span(t) on another device.
Tensor view_in(const Tensor& span_copy, const Tensor& t) {
  return Tensor(span_copy.storage(), t.sizes(), t.strides(), span_copy.storage_offset(), t.dtype());
}

// A device tensor on the CPU. A strided one moves the bytes its view covers (the device API
// alone, no kernel: the device may be the one falling back, without copy_ for this dtype)
// and is made contiguous by the CPU's copy_.
Tensor to_cpu(const Tensor& t, Device cpu) {
  if (t.is_contiguous() || t.numel() == 0) return bp::to(t, cpu);
  const Tensor span = covering_span(t);
  return bp::contiguous(view_in(bp::to(span, cpu), t));
}

IValue on_device(const IValue& v, Device device) {
  if (v.is_tensor() && v.tensor().defined() && v.tensor().device() != device) {
    Tensor moved = to_cpu(v.tensor(), device);
    moved.set_wrapped_number(v.tensor().is_wrapped_number());
    return moved;
  }
  if (v.is_tensor_list()) {
    TensorList list = v.tensor_list();
    for (Tensor& t : list)
      if (t.defined()) t = to_cpu(t, device);  // undefined: a Tensor?[] None
    return list;
  }
  if (v.is_device()) return device;
  return v;
}

}  // namespace

namespace {

bool forced_by_name(std::string_view backend, const OpDef& op) {
  FallbackState& s = state();
  if (!g_any_forced_fallback.load(std::memory_order_relaxed)) return false;
  std::lock_guard lock(s.mu);
  return s.forced.count({std::string(backend), op.name}) > 0;
}

}  // namespace

bool forced_fallback_lookup(DeviceType type, const OpDef& op) {
  return forced_by_name(device_type_name(type), op);
}

std::string fallback_hint() {
  return "set fallback.policy = \"cpu\" in backplane.toml or BACKPLANE_FALLBACK=cpu to run it "
         "on the CPU";
}

namespace {

// Writes the CPU copy of a mutated argument back into the device tensor through the device
// API alone, so that a device without a copy_ kernel for the dtype (whose copy_ itself falls
// back here) still gets its result. A strided target is a read-modify-write of the bytes its
// view covers: they come to the CPU, the CPU's copy_ writes the view there, and they go back.
void write_back(Tensor target, const Tensor& written) {
  if (target.numel() == 0) return;
  if (target.is_contiguous() && written.dtype() == target.dtype()) {
    transfer(target, bp::contiguous(written), target.nbytes());
    return;
  }
  const Tensor span = covering_span(target);
  const Tensor host_span = bp::to(span, written.device());
  Tensor host_view = view_in(host_span, target);
  bp::copy_(host_view, written);
  transfer(span, host_span, span.nbytes());
}

// Throws when the op cannot fall back (a factory) or there is no CPU backend to run it on.
void check_can_fall_back(const OpDef& op, Device device) {
  BP_CHECK(op.can_fall_back, ErrorCode::NotImplemented,
           "{}: no kernel for device {} and the op cannot fall back to the CPU (a factory has "
           "no inputs to move; docs/fallback.md)",
           op.name, device.str());
  BP_CHECK(Runtime::get().backend(device_types::CPU) != nullptr, ErrorCode::NotImplemented,
           "{}: no kernel for device {}, and fallback.policy = \"cpu\" needs the cpu backend, "
           "which is not loaded",
           op.name, device.str());
}

// One warning per op and device (`key`) for the life of the process.
void warn_once(FallbackState& s, const std::string& key, const OpDef& op, Device device) {
  std::lock_guard lock(s.mu);
  if (s.warned.insert(key).second)
    std::fprintf(stderr,
                 "backplane: warning: %s has no kernel on %s; running it on cpu:0 "
                 "(fallback.policy = cpu)\n",
                 op.name.c_str(), device.str().c_str());
}

}  // namespace

std::vector<Tensor> run_on_cpu(const OpDef& op, const std::vector<IValue>& args,
                               std::span<Tensor* const> user_outs, bool in_place, Device device) {
  const Device cpu{device_types::CPU, 0};
  check_can_fall_back(op, device);
  FallbackState& s = state();
  const std::string key = fmt::format("{} on {}", op.name, device.str());
  warn_once(s, key, op, device);
  uint64_t to_cpu = 0;
  std::vector<IValue> cpu_args;
  cpu_args.reserve(args.size());
  for (const IValue& v : args) {
    if (!(v.is_tensor() && v.tensor().defined() && v.tensor().device() == cpu))
      to_cpu += tensor_bytes(v);
    cpu_args.push_back(on_device(v, cpu));
  }
  std::vector<Tensor> cpu_results = bp::call(op.id, cpu_args);

  uint64_t from_cpu = 0;
  std::vector<Tensor> results;
  if (op.mutated_arg >= 0) {
    // The op wrote its CPU copy of the argument: write that back into the device tensor.
    Tensor target = args[static_cast<size_t>(op.mutated_arg)].tensor();
    const Tensor& written = cpu_args[static_cast<size_t>(op.mutated_arg)].tensor();
    write_back(target, written);
    from_cpu += written.nbytes();
    results.push_back(target);
  } else {
    for (size_t j = 0; j < cpu_results.size(); ++j) {
      Tensor back = bp::to(cpu_results[j], device);
      from_cpu += back.nbytes();
      if (j < user_outs.size()) {
        Tensor* out = user_outs[j];
        if (!out->defined() || (out->numel() == 0 && !in_place)) {
          *out = back;
        } else {
          BP_CHECK(out->sizes() == back.sizes(), ErrorCode::Shape,
                   "{}: out has shape {} but the result has shape {}", op.name,
                   shape_str(as_ref(out->sizes())), shape_str(as_ref(back.sizes())));
          bp::copy_(*out, back);
          back = *out;
        }
      }
      results.push_back(back);
    }
  }
  std::lock_guard lock(s.mu);
  ++s.stats.calls;
  s.stats.bytes_to_cpu += to_cpu;
  s.stats.bytes_from_cpu += from_cpu;
  ++s.stats.calls_per_op[key];
  return results;
}

}  // namespace detail

std::string_view to_string(FallbackPolicy policy) {
  return policy == FallbackPolicy::Cpu ? "cpu" : "error";
}

void set_fallback_policy(FallbackPolicy policy) {
  detail::state().policy.store(policy, std::memory_order_relaxed);
}

FallbackPolicy fallback_policy() {
  return detail::state().policy.load(std::memory_order_relaxed);
}

void force_fallback(std::string_view backend, std::string_view op_name) {
  const OpDef& op = Catalog::get().at(op_name);
  BP_CHECK(op.can_fall_back, ErrorCode::InvalidArgument,
           "force_fallback({}, {}): {} cannot fall back to the CPU (docs/fallback.md)", backend,
           op_name, op.name);
  detail::FallbackState& s = detail::state();
  std::lock_guard lock(s.mu);
  s.forced.emplace(std::string(backend), op.name);
  detail::g_any_forced_fallback.store(true, std::memory_order_relaxed);
}

bool is_fallback_forced(std::string_view backend, std::string_view op_name) {
  const OpDef* op = Catalog::get().find(op_name);
  if (!op) return false;
  detail::FallbackState& s = detail::state();
  std::lock_guard lock(s.mu);
  return s.forced.count({std::string(backend), op->name}) > 0;
}

void clear_forced_fallbacks() {
  detail::FallbackState& s = detail::state();
  std::lock_guard lock(s.mu);
  s.forced.clear();
  detail::g_any_forced_fallback.store(false, std::memory_order_relaxed);
}

FallbackStats fallback_stats() {
  detail::FallbackState& s = detail::state();
  std::lock_guard lock(s.mu);
  return s.stats;
}

void reset_fallback_stats() {
  detail::FallbackState& s = detail::state();
  std::lock_guard lock(s.mu);
  s.stats = {};
  s.warned.clear();
}

}  // namespace bp
