// Internal: the runtime's state — plugins, backends (one per dispatch slot), per-device
// allocators and the per-operator kernel tables — and the host side of the C ABI.
//
// Note [Calls into the runtime from init]
// A plugin's init runs with the runtime mutex held (add_plugin registers its backends and
// kernels as one step, rolled back if init fails). A C++ plugin linked into the host can
// call the public API from there; with a plain std::mutex that was a self-deadlock. Now:
// calls that only read the runtime (bp::backends, plugin_reports, op_table, dispatching an
// op) skip the lock on the thread that runs init, which already holds it; calls that load
// or unload plugins (load_plugin, register_plugin, discover_plugins, unregister_plugin)
// throw bp::Error naming the call and the plugin, and the load then fails with that
// message. The host API itself (register_backend, register_kernel) is refused outside
// init: on another thread, or after init returned.
//
// Note [Lock-free kernel tables]
// Each operator has an immutable OpTable reached through an atomic pointer. A call reads
// the pointer (acquire) and indexes it by dispatch slot: no lock, no reference count.
// Registration and unregistration take the runtime mutex, copy the table, change the copy
// and publish it (release). Replaced tables are retired, never freed (the runtime lives
// until the process ends): a call that read the old pointer may still be using it. A table
// is 64 slots (1.5 KiB) and only the ops a plugin registers change when it loads or
// unloads, so the retired memory grows by about that per load, bounded by how often a
// program loads plugins.
#pragma once

#include "caching_allocator.hpp"

#include "backplane/core/catalog.hpp"
#include "backplane/core/storage.hpp"
#include "backplane/dispatch/config.hpp"
#include "backplane/dispatch/dispatch_key.hpp"
#include "backplane/dispatch/runtime.hpp"
#include "backplane/dispatch/selector.hpp"

#include <backplane/plugin.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bp::detail {

struct KernelSlot {
  bp_kernel_fn fn = nullptr;
  void* ctx = nullptr;
  bp_dtype_mask dtypes = 0;
  uint32_t plugin = 0;  // index into Runtime::plugins_
  // The kernel's dense entry (ABI 1.3, optional; plugin.h's bp_dense_call): the elementwise
  // fast path calls it for contiguous calls of these dtypes, a subset of `dtypes`.
  bp_dtype_mask dense_dtypes = 0;
  bp_dense_kernel_fn dense = nullptr;
  void* dense_ctx = nullptr;
};

struct OpTable {
  std::array<KernelSlot, 64> slots{};
};

struct Backend;

struct Backend {
  std::string name;
  DeviceType type = 0;
  uint32_t plugin = 0;
  const bp_device_api* api = nullptr;
  void* ctx = nullptr;
  // Cleared by unregistration while calls may be reading it without the lock (backend()).
  std::atomic<bool> active{false};
  int device_count = 0;
  std::string no_device_reason;
  std::vector<bp_device_props> props;
  // One per device, over the plugin's alloc/free (caching_allocator.hpp). Never removed:
  // tensors may outlive the plugin's unregistration and still free through them.
  std::vector<std::unique_ptr<CachingAllocator>> allocators;

  bool host_accessible(int index) const {
    return props[static_cast<size_t>(index)].flags & BP_DEVICE_HOST_ACCESSIBLE;
  }
};

struct PluginRecord;

// The per-plugin context behind bp_host_api::host.
class Runtime;
struct HostContext {
  Runtime* runtime = nullptr;  // not Runtime::get(): init runs inside the runtime's constructor
  uint32_t plugin = 0;
  // The plugin's name, for messages read without the runtime mutex (a host-API call may
  // come from any thread, at any time, once a plugin has stashed the host pointer).
  std::string name;
  // Set by register_backend when the backend name is taken: the plugin is then refused
  // (not failed), whatever its init returns.
  std::string refusal;
  // Set when init called the runtime's API to load or unload a plugin (refused with this
  // message): the load then fails with it, whatever init returns.
  std::string reentry;
};

struct PluginRecord {
  std::string name;
  std::string origin;
  const bp_plugin_descriptor* descriptor = nullptr;
  bool active = false;
  std::unique_ptr<HostContext> host_ctx;
  bp_host_api host_api{};
  std::vector<DeviceType> backends;
  // Unregistered, shutdown not called yet (mutex held): Note [Deferred shutdown].
  bool shutdown_pending = false;
  // While shutdown is pending: 1 for the unregistration itself, plus one per block that
  // tensors still hold on the plugin's devices. The release that brings it to 0 calls
  // finish_unregistration.
  std::atomic<int64_t> holds{0};
};

class Runtime {
 public:
  static Runtime& get();

  const OpTable& table(OpId op) const { return *tables_[op].load(std::memory_order_acquire); }
  // The active backend of a slot, or nullptr.
  [[gnu::always_inline]] Backend* backend(DeviceType type) const {
    Backend* b = backends_[type].load(std::memory_order_acquire);
    return b && b->active.load(std::memory_order_acquire) ? b : nullptr;
  }
  // Throws bp::Error(Device) when the device does not exist.
  Backend& backend_for(Device device, std::string_view op = {}) const;
  CachingAllocator& allocator(Device device);
  // The first device of the default selector (set_default_selector) among the loaded
  // backends; without one, accelerators first, then the CPU, out-of-tree backends and the
  // reference oracle last. Throws bp::Error(Device) when nothing matches.
  Device default_device() const;
  void set_default_selector(const DeviceSelector& selector);

