// Internal: the dispatcher's side of the layer keys (layers.hpp): the word every call tests,
// the thread-local include/exclude masks, and running a call through the layers that are on.
#pragma once

#include "backplane/dispatch/layers.hpp"

#include <atomic>
#include <cstdint>
#include <span>
#include <vector>

namespace bp::detail {

// Bits 48..63: the layers enabled process-wide (at their key's bit); bits 0..47: how many
// IncludeLayer guards are alive on any thread. Zero, the common case, means no call passes
// through a layer: bp::call, bp::call_out and the fast path test this one word.
inline std::atomic<uint64_t> g_layer_word{0};
inline constexpr uint64_t kLayerBits = ~uint64_t{0} << kFirstLayerKey;

struct LayerMasks {
  uint64_t include = 0;
  uint64_t exclude = 0;
};
extern thread_local LayerMasks t_layer_masks __attribute__((tls_model("initial-exec")));

// The layers a call on this thread passes through now (layer bits only).
inline uint64_t active_layers() {
  const uint64_t enabled = g_layer_word.load(std::memory_order_relaxed) & kLayerBits;
  return (enabled | t_layer_masks.include) & ~t_layer_masks.exclude;
}

// Whether a call on this thread passes through any layer. The first load is all a call pays
// while no layer is enabled or included anywhere; with one included on another thread only,
// this thread's masks say no and its calls go on as if no layer existed.
[[gnu::always_inline]] inline bool layers_on() {
  return g_layer_word.load(std::memory_order_relaxed) != 0 && active_layers() != 0;
}

// Runs a call through `layers` (highest key first; each layer's kernel for the op, if it
// has one), then the backend dispatch, which writes how the call ran into `record` when
// that is not null.
std::vector<Tensor> run_layers(OpId op, std::vector<IValue>& args, std::span<Tensor* const> outs,
                               bool in_place, uint64_t layers, CallRecord* record);

// What the dispatcher's own layers (tracing) reach in a LayerCall.
struct LayerAccess {
  static std::vector<Tensor> run(const LayerKernel& kernel, const OpDef& op,
                                 std::vector<IValue>& args, std::span<Tensor* const> outs,
                                 bool in_place, uint64_t below, CallRecord* record) {
    LayerCall call(op, args, outs, in_place, below, record);
    return kernel(call);
  }
  static void set_record(LayerCall& call, CallRecord* record) { call.record_ = record; }
};

}  // namespace bp::detail
