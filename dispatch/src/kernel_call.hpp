// Internal: the one place a call reaches a backend's kernel. The gate (which kernel slot runs
// an op for a dtype on a device, if any) and the bp_call handed to it are built here, for
// the boxed dispatch (dispatcher.cpp) and the elementwise fast path (fast_path.hpp) alike,
// so the two cannot disagree on when a kernel runs or on what it receives. The fast path may
// call the kernel's dense entry instead (call_dense_kernel), behind the same gate.
#pragma once

#include "fallback_impl.hpp"
#include "runtime_impl.hpp"

#include "backplane/core/catalog.hpp"

#include <backplane/plugin.h>

#include <cstddef>

namespace bp::detail {

enum class KernelGate : uint8_t {
  Run,       // the slot has a kernel for the dtype and nothing forces the op off it
  NoKernel,  // no kernel, or none for this dtype
  Forced,    // the backend forces the op to the CPU fallback (never on the CPU itself)
};

// Whether `slot` (the op's slot for device.type) runs `op` for kernel dtype `dtype` (a
// ScalarType's number; ScalarType::Undefined never runs).
[[gnu::always_inline]] inline KernelGate kernel_gate(const KernelSlot& slot, const OpDef& op,
                                                     Device device, unsigned dtype) {
  if (!slot.fn || dtype >= 32 || !((slot.dtypes >> dtype) & 1u)) return KernelGate::NoKernel;
  if (device.type != device_types::CPU && forced_fallback(device.type, op))
    return KernelGate::Forced;
  return KernelGate::Run;
}

// Throws bp::Error for a kernel's non-OK status: "<op> on <device>: <the plugin's message>".
[[noreturn, gnu::cold]] void kernel_failed(bp_status status, const OpDef& op, Device device);

// Calls the kernel of `slot` with `nargs` boxed values (the op's arguments in schema order,
// then its `noutputs` outputs) on `device`. Throws bp::Error for a non-OK status, with the
// plugin's message when it set one.
[[gnu::always_inline]] inline void call_kernel(const KernelSlot& slot, const OpDef& op,
                                               Device device, const bp_value* args, size_t nargs,
                                               size_t noutputs) {
  bp_call call;
  call.struct_size = sizeof(bp_call);
  call.op_name = op.name.c_str();
  call.args = args;
  call.nargs = nargs;
  call.noutputs = noutputs;
  call.device_index = device.index;
  call.stream = nullptr;  // reserved (plugin.h): kernels run synchronously
  call.kernel_ctx = slot.ctx;
  clear_plugin_error_code();
  const bp_status status = slot.fn(&call);
  if (status != BP_OK) [[unlikely]]
    kernel_failed(status, op, device);
}

// Calls the dense entry of `slot` (plugin.h's bp_dense_call; the caller has checked that the
// call is one it may take) with `call`'s data members filled. Returns false when the entry
// declined the call (BP_ERR_UNSUPPORTED, nothing written: the caller runs the kernel instead);
// throws as call_kernel for any other non-OK status.
[[gnu::always_inline]] inline bool call_dense_kernel(const KernelSlot& slot, const OpDef& op,
                                                     Device device, bp_dense_call& call) {
  call.struct_size = sizeof(bp_dense_call);
  call.device_index = device.index;
  call.kernel_ctx = slot.dense_ctx;
  clear_plugin_error_code();
  const bp_status status = slot.dense(&call);
  if (status == BP_OK) [[likely]]
    return true;
  if (status == BP_ERR_UNSUPPORTED) return false;
  kernel_failed(status, op, device);
}

}  // namespace bp::detail
