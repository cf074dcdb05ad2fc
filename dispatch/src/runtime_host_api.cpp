// The host side of the plugin C ABI: the entry points of bp_host_api (C trampolines that
// never let an exception escape), backend and kernel registration with their checks, and
// statuses turned into errors. A plugin calls these only from its init (Note [Calls into
// the runtime from init]); whatever it passes is checked before it is believed.
#include "runtime_host_api.hpp"

#include "fast_path.hpp"

#include "backplane/core/error.hpp"

#include <fmt/format.h>

#include <limits>
#include <utility>

namespace bp::detail {

thread_local constinit PluginError* t_plugin_error __attribute__((tls_model("initial-exec"))) =
    nullptr;

namespace {
// Owns this thread's PluginError; clears t_plugin_error when the thread ends.
struct PluginErrorOwner {
  PluginError error;
  ~PluginErrorOwner() { t_plugin_error = nullptr; }
};
}  // namespace

PluginError& thread_plugin_error() {
  if (PluginError* e = t_plugin_error) return *e;
  thread_local PluginErrorOwner owner;
  t_plugin_error = &owner.error;
  return owner.error;
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

// Runs `call` on the host context, or reports a NULL host; an exception becomes
// BP_ERR_INTERNAL with its message.
template <typename Call>
bp_status on_host(void* host, std::string_view function, Call&& call) {
  try {
    if (!host) return null_host(function);
    return call(static_cast<HostContext*>(host));
  } catch (const std::exception& e) {
    thread_plugin_error() = {BP_ERR_INTERNAL, e.what()};
    return BP_ERR_INTERNAL;
  }
}

bp_status host_register_backend(void* host, const char* name, const bp_device_api* api, void* ctx,
                                uint32_t* out_id) {
  return on_host(host, "register_backend", [&](HostContext* h) {
    return h->runtime->register_backend(h, name, api, ctx, out_id);
  });
}

bp_status host_register_kernel(void* host, uint32_t backend_id, const char* op_name,
                               bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx) {
  return on_host(host, "register_kernel", [&](HostContext* h) {
    return h->runtime->register_kernel(h, backend_id, op_name, dtypes, fn, kernel_ctx);
  });
}

bp_status host_register_dense_kernel(void* host, uint32_t backend_id, const char* op_name,
                                     bp_dtype_mask dtypes, bp_dense_kernel_fn fn,
                                     void* kernel_ctx) {
  return on_host(host, "register_dense_kernel", [&](HostContext* h) {
    return h->runtime->register_dense_kernel(h, backend_id, op_name, dtypes, fn, kernel_ctx);
  });
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

bp_host_api make_host_api(HostContext* context) {
  return bp_host_api{sizeof(bp_host_api),       BP_ABI_MAJOR,         BP_ABI_MINOR,   context,
                     host_register_backend,     host_register_kernel, host_set_error, host_log,
                     host_register_dense_kernel};
}

void throw_status(bp_status status, std::string_view what) {
  PluginError& e = thread_plugin_error();
  std::string detail = e.code != BP_OK && !e.message.empty()
                           ? e.message
                           : fmt::format("returned status {} ({})", status, status_name(status));
  e = {};
  detail::throw_error(error_code_for(status), fmt::format("{}: {}", what, detail));
}

namespace {

// Sets this thread's plugin error (what host->set_error would) and returns its code.
bp_status fail(bp_status code, std::string message) {
  thread_plugin_error() = {code, std::move(message)};
  return code;
}

// What is wrong with register_backend's arguments: "" when nothing.
std::string backend_arguments_problem(const char* name_text, const bp_device_api* api,
                                      const uint32_t* out_id) {
  if (!name_text || !out_id) return "register_backend: NULL name or out_id";
  const std::string_view name = plugin_text(name_text, kMaxPluginName);
  if (name.size() == kMaxPluginName)
    return fmt::format("register_backend: the name is not NUL-terminated within {} bytes",
                       kMaxPluginName);
  if (std::string missing = missing_device_api_slots(api); !missing.empty())
    return fmt::format("register_backend('{}'): {}", name, missing);
  return {};
}

// How many devices a new backend has, by its device_count; a failing or absurd answer is no
// devices, with the reason in b.no_device_reason.
int32_t count_devices(Backend& b) {
  int32_t count = 0;
  const char* reason = nullptr;
  const bp_status s = b.api->device_count(b.ctx, &count, &reason);
  // A device index is an int16_t (Device): a larger count is a broken answer, and believing
  // it would ask for billions of device_properties (found by fuzzing,
  // tests/fuzz/corpus/plugin/regress-*). It counts as no devices, as a negative one does.
  constexpr int32_t kMaxDevices = std::numeric_limits<int16_t>::max();
  if (s == BP_OK && (count < 0 || count > kMaxDevices)) {
    thread_plugin_error() = {};
    b.no_device_reason = fmt::format(
        "device_count returned {} devices (a backend has between 0 and {})", count, kMaxDevices);
    return 0;
  }
  if (s != BP_OK) {
    // A failing device_count (no driver, say) is "no devices", not a broken plugin.
    PluginError err = std::exchange(thread_plugin_error(), {});
    b.no_device_reason = !err.message.empty() ? err.message
                                              : fmt::format("device_count returned status {} ({})",
                                                            s, status_name(s));
    return 0;
  }
  if (count == 0) b.no_device_reason = reason ? bounded(reason) : "the backend reported no devices";
  return count;
}

// Fills b.props for devices 0..count-1; a failure is the plugin's error (BP_ERR_DEVICE).
bp_status read_device_properties(Backend& b, int32_t count) {
  for (int32_t i = 0; i < count; ++i) {
    bp_device_props props{};
    props.struct_size = sizeof props;
    if (b.api->device_properties(b.ctx, i, &props) != BP_OK)
      return fail(BP_ERR_DEVICE, fmt::format("device_properties failed for {}:{}", b.name, i));
    props.name[sizeof props.name - 1] = '\0';
    props.vendor[sizeof props.vendor - 1] = '\0';
    props.architecture[sizeof props.architecture - 1] = '\0';
    b.props.push_back(props);
  }
  return BP_OK;
}

}  // namespace

bp_status Runtime::register_backend(HostContext* h, const char* name_text, const bp_device_api* api,
                                    void* ctx, uint32_t* out_id) {
  if (!h || h != initializing_)
    return fail(BP_ERR_INVALID_ARGUMENT, outside_init("register_backend", h, name_text));
  if (std::string problem = backend_arguments_problem(name_text, api, out_id); !problem.empty())
    return fail(BP_ERR_INVALID_ARGUMENT, std::move(problem));
  const std::string_view name = plugin_text(name_text, kMaxPluginName);
  DeviceType type;
  try {
    type = register_device_type(name);
  } catch (const Error& e) {
    return fail(BP_ERR_INVALID_ARGUMENT, e.what());
  }
  if (const Backend* taken = backend(type)) {
    // The plugin's own mistake, not a name taken by another plugin: it fails.
    if (taken->plugin == h->plugin)
      return fail(BP_ERR_INVALID_ARGUMENT,
                  fmt::format("register_backend('{}'): this plugin already registered a backend "
                              "named '{}'",
                              name, name));
    h->refusal = fmt::format("backend '{}' is already registered by plugin '{}'", name,
                             plugins_[taken->plugin]->name);
    return fail(BP_ERR_INVALID_ARGUMENT, h->refusal);
  }
  auto b = std::make_unique<Backend>();
  b->name = std::string(name);
  b->type = type;
  b->plugin = h->plugin;
  b->api = api;
  b->ctx = ctx;
  const int32_t count = count_devices(*b);
  if (const bp_status s = read_device_properties(*b, count); s != BP_OK) return s;
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

const OpDef* Runtime::check_registration(std::string_view call, HostContext* h, uint32_t backend_id,
                                         const char* op_name_text, bp_dtype_mask dtypes,
                                         bool has_fn, bp_status* status) {
  auto refuse = [&](bp_status code, std::string message) -> const OpDef* {
    *status = fail(code, std::move(message));
    return nullptr;
  };
  if (!h || h != initializing_)
    return refuse(BP_ERR_INVALID_ARGUMENT, outside_init(call, h, op_name_text));
  if (!op_name_text)
    return refuse(BP_ERR_INVALID_ARGUMENT, fmt::format("{}: the op name is NULL", call));
  const std::string_view op_name = plugin_text(op_name_text, kMaxPluginName);
  if (op_name.size() == kMaxPluginName)
    return refuse(
        BP_ERR_INVALID_ARGUMENT,
        fmt::format("{}: the op name is not NUL-terminated within {} bytes", call, kMaxPluginName));
  const Backend* owner = backend_id < device_types::kMaxBackends
                             ? backend(static_cast<DeviceType>(backend_id))
                             : nullptr;
  if (!owner)
    return refuse(BP_ERR_INVALID_ARGUMENT,
                  fmt::format("{}({}): backend id {} is not a registered backend; pass the id "
                              "register_backend returned",
                              call, op_name, backend_id));
  if (owner->plugin != h->plugin)
    return refuse(
        BP_ERR_INVALID_ARGUMENT,
        fmt::format("{}({}): backend id {} is backend '{}' of plugin '{}', not a "
                    "backend of this plugin",
                    call, op_name, backend_id, owner->name, plugins_[owner->plugin]->name));
  if (!has_fn)
    return refuse(BP_ERR_INVALID_ARGUMENT,
                  fmt::format("{}({}): the kernel function is NULL", call, op_name));
  const OpDef* op = Catalog::get().find(op_name);
  if (!op) return refuse(BP_ERR_NOT_FOUND, fmt::format("{}: unknown operator '{}'", call, op_name));
  if (dtypes == 0)
    return refuse(BP_ERR_INVALID_ARGUMENT,
                  fmt::format("{}({}): the dtype mask is empty", call, op_name));
  if (dtypes & ~BP_DTYPES_ALL)
    return refuse(
        BP_ERR_INVALID_ARGUMENT,
        fmt::format("{}({}): dtype mask {:#x} has bits beyond the {} dtypes of this "
                    "runtime (BP_DTYPES_ALL is {:#x})",
                    call, op_name, dtypes, static_cast<int>(BP_DTYPE_COUNT), BP_DTYPES_ALL));
  return op;
}

bp_status Runtime::register_kernel(HostContext* h, uint32_t backend_id, const char* op_name_text,
                                   bp_dtype_mask dtypes, bp_kernel_fn fn, void* kernel_ctx) {
  bp_status status = BP_OK;
  const OpDef* op = check_registration("register_kernel", h, backend_id, op_name_text, dtypes,
                                       fn != nullptr, &status);
  if (!op) return status;
  const std::string_view op_name = op->name;
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
  slot.fn = fn;
  slot.ctx = kernel_ctx;
  slot.dtypes = dtypes;
  slot.plugin = h->plugin;
  publish(op->id, next);
  return BP_OK;
}

bp_status Runtime::register_dense_kernel(HostContext* h, uint32_t backend_id,
                                         const char* op_name_text, bp_dtype_mask dtypes,
                                         bp_dense_kernel_fn fn, void* kernel_ctx) {
  bp_status status = BP_OK;
  const OpDef* op = check_registration("register_dense_kernel", h, backend_id, op_name_text, dtypes,
                                       fn != nullptr, &status);
  if (!op) return status;
  if (!has_dense_form(op->id))
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_dense_kernel({}): the op has no dense form; only the "
                            "elementwise ops of schema (Tensor..., Scalar...) -> Tensor do",
                            op->name));
  OpTable next = table(op->id);
  KernelSlot& slot = next.slots[backend_id];
  if ((dtypes & ~slot.dtypes) != 0)
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_dense_kernel({}): dtypes {} have no kernel on this backend "
                            "(it has {}); register the kernel for them first",
                            op->name, dtype_mask_names(dtypes & ~slot.dtypes),
                            slot.fn ? dtype_mask_names(slot.dtypes) : std::string("none")));
  if (slot.dense && (slot.dense != fn || slot.dense_ctx != kernel_ctx))
    return fail(BP_ERR_INVALID_ARGUMENT,
                fmt::format("register_dense_kernel({}): backend '{}' already has another dense "
                            "entry for this op ({})",
                            op->name, backend(static_cast<DeviceType>(backend_id))->name,
                            dtype_mask_names(slot.dense_dtypes)));
  slot.dense = fn;
  slot.dense_ctx = kernel_ctx;
  slot.dense_dtypes |= dtypes;
  publish(op->id, next);
  return BP_OK;
}

}  // namespace bp::detail
