// The runtime's state: plugin registration (descriptor checks, ABI negotiation, init with
// rollback on failure), backends and their devices, and the host side of the C ABI.
#include "runtime_impl.hpp"

#include "calls_in_flight.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>

extern "C" const bp_plugin_descriptor* bp_reference_plugin_query(void);

namespace bp::detail {

thread_local HostContext* Runtime::initializing_ = nullptr;

PluginError& thread_plugin_error() {
  thread_local PluginError error;
  return error;
}

namespace {

// A plugin's strings are read with a bound: a broken plugin may hand out text without a
// NUL (found by fuzzing, tests/fuzz/corpus/plugin/regress-*). Names (of plugins, backends
// and ops) and reasons are read up to kMaxPluginName bytes; error and log messages up to
// kMaxPluginMessage bytes, cut there. The host never reads more of any plugin string.
constexpr size_t kMaxPluginName = 256;
constexpr size_t kMaxPluginMessage = 4096;

std::string_view plugin_text(const char* text, size_t limit) {
  return text ? std::string_view(text, strnlen(text, limit)) : std::string_view();
}

ErrorCode error_code_for(bp_status status) {
  switch (status) {
    case BP_ERR_INVALID_ARGUMENT:
      return ErrorCode::InvalidArgument;
    case BP_ERR_UNSUPPORTED:
      return ErrorCode::NotImplemented;
    case BP_ERR_OUT_OF_MEMORY:
      return ErrorCode::OutOfMemory;
    case BP_ERR_DEVICE:
      return ErrorCode::Device;
    case BP_ERR_INDEX:
      return ErrorCode::Index;
    case BP_ERR_NO_DEVICE:
      return ErrorCode::Device;
    default:
      return ErrorCode::Backend;
  }
}

std::string_view status_name(bp_status status) {
  switch (status) {
    case BP_ERR_INVALID_ARGUMENT:
      return "invalid argument";
    case BP_ERR_UNSUPPORTED:
      return "unsupported";
    case BP_ERR_OUT_OF_MEMORY:
      return "out of memory";
    case BP_ERR_DEVICE:
      return "device error";
    case BP_ERR_INDEX:
      return "index out of range";
    case BP_ERR_INTERNAL:
      return "internal error";
    case BP_ERR_NOT_FOUND:
      return "not found";
    case BP_ERR_NO_DEVICE:
      return "no device";
    default:
      return "unknown status";
  }
}

// The sizes of the ABI 1.0 structs: the smallest a plugin of this major may pass. Pinned to
// the last 1.0 member, not to sizeof, so that appending members in a later minor keeps
// accepting plugins built against 1.0 (they pass the smaller struct_size).
constexpr size_t kDescriptorSizeV1_0 =
    offsetof(bp_plugin_descriptor, shutdown) + sizeof(bp_plugin_descriptor::shutdown);
constexpr size_t kDeviceApiSizeV1_0 =
    offsetof(bp_device_api, synchronize) + sizeof(bp_device_api::synchronize);

// What is wrong with a device API: "" when usable, else the missing required functions.
std::string missing_device_api_slots(const bp_device_api* api) {
  if (!api) return "the device API is NULL";
  if (api->struct_size < kDeviceApiSizeV1_0)
    return fmt::format(
        "bp_device_api struct_size {} is smaller than the ABI {}.0 struct ({} "
        "bytes)",
        api->struct_size, BP_ABI_MAJOR, kDeviceApiSizeV1_0);
  std::vector<std::string_view> missing;
  if (!api->device_count) missing.push_back("device_count");
  if (!api->device_properties) missing.push_back("device_properties");
  if (!api->alloc) missing.push_back("alloc");
  if (!api->free) missing.push_back("free");
  if (!api->copy) missing.push_back("copy");
  if (missing.empty()) return {};
  return fmt::format(
      "the device API has no {} (device_count, device_properties, alloc, free "
      "and copy are required)",
      fmt::join(missing, ", "));
}

// A C string from a plugin, read with a bound (a broken plugin may hand out garbage).
std::string bounded(const char* text) {
  return std::string(plugin_text(text, kMaxPluginName));
}

// The message for a registration outside init: after init returned (a stashed host
// pointer), or from another thread than the one running init.
std::string outside_init(std::string_view call, const HostContext* h, const char* what) {
  return fmt::format(
      "{}({}) by plugin '{}' outside its init: backends and kernels may only be registered "
      "from init, on the thread that runs it (after init returns, or from another thread, the "
      "call is refused and changes nothing)",
      call, bounded(what), h ? h->name : std::string("?"));
}

// ---- host API trampolines: C entry points that never let an exception escape ----------
// A plugin that passes NULL instead of bp_host_api::host gets an error, not a crash on the
// way to Runtime's own check (found by fuzzing, tests/fuzz/corpus/plugin/regress-*).
bp_status null_host(std::string_view function) {
  thread_plugin_error() = {
      BP_ERR_INVALID_ARGUMENT,
      fmt::format("{}: the host argument is NULL (pass bp_host_api::host)", function)};
  return BP_ERR_INVALID_ARGUMENT;
}

bp_status host_register_backend(void* host, const char* name, const bp_device_api* api, void* ctx,
                                uint32_t* out_id) {
  try {
    if (!host) return null_host("register_backend");
    auto* h = static_cast<HostContext*>(host);
    return h->runtime->register_backend(h, name, api, ctx, out_id);
  } catch (const std::exception& e) {
    thread_plugin_error() = {BP_ERR_INTERNAL, e.what()};
    return BP_ERR_INTERNAL;
  }
}

bp_status host_register_kernel(void* host, uint32_t backend_id, const char* op_name,
                               bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx) {
  try {
    if (!host) return null_host("register_kernel");
    auto* h = static_cast<HostContext*>(host);
    return h->runtime->register_kernel(h, backend_id, op_name, dtypes, fn, kernel_ctx);
  } catch (const std::exception& e) {
    thread_plugin_error() = {BP_ERR_INTERNAL, e.what()};
    return BP_ERR_INTERNAL;
  }
}

void host_set_error(void*, bp_status code, const char* message) {
  try {
    thread_plugin_error() = {code, std::string(plugin_text(message, kMaxPluginMessage))};
  } catch (...) {
  }
}

void host_log(void*, int32_t level, const char* message) {
  if (level >= 2 && message)
    fmt::print(stderr, "backplane: plugin: {}\n", plugin_text(message, kMaxPluginMessage));
}

}  // namespace

void throw_status(bp_status status, std::string_view what) {
  PluginError& e = thread_plugin_error();
  std::string detail = e.code != BP_OK && !e.message.empty()
                           ? e.message
                           : fmt::format("returned status {} ({})", status, status_name(status));
  e = {};
  detail::throw_error(error_code_for(status), fmt::format("{}: {}", what, detail));
}

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
  auto finish = [&](LoadStatus status, std::string message) {
    report.status = status;
    report.message = std::move(message);
    reports_.push_back(report);
    return report;
  };
  if (!d) return finish(LoadStatus::Failed, "the descriptor is NULL");
  if (d->struct_size < kDescriptorSizeV1_0)
    return finish(LoadStatus::Failed,
                  fmt::format("descriptor struct_size {} is smaller than the ABI {}.0 "
                              "descriptor ({} bytes)",
                              d->struct_size, BP_ABI_MAJOR, kDescriptorSizeV1_0));
  const std::string name = bounded(d->name);
  if (name.empty() || !d->init)
    return finish(LoadStatus::Failed, "the descriptor has no name or no init function");
  if (d->abi_major != BP_ABI_MAJOR)
    return finish(LoadStatus::Refused,
                  fmt::format("built against ABI {}.{}, this runtime provides {}.{}: the major "
                              "version must match",
                              d->abi_major, d->abi_minor, BP_ABI_MAJOR, BP_ABI_MINOR));
  if (d->abi_minor > BP_ABI_MINOR)
    return finish(LoadStatus::Refused,
                  fmt::format("built against ABI {}.{}, this runtime provides {}.{}: a plugin "
                              "newer than the runtime is refused (update Backplane)",
                              d->abi_major, d->abi_minor, BP_ABI_MAJOR, BP_ABI_MINOR));
  for (const auto& p : plugins_) {
    if (p->active && p->name == name)
      return finish(LoadStatus::Refused, fmt::format("a plugin named '{}' is already loaded "
                                                     "(from {})",
                                                     name, p->origin));
    if (p->shutdown_pending && p->name == name)
      return finish(LoadStatus::Refused,
                    fmt::format("the plugin '{}' was unregistered but is not shut down yet: "
                                "tensors on its devices are still alive (its shutdown runs "
                                "when the last one is freed)",
                                name));
  }

