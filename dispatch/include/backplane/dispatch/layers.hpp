// Dispatch layers: kernels in the layer slots of the dispatch key table (Note [Dispatch key
// layout] in dispatch_key.hpp) that run above every backend, for every op (a layer
// fallback, as c10's registerFallback) or for one op. A layer kernel sees the call boxed,
// may look at or change its arguments, and goes on below itself with call_below(): the next
// layer that is on, else the backend's kernel (or the op's composite, or the CPU fallback).
// Tracing is one (LayerKey::Tracing); the User keys are for applications and tests.
//
// Which layers a call passes through: those enabled process-wide (enable_layer) or included
// on this thread (IncludeLayer), minus those excluded on this thread (ExcludeLayer), that
// have a kernel for the op. While no layer is enabled or included anywhere, a call pays one
// relaxed atomic load for all of this, and the typed API's fast path stays on.
// Thread-safe: kernels are set under a lock and read without one.
#pragma once

#include "backplane/core/catalog.hpp"
#include "backplane/core/ivalue.hpp"
#include "backplane/dispatch/dispatch_key.hpp"

#include <functional>
#include <span>
#include <vector>

namespace bp {
namespace detail {
struct CallRecord;
struct LayerAccess;
}  // namespace detail

// One call as a layer kernel sees it.
class LayerCall {
 public:
  const OpDef& op() const { return op_; }
  // The arguments as the caller gave them, in schema order (trailing defaults may be
  // missing); a layer may change them before calling below.
  std::vector<IValue>& args() { return args_; }
  // The out tensors of bp::call_out (empty for bp::call).
  std::span<Tensor* const> outs() const { return outs_; }
  bool in_place() const { return in_place_; }
  // The layers this call still has to pass, below this one.
  DispatchKeySet keys_below() const { return DispatchKeySet(below_); }
  // Runs the call below this layer and returns its outputs (for call_out, the outs).
  std::vector<Tensor> call_below();

  LayerCall(const LayerCall&) = delete;
  LayerCall& operator=(const LayerCall&) = delete;

 private:
  friend struct detail::LayerAccess;
  LayerCall(const OpDef& op, std::vector<IValue>& args, std::span<Tensor* const> outs,
            bool in_place, uint64_t below, detail::CallRecord* record)
      : op_(op), args_(args), outs_(outs), in_place_(in_place), below_(below), record_(record) {}

  const OpDef& op_;
  std::vector<IValue>& args_;
  std::span<Tensor* const> outs_;
  bool in_place_;
  uint64_t below_;
  detail::CallRecord* record_;  // where the backend dispatch says how the call ran (tracing)
};

// Returns the call's outputs: normally what call_below() returned.
using LayerKernel = std::function<std::vector<Tensor>(LayerCall&)>;

// Sets the kernel of `layer` for every op; an empty kernel removes it. Calls already inside
// the old kernel finish with it.
void set_layer_kernel(LayerKey layer, LayerKernel kernel);
// Sets the kernel of `layer` for one op, used instead of the layer's kernel for every op;
// an empty kernel removes it.
void set_layer_kernel(LayerKey layer, OpId op, LayerKernel kernel);

// Turns a layer on or off for every thread.
void enable_layer(LayerKey layer, bool on);
bool layer_enabled(LayerKey layer);

// While alive, this thread's calls pass through `layer` even when it is not enabled
// process-wide. Nests; restores the previous mask when destroyed (on the same thread).
class IncludeLayer {
 public:
  explicit IncludeLayer(LayerKey layer);
  ~IncludeLayer();
  IncludeLayer(const IncludeLayer&) = delete;
  IncludeLayer& operator=(const IncludeLayer&) = delete;

 private:
  uint64_t previous_;
};

// While alive, this thread's calls skip `layer` (for a layer kernel that makes calls of its
// own that it does not want to see).
class ExcludeLayer {
 public:
  explicit ExcludeLayer(LayerKey layer);
  ~ExcludeLayer();
  ExcludeLayer(const ExcludeLayer&) = delete;
  ExcludeLayer& operator=(const ExcludeLayer&) = delete;

 private:
  uint64_t previous_;
};

}  // namespace bp
