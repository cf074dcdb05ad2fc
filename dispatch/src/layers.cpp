// The layer slots of the dispatch key table (layers.hpp, layers_impl.hpp): per layer key, a
// kernel for every op and kernels for single ops, published like the backend kernel tables
// (Note [Lock-free kernel tables] in runtime_impl.hpp: immutable, read without a lock,
// replaced under one and retired, never freed).
#include "layers_impl.hpp"

#include "dispatch_impl.hpp"

#include "backplane/core/error.hpp"

#include <array>
#include <memory>
#include <mutex>

namespace bp {
namespace detail {

thread_local LayerMasks t_layer_masks __attribute__((tls_model("initial-exec")));

namespace {

struct LayerTable {
  std::shared_ptr<const LayerKernel> every_op;
  std::vector<std::shared_ptr<const LayerKernel>> per_op;  // by OpId; null: every_op's
};

struct LayerSlots {
  std::mutex mu;
  std::array<std::atomic<const LayerTable*>, kNumLayerKeys> tables{};
  std::vector<std::unique_ptr<LayerTable>> retired;  // every table ever published
};

LayerSlots& slots() {
  static LayerSlots s;
  return s;
}

unsigned slot_of(LayerKey layer) {
  const auto key = static_cast<unsigned>(layer);
  BP_CHECK(key >= kFirstLayerKey && key < kFirstLayerKey + kNumLayerKeys,
           ErrorCode::InvalidArgument, "layer key {} is not a layer key ({}..{})", key,
           kFirstLayerKey, kFirstLayerKey + kNumLayerKeys - 1);
  return key - kFirstLayerKey;
}

// Copies the layer's table, lets `change` edit the copy, and publishes it.
template <typename Change>
void republish(LayerKey layer, Change change) {
  LayerSlots& s = slots();
  const unsigned slot = slot_of(layer);
  std::lock_guard lock(s.mu);
  const LayerTable* current = s.tables[slot].load(std::memory_order_relaxed);
  auto next = current ? std::make_unique<LayerTable>(*current) : std::make_unique<LayerTable>();
  change(*next);
  s.tables[slot].store(next.get(), std::memory_order_release);
  s.retired.push_back(std::move(next));
}

std::shared_ptr<const LayerKernel> share(LayerKernel kernel) {
  return kernel ? std::make_shared<const LayerKernel>(std::move(kernel)) : nullptr;
}

// The kernel of layer key `key` for `op`, or nullptr.
const LayerKernel* layer_kernel(unsigned key, OpId op) {
  const LayerTable* t = slots().tables[key - kFirstLayerKey].load(std::memory_order_acquire);
  if (t == nullptr) return nullptr;
  if (op < t->per_op.size() && t->per_op[op]) return t->per_op[op].get();
  return t->every_op.get();
}

// Adds `delta` to the count of live IncludeLayer guards (bits 0..47 of the word).
void count_include_guards(int64_t delta) {
  g_layer_word.fetch_add(static_cast<uint64_t>(delta), std::memory_order_relaxed);
}

}  // namespace

std::vector<Tensor> run_layers(OpId op, std::vector<IValue>& args, std::span<Tensor* const> outs,
                               bool in_place, uint64_t layers, CallRecord* record) {
  while (layers != 0) {
    const unsigned key = DispatchKeySet(layers).highest();
    layers &= (uint64_t{1} << key) - 1;  // the keys below this one
    if (const LayerKernel* kernel = layer_kernel(key, op))
      return LayerAccess::run(*kernel, Catalog::get().at(op), args, outs, in_place, layers, record);
  }
  return dispatch(op, args, outs, in_place, record);
}

}  // namespace detail

std::vector<Tensor> LayerCall::call_below() {
  return detail::run_layers(op_.id, args_, outs_, in_place_, below_, record_);
}

void set_layer_kernel(LayerKey layer, LayerKernel kernel) {
  detail::republish(layer, [&](detail::LayerTable& t) { t.every_op = detail::share(kernel); });
}

void set_layer_kernel(LayerKey layer, OpId op, LayerKernel kernel) {
  const OpDef& def = Catalog::get().at(op);  // throws for an unknown id
  detail::republish(layer, [&](detail::LayerTable& t) {
    if (t.per_op.size() <= def.id) t.per_op.resize(def.id + 1);
    t.per_op[def.id] = detail::share(kernel);
  });
}

void enable_layer(LayerKey layer, bool on) {
  (void)detail::slot_of(layer);
  const uint64_t bit = uint64_t{1} << static_cast<unsigned>(layer);
  if (on)
    detail::g_layer_word.fetch_or(bit, std::memory_order_relaxed);
  else
    detail::g_layer_word.fetch_and(~bit, std::memory_order_relaxed);
}

bool layer_enabled(LayerKey layer) {
  return (detail::g_layer_word.load(std::memory_order_relaxed) >> static_cast<unsigned>(layer)) &
         1u;
}

IncludeLayer::IncludeLayer(LayerKey layer) : previous_(detail::t_layer_masks.include) {
  (void)detail::slot_of(layer);
  detail::t_layer_masks.include |= uint64_t{1} << static_cast<unsigned>(layer);
  detail::count_include_guards(+1);
}

IncludeLayer::~IncludeLayer() {
  detail::t_layer_masks.include = previous_;
  detail::count_include_guards(-1);
}

ExcludeLayer::ExcludeLayer(LayerKey layer) : previous_(detail::t_layer_masks.exclude) {
  (void)detail::slot_of(layer);
  detail::t_layer_masks.exclude |= uint64_t{1} << static_cast<unsigned>(layer);
}

ExcludeLayer::~ExcludeLayer() {
  detail::t_layer_masks.exclude = previous_;
}

}  // namespace bp