  // The file name did not say which plugin this is (else discovery would not have opened
  // it): the descriptor does, and a denied plugin's init never runs.
  if (config && config->denies_plugin(name))
    return finish(LoadStatus::Skipped,
                  fmt::format("denied by plugins.deny ({}); its library was opened because the "
                              "file name does not name the plugin",
                              config->plugins.deny.origin));
  std::string init_options;
  if (config)
    if (auto it = config->backend_options.find(name); it != config->backend_options.end())
      init_options = it->second.value;

  const uint32_t index = static_cast<uint32_t>(plugins_.size());
  auto rec = std::make_unique<PluginRecord>();
  rec->name = name;
  rec->origin = std::string(origin);
  rec->descriptor = d;
  rec->active = true;
  rec->host_ctx = std::make_unique<HostContext>(HostContext{this, index, name, {}, {}});
  rec->host_api =
      bp_host_api{sizeof(bp_host_api),   BP_ABI_MAJOR,         BP_ABI_MINOR,   rec->host_ctx.get(),
                  host_register_backend, host_register_kernel, host_set_error, host_log};
  PluginRecord& plugin = *rec;
  plugins_.push_back(std::move(rec));

  thread_plugin_error() = {};
  initializing_ = plugin.host_ctx.get();
  bp_status status = BP_ERR_INTERNAL;
  // Letting an exception out of init is undefined behaviour by the ABI (init is a C
  // function). With a plugin built by the same toolchain against the shared libstdc++ and
  // libgcc_s, the exception unwinds into this frame and is caught here; the plugin is then
  // broken and never trusted. A plugin with another C++ runtime may terminate the process
  // instead: plugins must catch their exceptions (docs/dispatch.md).
  try {
    status = d->init(&plugin.host_api, init_options.c_str());
  } catch (const std::exception& e) {
    thread_plugin_error() = {
        BP_ERR_INTERNAL,
        fmt::format("init let a C++ exception escape across the C ABI: {}", e.what())};
  } catch (...) {
    thread_plugin_error() = {BP_ERR_INTERNAL,
                             "init let a C++ exception escape across the C ABI (not a "
                             "std::exception)"};
  }
  initializing_ = nullptr;
  PluginError err = std::exchange(thread_plugin_error(), {});
  const std::string& reentry = plugin.host_ctx->reentry;
  if (status != BP_OK || !plugin.host_ctx->refusal.empty() || !reentry.empty()) {
    remove_plugin_locked(index);
    plugin.active = false;
    // shutdown follows a successful init only: a failing init cleans up before returning.
    if (status == BP_OK && d->shutdown) call_shutdown(plugin);
    if (!reentry.empty()) return finish(LoadStatus::Failed, reentry);
    if (!plugin.host_ctx->refusal.empty())
      return finish(LoadStatus::Refused, plugin.host_ctx->refusal);
    return finish(LoadStatus::Failed,
                  fmt::format("init failed with status {} ({}){}{}", status, status_name(status),
                              err.message.empty() ? "" : ": ", err.message));
  }
  std::vector<std::string> reasons;  // "backend: reason" of each backend without devices
  int devices = 0;
  for (DeviceType t : plugin.backends) {
    const Backend& b = *backends_[t].load();
    report.backends.push_back(b.name);
    devices += b.device_count;
    if (b.device_count == 0) reasons.push_back(b.name + ": " + b.no_device_reason);
  }
  if (plugin.backends.empty()) return finish(LoadStatus::NoDevices, "init registered no backend");
  if (devices > 0) return finish(LoadStatus::Loaded, "");
  // One backend (the common case): its reason as the plugin wrote it.
  if (plugin.backends.size() == 1)
    return finish(LoadStatus::NoDevices, backends_[plugin.backends[0]].load()->no_device_reason);
  return finish(LoadStatus::NoDevices, fmt::format("{}", fmt::join(reasons, "; ")));
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

bp_status Runtime::register_backend(HostContext* h, const char* name_text, const bp_device_api* api,
                                    void* ctx, uint32_t* out_id) {
  if (!h || h != initializing_) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT,
                             outside_init("register_backend", h, name_text)};
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (!name_text || !out_id) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT, "register_backend: NULL name or out_id"};
    return BP_ERR_INVALID_ARGUMENT;
  }
  const std::string_view name = plugin_text(name_text, kMaxPluginName);
  if (name.size() == kMaxPluginName) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT,
                             fmt::format("register_backend: the name is not NUL-terminated "
                                         "within {} bytes",
                                         kMaxPluginName)};
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (std::string missing = missing_device_api_slots(api); !missing.empty()) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT,
                             fmt::format("register_backend('{}'): {}", name, missing)};
    return BP_ERR_INVALID_ARGUMENT;
  }
  DeviceType type;
  try {
    type = register_device_type(name);
  } catch (const Error& e) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT, e.what()};
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (backend(type) && backend(type)->plugin == h->plugin) {
    // The plugin's own mistake, not a name taken by another plugin: it fails.
    thread_plugin_error() = {
        BP_ERR_INVALID_ARGUMENT,
        fmt::format("register_backend('{}'): this plugin already registered a backend named '{}'",
                    name, name)};
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (backend(type)) {
    h->refusal = fmt::format("backend '{}' is already registered by plugin '{}'", name,
                             plugins_[backend(type)->plugin]->name);
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT, h->refusal};
    return BP_ERR_INVALID_ARGUMENT;
  }
  auto b = std::make_unique<Backend>();
  b->name = std::string(name);
  b->type = type;
  b->plugin = h->plugin;
  b->api = api;
  b->ctx = ctx;
  int32_t count = 0;
  const char* reason = nullptr;
  bp_status s = api->device_count(ctx, &count, &reason);
  // A device index is an int16_t (Device): a larger count is a broken answer, and believing
  // it would ask for billions of device_properties (found by fuzzing,
  // tests/fuzz/corpus/plugin/regress-*). It counts as no devices, as a negative one does.
  constexpr int32_t kMaxDevices = std::numeric_limits<int16_t>::max();
  if (s == BP_OK && (count < 0 || count > kMaxDevices)) {
    thread_plugin_error() = {};
    b->no_device_reason = fmt::format(
        "device_count returned {} devices (a backend has between 0 and {})", count, kMaxDevices);
    count = 0;
  } else if (s != BP_OK) {
    // A failing device_count (no driver, say) is "no devices", not a broken plugin.
    PluginError err = std::exchange(thread_plugin_error(), {});
    b->no_device_reason = !err.message.empty() ? err.message
                                               : fmt::format("device_count returned status {} ({})",
                                                             s, status_name(s));
    count = 0;
  } else if (count == 0) {
    b->no_device_reason = reason ? bounded(reason) : "the backend reported no devices";
  }
  for (int32_t i = 0; i < count; ++i) {
    bp_device_props props{};
    props.struct_size = sizeof props;
    if (api->device_properties(ctx, i, &props) != BP_OK) {
      thread_plugin_error() = {BP_ERR_DEVICE,
                               fmt::format("device_properties failed for {}:{}", name, i)};
      return BP_ERR_DEVICE;
    }
    props.name[sizeof props.name - 1] = '\0';
    props.vendor[sizeof props.vendor - 1] = '\0';
    props.architecture[sizeof props.architecture - 1] = '\0';
    b->props.push_back(props);
  }
  b->device_count = count;
  for (int32_t i = 0; i < count; ++i)
    b->allocators.push_back(std::make_unique<CachingAllocator>(b.get(), i));
  b->active.store(true, std::memory_order_release);
  plugins_[h->plugin]->backends.push_back(type);
  backends_[type].store(b.get(), std::memory_order_release);
  backend_store_.push_back(std::move(b));
  generation_.fetch_add(1, std::memory_order_acq_rel);
  *out_id = type;
  return BP_OK;
}

