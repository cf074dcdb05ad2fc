// The runtime's state: plugin registration (descriptor checks, ABI negotiation, init with
// rollback on failure), backends and their devices, and the host side of the C ABI.
#include "runtime_impl.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

extern "C" const bp_plugin_descriptor* bp_reference_plugin_query(void);

namespace bp::detail {

thread_local HostContext* Runtime::initializing_ = nullptr;

PluginError& thread_plugin_error() {
  thread_local PluginError error;
  return error;
}

namespace {

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

// ---- host API trampolines: C entry points that never let an exception escape ----------
bp_status host_register_backend(void* host, const char* name, const bp_device_api* api, void* ctx,
                                uint32_t* out_id) {
  try {
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
    auto* h = static_cast<HostContext*>(host);
    return h->runtime->register_kernel(h, backend_id, op_name, dtypes, fn, kernel_ctx);
  } catch (const std::exception& e) {
    thread_plugin_error() = {BP_ERR_INTERNAL, e.what()};
    return BP_ERR_INTERNAL;
  }
}

void host_set_error(void*, bp_status code, const char* message) {
  try {
    thread_plugin_error() = {code, message ? std::string(message) : std::string()};
  } catch (...) {
  }
}

void host_log(void*, int32_t level, const char* message) {
  if (level >= 2 && message) fmt::print(stderr, "backplane: plugin: {}\n", message);
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
  static Runtime runtime;
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

Allocator& Runtime::allocator(Device device) {
  Backend& b = backend_for(device);
  return *b.allocators[static_cast<size_t>(device.index)];
}

Device Runtime::default_device() const {
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

std::string Runtime::plugin_name(uint32_t plugin) const {
  std::lock_guard lock(mu_);
  return plugin < plugins_.size() ? plugins_[plugin]->name : std::string("?");
}

PluginLoadReport Runtime::add_plugin(const bp_plugin_descriptor* d, std::string_view origin) {
  std::lock_guard lock(mu_);
  auto record_report = [&](PluginLoadReport r) {
    reports_.push_back(r);
    return r;
  };
  if (!d) return record_report({std::string(origin), LoadStatus::Failed, "the descriptor is NULL"});
  if (d->struct_size < offsetof(bp_plugin_descriptor, shutdown) + sizeof(d->shutdown))
    return record_report({std::string(origin), LoadStatus::Failed,
                          fmt::format("descriptor struct_size {} is smaller than the ABI 1.0 "
                                      "descriptor ({} bytes)",
                                      d->struct_size, sizeof(bp_plugin_descriptor))});
  const std::string name = d->name ? std::string(d->name, strnlen(d->name, 128)) : "";
  if (name.empty() || !d->init)
    return record_report({std::string(origin), LoadStatus::Failed,
                          "the descriptor has no name or no init function"});
  if (d->abi_major != BP_ABI_MAJOR)
    return record_report({name, LoadStatus::Refused,
                          fmt::format("plugin ABI {}.{} is incompatible with the runtime's "
                                      "ABI {}.{} (the major version must match)",
                                      d->abi_major, d->abi_minor, BP_ABI_MAJOR, BP_ABI_MINOR)});
  if (d->abi_minor > BP_ABI_MINOR)
    return record_report({name, LoadStatus::Refused,
                          fmt::format("plugin needs ABI {}.{} but this runtime provides {}.{}: "
                                      "update Backplane",
                                      d->abi_major, d->abi_minor, BP_ABI_MAJOR, BP_ABI_MINOR)});
  for (const auto& p : plugins_)
    if (p->active && p->name == name)
      return record_report(
          {name, LoadStatus::Refused,
           fmt::format("a plugin named '{}' is already loaded (from {})", name, p->origin)});

  const uint32_t index = static_cast<uint32_t>(plugins_.size());
  auto rec = std::make_unique<PluginRecord>();
  rec->name = name;
  rec->origin = std::string(origin);
  rec->descriptor = d;
  rec->active = true;
  rec->host_ctx = std::make_unique<HostContext>(HostContext{this, index});
  rec->host_api =
      bp_host_api{sizeof(bp_host_api),   BP_ABI_MAJOR,         BP_ABI_MINOR,   rec->host_ctx.get(),
                  host_register_backend, host_register_kernel, host_set_error, host_log};
  PluginRecord& plugin = *rec;
  plugins_.push_back(std::move(rec));

  thread_plugin_error() = {};
  initializing_ = plugin.host_ctx.get();
  bp_status status = BP_ERR_INTERNAL;
  try {
    status = d->init(&plugin.host_api, "");
  } catch (...) {
    // A C++ exception crossed the C boundary: the plugin is broken; never trust it.
    thread_plugin_error() = {BP_ERR_INTERNAL, "init threw a C++ exception across the C ABI"};
  }
  initializing_ = nullptr;
  if (status != BP_OK) {
    PluginError err = std::exchange(thread_plugin_error(), {});
    remove_plugin_locked(index);
    plugin.active = false;
    return record_report(
        {name, LoadStatus::Failed,
         fmt::format("init failed with status {} ({}){}{}", status, status_name(status),
                     err.message.empty() ? "" : ": ", err.message)});
  }
  int devices = 0;
  std::string reason;
  for (DeviceType t : plugin.backends) {
    devices += backends_[t].load()->device_count;
    if (backends_[t].load()->device_count == 0) reason = backends_[t].load()->no_device_reason;
  }
  if (devices == 0 && !plugin.backends.empty())
    return record_report({name, LoadStatus::NoDevices, reason});
  return record_report({name, LoadStatus::Loaded, ""});
}

bp_status Runtime::register_backend(HostContext* h, const char* name, const bp_device_api* api,
                                    void* ctx, uint32_t* out_id) {
  if (!h || h != initializing_) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT,
                             "register_backend may only be called from the plugin's init"};
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (!name || !api || !out_id || api->struct_size < sizeof(bp_device_api) || !api->device_count ||
      !api->device_properties || !api->alloc || !api->free || !api->copy) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT,
                             "register_backend: name, out_id and a complete device API "
                             "(device_count, device_properties, alloc, free, copy) are required"};
    return BP_ERR_INVALID_ARGUMENT;
  }
  DeviceType type;
  try {
    type = register_device_type(name);
  } catch (const Error& e) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT, e.what()};
    return BP_ERR_INVALID_ARGUMENT;
  }
  if (backend(type)) {
    thread_plugin_error() = {BP_ERR_INVALID_ARGUMENT,
                             fmt::format("backend '{}' is already registered by plugin '{}'", name,
                                         plugins_[backend(type)->plugin]->name)};
    return BP_ERR_INVALID_ARGUMENT;
  }
  auto b = std::make_unique<Backend>();
  b->name = name;
  b->type = type;
  b->plugin = h->plugin;
  b->api = api;
  b->ctx = ctx;
  int32_t count = 0;
  const char* reason = nullptr;
  bp_status s = api->device_count(ctx, &count, &reason);
  if (s != BP_OK || count < 0) {
    b->no_device_reason = thread_plugin_error().message.empty()
                              ? fmt::format("device_count returned status {}", s)
                              : thread_plugin_error().message;
    count = 0;
  } else if (count == 0) {
    b->no_device_reason = reason ? reason : "the backend reported no devices";
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
    b->props.push_back(props);
  }
  b->device_count = count;
  for (int32_t i = 0; i < count; ++i)
    b->allocators.push_back(std::make_unique<DeviceAllocator>(b.get(), i));
  b->active = true;
  plugins_[h->plugin]->backends.push_back(type);
  backends_[type].store(b.get(), std::memory_order_release);
  backend_store_.push_back(std::move(b));
  *out_id = type;
  return BP_OK;
}

