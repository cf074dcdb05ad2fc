// The runtime's state: backends and their devices, the default device, and the lock-free
// kernel tables. Plugins are added and removed in runtime_plugins.cpp; the host side of the
// C ABI is runtime_host_api.cpp.
#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>

extern "C" const bp_plugin_descriptor* bp_reference_plugin_query(void);

namespace bp::detail {

thread_local HostContext* Runtime::initializing_ = nullptr;

Runtime& Runtime::get() {
  // Never destroyed, on purpose: tensors in static objects may be freed after it would have
  // been, plugins' cached blocks stay reachable to the end (a leak checker does not report
  // them: the cache does not call plugins at exit, docs/allocator.md), and a call on
  // another thread at exit finds it intact.
  static Runtime& runtime = *new Runtime;
  return runtime;
}

Runtime::Runtime() {
  const Catalog& catalog = Catalog::get();
  const size_t n = catalog.ops().size();
  tables_ = std::make_unique<std::atomic<const OpTable*>[]>(n);
  auto empty = std::make_unique<OpTable>();
  for (size_t i = 0; i < n; ++i) tables_[i].store(empty.get(), std::memory_order_relaxed);
  table_store_.push_back(std::move(empty));
  // The reference backend is built in: always present, the oracle for every other one.
  PluginLoadReport report = add_plugin(bp_reference_plugin_query(), "built-in");
  if (report.status != LoadStatus::Loaded)
    fmt::print(stderr, "backplane: the built-in reference backend failed: {}\n", report.message);
}

Backend& Runtime::backend_for(Device device, std::string_view op) const {
  Backend* b = backend(device.type);
  if (!b) {
    std::vector<std::string> names;
    for (const auto& info : backend_infos()) names.push_back(info.name);
    BP_FAIL(ErrorCode::Device,
            "{}{}device {} is not available: no backend '{}' is loaded "
            "(loaded: {})",
            op, op.empty() ? "" : ": ", device.str(), device_type_name(device.type),
            fmt::join(names, ", "));
  }
  BP_CHECK(device.index >= 0 && device.index < b->device_count, ErrorCode::Device,
           "{}{}device {} does not exist: backend '{}' has {} device(s){}", op,
           op.empty() ? "" : ": ", device.str(), b->name, b->device_count,
           b->device_count == 0 ? " (" + b->no_device_reason + ")" : std::string());
  return *b;
}

CachingAllocator& Runtime::allocator(Device device) {
  Backend& b = backend_for(device);
  return *b.allocators[static_cast<size_t>(device.index)];
}

void Runtime::set_default_selector(const DeviceSelector& selector) {
  std::lock_guard lock(selector_mu_);
  selector_ = selector;
  generation_.fetch_add(1, std::memory_order_acq_rel);
  has_selector_.store(!selector.is_default(), std::memory_order_release);
}

Device Runtime::default_device() const {
  if (has_selector_.load(std::memory_order_acquire)) {
    const uint64_t generation = generation_.load(std::memory_order_acquire) & 0xffffffffu;
    const uint64_t cached = cached_default_.load(std::memory_order_acquire);
    if ((cached >> 32) == generation + 1)
      return Device(static_cast<DeviceType>((cached >> 16) & 0xffffu),
                    static_cast<int16_t>(cached & 0xffffu));
    DeviceSelector selector;
    {
      std::lock_guard lock(selector_mu_);
      selector = selector_;
    }
    const std::vector<BackendInfo> available = backend_infos();
    const Device device = selector.first_available(available);
    // Tagged with the generation read before computing: a change in between makes the
    // entry stale at once, and the next call computes again.
    cached_default_.store(
        (generation + 1) << 32 | uint64_t{device.type} << 16 | static_cast<uint16_t>(device.index),
        std::memory_order_release);
    return device;
  }
  // Accelerators first, then the CPU, out-of-tree backends, and the reference oracle last.
  static constexpr DeviceType kPriority[] = {device_types::CUDA, device_types::ROCm,
                                             device_types::LevelZero, device_types::OpenCL,
                                             device_types::CPU};
  for (DeviceType t : kPriority)
    if (Backend* b = backend(t); b && b->device_count > 0) return Device(t, 0);
  for (DeviceType t = device_types::kFirstDynamic; t < device_types::kMaxBackends; ++t)
    if (Backend* b = backend(t); b && b->device_count > 0) return Device(t, 0);
  if (Backend* b = backend(device_types::Reference); b && b->device_count > 0)
    return Device(device_types::Reference, 0);
  BP_FAIL(ErrorCode::Device, "no device is available: no loaded backend reported a device");
}

std::unique_lock<std::mutex> Runtime::read_lock() const {
  if (initializing_) return std::unique_lock<std::mutex>(mu_, std::defer_lock);
  return std::unique_lock<std::mutex>(mu_);
}

void Runtime::refuse_in_init(std::string_view call) const {
  HostContext* h = initializing_;
  if (!h) return;
  std::string message = fmt::format(
      "{} called from the init of plugin '{}': a plugin's init must not load or unload "
      "plugins (the runtime is in the middle of loading '{}'); call it after the load returns",
      call, h->name, h->name);
  // Remembered so that the load fails even when init catches the error and returns OK.
  if (h->reentry.empty()) h->reentry = message;
  detail::throw_error(ErrorCode::InvalidArgument, message);
}

std::string Runtime::plugin_name(uint32_t plugin) const {
  auto lock = read_lock();
  return plugin < plugins_.size() ? plugins_[plugin]->name : std::string("?");
}

void Runtime::publish(OpId op, const OpTable& table) {
  auto stored = std::make_unique<OpTable>(table);
  tables_[op].store(stored.get(), std::memory_order_release);
  table_store_.push_back(std::move(stored));
}

std::vector<PluginLoadReport> Runtime::reports() const {
  auto lock = read_lock();
  return reports_;
}

std::vector<BackendInfo> Runtime::backend_infos() const {
  auto lock = read_lock();
  std::vector<BackendInfo> out;
  for (DeviceType t = 0; t < device_types::kMaxBackends; ++t) {
    if (Backend* b = backend(t)) {
      out.push_back(
          {b->name, b->type, plugins_[b->plugin]->name, b->device_count, b->no_device_reason});
    }
  }
  return out;
}

}  // namespace bp::detail