bp_status Runtime::register_kernel(HostContext* h, uint32_t backend_id, const char* op_name_text,
                                   bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx) {
  auto fail = [](bp_status code, std::string message) {
    thread_plugin_error() = {code, std::move(message)};
    return code;
  };
  if (!h || h != initializing_)
    return fail(BP_ERR_INVALID_ARGUMENT, outside_init("register_kernel", h, op_name_text));
  if (!op_name_text) return fail(BP_ERR_INVALID_ARGUMENT, "register_kernel: the op name is NULL");
  const std::string_view op_name = plugin_text(op_name_text, kMaxPluginName);
  if (op_name.size() == kMaxPluginName)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel: the op name is not NUL-terminated within {} bytes",
                            kMaxPluginName));
  const Backend* owner = backend_id < device_types::kMaxBackends
                             ? backend(static_cast<DeviceType>(backend_id))
                             : nullptr;
  if (!owner)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel({}): backend id {} is not a registered backend; pass "
                            "the id register_backend returned",
                            op_name, backend_id));
  if (owner->plugin != h->plugin)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel({}): backend id {} is backend '{}' of plugin '{}', "
                            "not a backend of this plugin",
                            op_name, backend_id, owner->name, plugins_[owner->plugin]->name));
  if (!fn)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel({}): the kernel function is NULL", op_name));
  const OpDef* op = Catalog::get().find(op_name);
  if (!op)
    return fail(BP_ERR_NOT_FOUND, fmt::format("register_kernel: unknown operator '{}'", op_name));
  if (dtypes == 0)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel({}): the dtype mask is empty", op_name));
  if (dtypes & ~BP_DTYPES_ALL)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel({}): dtype mask {:#x} has bits beyond the {} dtypes "
                            "of this runtime (BP_DTYPES_ALL is {:#x})",
                            op_name, dtypes, static_cast<int>(BP_DTYPE_COUNT), BP_DTYPES_ALL));
  OpTable next = table(op->id);
  KernelSlot& slot = next.slots[backend_id];
  if (slot.fn) {
    // One kernel per op and backend: the slot holds one function. Registering the same
    // function and context again adds dtypes; another function would silently replace the
    // first for every dtype, so it is an error.
    if (slot.fn != fn || slot.ctx != kernel_ctx)
      return fail(BP_ERR_INVALID_ARGUMENT,
                  fmt::format("register_kernel({}): backend '{}' already has another kernel for "
                              "this op ({}); register one kernel for all its dtypes and dispatch "
                              "on the dtype inside it",
                              op_name, backend(static_cast<DeviceType>(backend_id))->name,
                              dtype_mask_names(slot.dtypes)));
    dtypes |= slot.dtypes;
  }
  slot = KernelSlot{fn, kernel_ctx, dtypes, h->plugin};
  publish(op->id, next);
  return BP_OK;
}

void Runtime::publish(OpId op, const OpTable& table) {
  auto stored = std::make_unique<OpTable>(table);
  tables_[op].store(stored.get(), std::memory_order_release);
  table_store_.push_back(std::move(stored));
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