  // `origin` names the plugin's source in messages; `path` is its library ("" if built in).
  // With a config, a plugin whose descriptor name plugins.deny lists is skipped before its
  // init, and init receives the plugin's [backends.<name>] options text.
  PluginLoadReport add_plugin(const bp_plugin_descriptor* d, std::string_view origin,
                              std::string_view path = {}, const Config* config = nullptr);
  // Appends the report of a candidate that never reached add_plugin (no such file, not a
  // library, no entry symbol) so plugin_reports() lists every candidate.
  void record(const PluginLoadReport& report);
  void remove_plugin(std::string_view name);
  // Calls the shutdown of an unregistered plugin once nothing can reach it any more
  // (Note [Deferred shutdown]); called by the last release of its `holds`.
  void finish_unregistration(uint32_t plugin);
  std::vector<PluginLoadReport> reports() const;
  std::vector<BackendInfo> backend_infos() const;
  std::string plugin_name(uint32_t plugin) const;

  // Throws bp::Error naming `call` and the plugin when this thread is running a plugin's
  // init: loading or unloading plugins from there would lock the runtime mutex that the
  // thread already holds (Note [Calls into the runtime from init]).
  void refuse_in_init(std::string_view call) const;

  // Host API callbacks (called by plugins during init).
  bp_status register_backend(HostContext* h, const char* name, const bp_device_api* api, void* ctx,
                             uint32_t* out_id);
  bp_status register_kernel(HostContext* h, uint32_t backend_id, const char* op_name,
                            bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx);
  bp_status register_dense_kernel(HostContext* h, uint32_t backend_id, const char* op_name,
                                  bp_dtype_mask dtypes, bp_dense_kernel_fn fn, void* kernel_ctx);

 private:
  Runtime();
  void publish(OpId op, const OpTable& table);  // mutex held
  // The checks register_kernel and register_dense_kernel (`call`) share: from init, a known
  // op, a backend of this plugin, a function, a valid dtype mask. Returns the op, or null
  // having set the error (*status).
  const OpDef* check_registration(std::string_view call, HostContext* h, uint32_t backend_id,
                                  const char* op_name_text, bp_dtype_mask dtypes, bool has_fn,
                                  bp_status* status);
  void remove_plugin_locked(uint32_t plugin);  // mutex held
  static void call_shutdown(PluginRecord& plugin);
  // The runtime mutex for a reader, unless this thread runs a plugin's init and so
  // already holds it (then the lock is left unlocked: the reader is the writer).
  std::unique_lock<std::mutex> read_lock() const;

  mutable std::mutex mu_;
  std::unique_ptr<std::atomic<const OpTable*>[]> tables_;
  std::vector<std::unique_ptr<OpTable>> table_store_;  // every table ever published
  std::array<std::atomic<Backend*>, device_types::kMaxBackends> backends_{};
  std::vector<std::unique_ptr<Backend>> backend_store_;
  std::vector<std::unique_ptr<PluginRecord>> plugins_;
  std::vector<PluginLoadReport> reports_;
  // The default-device selector; has_selector_ lets the common case (none set) skip the lock.
  std::atomic<bool> has_selector_{false};
  mutable std::mutex selector_mu_;
  DeviceSelector selector_;
  // Factories without a device ask for the default device on every call, so the selector's
  // answer is cached: `generation_` changes whenever a backend comes or goes or the selector
  // changes, and `cached_default_` holds (generation + 1) << 32 | type << 16 | index of the
  // answer computed at that generation (0: none yet; errors are not cached).
  std::atomic<uint64_t> generation_{0};
  mutable std::atomic<uint64_t> cached_default_{0};
  // The plugin whose init is running on this thread (registration is only legal then).
  static thread_local HostContext* initializing_;
};

// Thread-local error reported by a plugin through host->set_error.
struct PluginError {
  bp_status code = BP_OK;
  std::string message;
};
// This thread's PluginError, made on first use.
PluginError& thread_plugin_error();
// It, or null while this thread has none yet. A trivially initialised initial-exec pointer
// (as t_calls in calls_in_flight.hpp), because every kernel call resets the code: a
// thread_local std::string would cost a TLS init wrapper call on each of them.
extern thread_local constinit PluginError* t_plugin_error
    __attribute__((tls_model("initial-exec")));
// Forgets the code of an earlier error (its message is only read with a non-OK code).
inline void clear_plugin_error_code() {
  if (PluginError* e = t_plugin_error) e->code = BP_OK;
}

// "f32, f64" for a bp_dtype_mask ("all dtypes" when every bit is set).
std::string dtype_mask_names(uint32_t mask);

// load_plugin without the warning (discovery prints its own, per its options).
// The report of a plugin file the config rules out (never opened), recorded like the others.
PluginLoadReport skipped_plugin(const std::filesystem::path& path, std::string reason);
// With a config, see Runtime::add_plugin.
PluginLoadReport open_plugin(const std::filesystem::path& path, const Config* config = nullptr);
// The one stderr line for a refused or failed plugin; nothing for loaded / no-devices.
void warn_if_unusable(const PluginLoadReport& report);

// Throws bp::Error for a non-OK status, using the plugin's message when it set one.
// `what` says what was called: "add.Tensor on reference:0", "alloc on cuda:0".
[[noreturn]] void throw_status(bp_status status, std::string_view what);

}  // namespace bp::detail