bp_status Runtime::register_kernel(HostContext* h, uint32_t backend_id, const char* op_name,
                                   bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx) {
  auto fail = [](bp_status code, std::string message) {
    thread_plugin_error() = {code, std::move(message)};
    return code;
  };
  if (!h || h != initializing_)
    return fail(BP_ERR_INVALID_ARGUMENT,
                "register_kernel may only be called from the plugin's init");
  if (backend_id >= device_types::kMaxBackends || !backend(static_cast<DeviceType>(backend_id)) ||
      backend(static_cast<DeviceType>(backend_id))->plugin != h->plugin)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel: backend id {} was not registered by this plugin",
                            backend_id));
  if (!op_name || !fn) return fail(BP_ERR_INVALID_ARGUMENT, "register_kernel: NULL op or fn");
  const OpDef* op = Catalog::get().find(op_name);
  if (!op)
    return fail(BP_ERR_NOT_FOUND, fmt::format("register_kernel: unknown operator '{}'", op_name));
  if (dtypes == 0 || (dtypes & ~BP_DTYPES_ALL))
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_kernel({}): dtype mask {:#x} is empty or has unknown bits",
                            op_name, dtypes));
  OpTable next = table(op->id);
  next.slots[backend_id] = KernelSlot{fn, kernel_ctx, dtypes, h->plugin};
  publish(op->id, next);
  return BP_OK;
}

void Runtime::publish(OpId op, const OpTable& table) {
  auto stored = std::make_unique<OpTable>(table);
  tables_[op].store(stored.get(), std::memory_order_release);
  table_store_.push_back(std::move(stored));
}

void Runtime::remove_plugin_locked(uint32_t plugin) {
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
  PluginRecord& rec = *plugins_[plugin];
  for (DeviceType t : rec.backends) {
    Backend* b = backends_[t].load();
    b->active = false;
    backends_[t].store(nullptr, std::memory_order_release);
  }
  rec.backends.clear();
}

void Runtime::remove_plugin(std::string_view name) {
  std::lock_guard lock(mu_);
  for (uint32_t i = 0; i < plugins_.size(); ++i) {
    PluginRecord& rec = *plugins_[i];
    if (rec.active && rec.name == name) {
      remove_plugin_locked(i);
      rec.active = false;
      if (rec.descriptor->shutdown) rec.descriptor->shutdown();
      return;
    }
  }
  BP_FAIL(ErrorCode::InvalidArgument, "unregister_plugin: no loaded plugin is named '{}'", name);
}

std::vector<PluginLoadReport> Runtime::reports() const {
  std::lock_guard lock(mu_);
  return reports_;
}

std::vector<BackendInfo> Runtime::backend_infos() const {
  std::lock_guard lock(mu_);
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
