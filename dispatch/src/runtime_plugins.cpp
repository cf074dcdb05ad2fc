// Plugins coming and going: a descriptor's checks, ABI negotiation, init with rollback on
// failure, the load report, and unregistration with its deferred shutdown.
#include "runtime_host_api.hpp"

#include "calls_in_flight.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <optional>
#include <utility>

namespace bp::detail {
namespace {

// The report's fields that come from the descriptor, filled as far as it is readable.
PluginLoadReport report_for(const bp_plugin_descriptor* d, std::string_view origin,
                            std::string_view path) {
  PluginLoadReport r;
  r.plugin = std::string(origin);
  r.path = std::string(path);
  if (!d) return r;
  if (d->struct_size >= offsetof(bp_plugin_descriptor, abi_minor) + sizeof(d->abi_minor)) {
    r.abi_major = d->abi_major;
    r.abi_minor = d->abi_minor;
  }
  if (d->struct_size >= kDescriptorSizeV1_0) {
    if (std::string name = bounded(d->name); !name.empty()) r.plugin = std::move(name);
    r.version = bounded(d->version);
    r.vendor = bounded(d->vendor);
  }
  return r;
}

// How a load ends, for its report.
struct Verdict {
  LoadStatus status;
  std::string message;
};

// Why this runtime cannot load the plugin behind a descriptor (checked before anything of the
// plugin runs), or nothing.
std::optional<Verdict> descriptor_problem(const bp_plugin_descriptor* d) {
  if (!d) return Verdict{LoadStatus::Failed, "the descriptor is NULL"};
  if (d->struct_size < kDescriptorSizeV1_0)
    return Verdict{LoadStatus::Failed,
                   fmt::format("descriptor struct_size {} is smaller than the ABI {}.0 "
                               "descriptor ({} bytes)",
                               d->struct_size, BP_ABI_MAJOR, kDescriptorSizeV1_0)};
  if (bounded(d->name).empty() || !d->init)
    return Verdict{LoadStatus::Failed, "the descriptor has no name or no init function"};
  if (d->abi_major != BP_ABI_MAJOR)
    return Verdict{LoadStatus::Refused,
                   fmt::format("built against ABI {}.{}, this runtime provides {}.{}: the major "
                               "version must match",
                               d->abi_major, d->abi_minor, BP_ABI_MAJOR, BP_ABI_MINOR)};
  if (d->abi_minor > BP_ABI_MINOR)
    return Verdict{LoadStatus::Refused,
                   fmt::format("built against ABI {}.{}, this runtime provides {}.{}: a plugin "
                               "newer than the runtime is refused (update Backplane)",
                               d->abi_major, d->abi_minor, BP_ABI_MAJOR, BP_ABI_MINOR)};
  return std::nullopt;
}

// Why the name is not free: a loaded plugin has it, or one unregistered but not shut down yet.
std::optional<Verdict> name_taken(const std::vector<std::unique_ptr<PluginRecord>>& plugins,
                                  const std::string& name) {
  for (const auto& p : plugins) {
    if (p->active && p->name == name)
      return Verdict{LoadStatus::Refused, fmt::format("a plugin named '{}' is already loaded "
                                                      "(from {})",
                                                      name, p->origin)};
    if (p->shutdown_pending && p->name == name)
      return Verdict{LoadStatus::Refused,
                     fmt::format("the plugin '{}' was unregistered but is not shut down yet: "
                                 "tensors on its devices are still alive (its shutdown runs "
                                 "when the last one is freed)",
                                 name)};
  }
  return std::nullopt;
}

// The options text init receives: the plugin's [backends.<name>] table of the config.
std::string init_options_for(const Config* config, const std::string& name) {
  if (config)
    if (auto it = config->backend_options.find(name); it != config->backend_options.end())
      return it->second.value;
  return {};
}

std::unique_ptr<PluginRecord> make_plugin_record(Runtime* runtime, uint32_t index,
                                                 const std::string& name, std::string_view origin,
                                                 const bp_plugin_descriptor* d) {
  auto rec = std::make_unique<PluginRecord>();
  rec->name = name;
  rec->origin = std::string(origin);
  rec->descriptor = d;
  rec->active = true;
  rec->host_ctx = std::make_unique<HostContext>(HostContext{runtime, index, name, {}, {}});
  rec->host_api = make_host_api(rec->host_ctx.get());
  return rec;
}

// Runs the plugin's init; an exception that escapes it becomes the thread's plugin error.
bp_status call_init(const bp_plugin_descriptor* d, const bp_host_api& host,
                    const std::string& options) {
  // Letting an exception out of init is undefined behaviour by the ABI (init is a C
  // function). With a plugin built by the same toolchain against the shared libstdc++ and
  // libgcc_s, the exception unwinds into this frame and is caught here; the plugin is then
  // broken and never trusted. A plugin with another C++ runtime may terminate the process
  // instead: plugins must catch their exceptions (docs/dispatch.md).
  try {
    return d->init(&host, options.c_str());
  } catch (const std::exception& e) {
    thread_plugin_error() = {
        BP_ERR_INTERNAL,
        fmt::format("init let a C++ exception escape across the C ABI: {}", e.what())};
  } catch (...) {
    thread_plugin_error() = {BP_ERR_INTERNAL,
                             "init let a C++ exception escape across the C ABI (not a "
                             "std::exception)"};
  }
  return BP_ERR_INTERNAL;
}

// Why a plugin whose init failed, was refused a backend name or loaded plugins is not loaded.
Verdict failed_init_verdict(const HostContext& h, bp_status status, const PluginError& err) {
  if (!h.reentry.empty()) return {LoadStatus::Failed, h.reentry};
  if (!h.refusal.empty()) return {LoadStatus::Refused, h.refusal};
  return {LoadStatus::Failed,
          fmt::format("init failed with status {} ({}){}{}", status, status_name(status),
                      err.message.empty() ? "" : ": ", err.message)};
}

// After a successful init: loaded when a backend has a device, else why none has (the
// backends' names go into the report either way).
Verdict devices_verdict(const std::vector<const Backend*>& backends, PluginLoadReport& report) {
  std::vector<std::string> reasons;  // "backend: reason" of each backend without devices
  int devices = 0;
  for (const Backend* b : backends) {
    report.backends.push_back(b->name);
    devices += b->device_count;
    if (b->device_count == 0) reasons.push_back(b->name + ": " + b->no_device_reason);
  }
  if (backends.empty()) return {LoadStatus::NoDevices, "init registered no backend"};
  if (devices > 0) return {LoadStatus::Loaded, ""};
  // One backend (the common case): its reason as the plugin wrote it.
  if (backends.size() == 1) return {LoadStatus::NoDevices, backends[0]->no_device_reason};
  return {LoadStatus::NoDevices, fmt::format("{}", fmt::join(reasons, "; "))};
}

}  // namespace

void Runtime::record(const PluginLoadReport& report) {
  refuse_in_init("load_plugin");
  std::lock_guard lock(mu_);
  reports_.push_back(report);
}

PluginLoadReport Runtime::add_plugin(const bp_plugin_descriptor* d, std::string_view origin,
                                     std::string_view path, const Config* config) {
  refuse_in_init(path.empty() ? "register_plugin" : "load_plugin");
  std::lock_guard lock(mu_);
  PluginLoadReport report = report_for(d, origin, path);
  auto finish = [&](Verdict verdict) {
    report.status = verdict.status;
    report.message = std::move(verdict.message);
    reports_.push_back(report);
    return report;
  };
  if (std::optional<Verdict> problem = descriptor_problem(d)) return finish(std::move(*problem));
  const std::string name = bounded(d->name);
  if (std::optional<Verdict> taken = name_taken(plugins_, name)) return finish(std::move(*taken));
  // The file name did not say which plugin this is (else discovery would not have opened
  // it): the descriptor does, and a denied plugin's init never runs.
  if (config && config->denies_plugin(name))
    return finish({LoadStatus::Skipped,
                   fmt::format("denied by plugins.deny ({}); its library was opened because the "
                               "file name does not name the plugin",
                               config->plugins.deny.origin)});
  const std::string init_options = init_options_for(config, name);

  const uint32_t index = static_cast<uint32_t>(plugins_.size());
  plugins_.push_back(make_plugin_record(this, index, name, origin, d));
  PluginRecord& plugin = *plugins_.back();
  thread_plugin_error() = {};
  initializing_ = plugin.host_ctx.get();
  const bp_status status = call_init(d, plugin.host_api, init_options);
  initializing_ = nullptr;
  const PluginError err = std::exchange(thread_plugin_error(), {});
  if (status != BP_OK || !plugin.host_ctx->refusal.empty() || !plugin.host_ctx->reentry.empty()) {
    remove_plugin_locked(index);
    plugin.active = false;
    // shutdown follows a successful init only: a failing init cleans up before returning.
    if (status == BP_OK && d->shutdown) call_shutdown(plugin);
    return finish(failed_init_verdict(*plugin.host_ctx, status, err));
  }
  std::vector<const Backend*> backends;
  for (DeviceType t : plugin.backends) backends.push_back(backends_[t].load());
  return finish(devices_verdict(backends, report));
}

void Runtime::call_shutdown(PluginRecord& plugin) {
  try {
    plugin.descriptor->shutdown();
  } catch (...) {
    // Same undefined behaviour as in init; nothing is left to roll back.
    fmt::print(stderr, "backplane: warning: plugin {} let a C++ exception escape shutdown\n",
               plugin.name);
  }
}

void Runtime::remove_plugin_locked(uint32_t plugin) {
  PluginRecord& rec = *plugins_[plugin];
  const size_t n = Catalog::get().ops().size();
  for (OpId op = 0; op < n; ++op) {
    const OpTable& current = table(op);
    bool touched = false;
    OpTable next = current;
    for (auto& slot : next.slots) {
      if (slot.fn && slot.plugin == plugin) {
        slot = KernelSlot{};
        touched = true;
      }
    }
    if (touched) publish(op, next);
  }
  for (DeviceType t : rec.backends) {
    Backend* b = backends_[t].load();
    // Cached blocks go back while the plugin can still free them; live ones count in
    // `holds` until their tensors go (Note [Deferred shutdown]).
    for (const auto& a : b->allocators) a->close(&rec.holds);
    b->active.store(false, std::memory_order_release);
    backends_[t].store(nullptr, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  rec.backends.clear();
}

// Note [Deferred shutdown]
// A plugin's shutdown releases everything, and the ABI promises that no call into the
// plugin follows it. Unregistration therefore runs in three steps:
//   1. under the mutex: the plugin's kernels leave the tables and its backends their slots
//      (new calls fail with a Device or NotImplemented error), its allocators return their
//      cached blocks and refuse new allocations, and every block tensors still hold adds
//      one to the record's `holds` (which starts at 1 for the unregistration itself);
//   2. without the mutex: wait for the calls in flight on other threads, which may have
//      read the tables before step 1 (Note [Waiting for calls in flight]);
//   3. drop the unregistration's hold. Whoever brings `holds` to 0 (this thread, or the
//      thread that frees the last tensor on the plugin's devices) calls shutdown.
// Until then the plugin's name stays taken: loading it again is refused with the reason,
// because its init would run while the old instance is still alive.
void Runtime::remove_plugin(std::string_view name) {
  refuse_in_init("unregister_plugin");
  uint32_t plugin = 0;
  PluginRecord* record = nullptr;  // plugins_ may grow once the mutex is released
  {
    std::lock_guard lock(mu_);
    for (; plugin < plugins_.size(); ++plugin)
      if (plugins_[plugin]->active && plugins_[plugin]->name == name) break;
    BP_CHECK(plugin < plugins_.size(), ErrorCode::InvalidArgument,
             "unregister_plugin: no loaded plugin is named '{}'", name);
    record = plugins_[plugin].get();
    PluginRecord& rec = *record;
    rec.holds.store(1, std::memory_order_relaxed);
    rec.shutdown_pending = true;
    remove_plugin_locked(plugin);
    rec.active = false;
  }
  wait_for_calls_in_flight();
  if (record->holds.fetch_sub(1, std::memory_order_acq_rel) == 1) finish_unregistration(plugin);
}

void Runtime::finish_unregistration(uint32_t plugin) {
  auto lock = read_lock();  // a plugin's init (mutex held) may free the last tensor
  PluginRecord& rec = *plugins_[plugin];
  if (!rec.shutdown_pending) return;
  rec.shutdown_pending = false;
  if (rec.descriptor->shutdown) call_shutdown(rec);
}

}  // namespace bp::detail
