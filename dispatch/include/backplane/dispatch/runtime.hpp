// The runtime: the backends its plugins registered, their devices, and introspection of
// the dispatch tables. Plugins reach the runtime only through the C ABI (plugin.h); this
// header is the C++ side for applications, tools and tests. Built once on first use with
// the built-in reference backend. All functions are thread-safe.
#pragma once

#include "backplane/core/device.hpp"
#include "backplane/core/dtype.hpp"

#include <backplane/plugin.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

struct Config;  // backplane/dispatch/config.hpp

struct BackendInfo {
  std::string name;     // "reference", "cuda", "acme_npu"
  DeviceType type = 0;  // dispatch slot
  std::string plugin;   // name of the plugin that registered it
  int device_count = 0;
  std::string no_device_reason;  // when device_count == 0
};

struct DeviceInfo {
  Device device;
  std::string name;
  std::string vendor;
  uint64_t total_memory = 0;
  uint32_t compute_units = 0;
  bool host_accessible = false;
  uint32_t dtypes = 0;       // bp_dtype_mask
  std::string architecture;  // "sm_90", "gfx90a"; empty when the plugin does not say
};

// What happened to one plugin candidate (docs/dispatch.md, "Loading plugins"):
//   loaded      init succeeded and at least one of its backends has a device;
//   refused     a working plugin the runtime will not take: another ABI major, a newer ABI
//               minor, or a plugin or backend name that is already loaded;
//   failed      not a plugin, or a broken one: missing file, not a loadable library, no
//               entry symbol, a bad descriptor, an incomplete device API, an init error;
//   no-devices  init succeeded but every backend it registered reports 0 devices (or it
//               registered none); its backends stay registered and say why on use;
//   skipped     the config says not to use it (plugins.deny, or a devices.priority that
//               excludes its backend): its library was never opened when its file name
//               says which plugin it is, and its init never ran in any case.
// A refused, failed or skipped plugin leaves nothing registered.
enum class LoadStatus { Loaded, Refused, Failed, NoDevices, Skipped };
// "loaded", "refused", "failed", "no-devices", "skipped"
std::string_view to_string(LoadStatus s);

struct PluginLoadReport {
  std::string plugin;  // descriptor name, or the path when the descriptor is unusable
  LoadStatus status = LoadStatus::Failed;
  std::string message;  // why it was refused / failed / has no devices; "" when loaded
  std::string path;     // absolute library file; "" for a built-in plugin (register_plugin)
  std::string version;  // descriptor version ("" when the descriptor was unusable)
  std::string vendor;
  uint32_t abi_major = 0;  // the ABI the plugin was built against (0 if unknown)
  uint32_t abi_minor = 0;
  std::vector<std::string> backends;  // backend names it registered (loaded / no-devices)
};

// Registers a plugin from its descriptor (what bp_plugin_query returned): checks the
// descriptor, negotiates the ABI version and calls init. Never throws and never prints for
// a broken plugin: the report says what happened, and a refused or failed plugin leaves
// nothing registered. `origin` names where the descriptor came from in messages. Called
// from a plugin's init (a C++ plugin in the host's process), it throws bp::Error instead,
// as do load_plugin, discover_plugins and unregister_plugin: loading or unloading plugins
// from init is not allowed, and the plugin whose init called it fails to load
// (docs/dispatch.md, "Loading plugins").
PluginLoadReport register_plugin(const bp_plugin_descriptor* descriptor,
                                 std::string_view origin = "built-in");

struct LoadOptions {
  bool warn = true;  // one line on stderr when the plugin is refused or fails
};

// Opens the shared library at `path` (made absolute; never searched for), finds its
// bp_plugin_query entry and registers the descriptor it returns. Never throws for a broken
// library: "no such file", "not a shared library" (including a truncated file, checked
// before dlopen, which would crash on it) and "no entry symbol" are `failed` reports
// carrying the loader's (dlerror) text. Unless options.warn is false, a refused or
// failed plugin prints exactly one warning line on stderr. The library stays loaded until
// exit, even after unregister_plugin, so tensors and function pointers it handed out stay
// valid.
PluginLoadReport load_plugin(const std::filesystem::path& path, const LoadOptions& options = {});

// Where discover_plugins looks, in this order: `plugins` (then the config's plugins.load),
// BACKPLANE_PLUGIN_PATH (or the config's plugins.search_path, which starts with it),
// `search_paths`, the install folder. In a directory, the plugins are the files named
// libbackplane_plugin_*.so, loaded in name order.
struct DiscoveryOptions {
  std::vector<std::filesystem::path> plugins;       // explicit plugin files
  std::vector<std::filesystem::path> search_paths;  // directories
  bool use_environment = true;  // BACKPLANE_PLUGIN_PATH: directories separated by ':'
  bool use_install_dir = true;  // <prefix>/lib/backplane/plugins of this build's install
  bool warn = true;             // one line on stderr for each plugin refused or failed
  // The application needs a device other than the built-in reference oracle: after
  // loading, throw (require_usable_backend) when no loaded backend but the reference one
  // has a device.
  bool require_device = false;
  // The runtime's config (not owned; may be null). With one, its plugins.load files follow
  // `plugins`, its plugins.search_path (which already holds BACKPLANE_PLUGIN_PATH, see
  // apply_environment) comes before `search_paths` and use_environment is ignored; a file the
  // config denies or whose backend devices.priority excludes is reported `skipped` and
  // never opened; a plugin whose descriptor name is denied is skipped before its init; and
  // each plugin's init receives its [backends.<name>] options text.
  const Config* config = nullptr;
};

// Loads every plugin found (each file once, by canonical path) and returns one report per
// candidate, in the order tried: loaded, refused, failed, no-devices and skipped alike. A
// missing directory is skipped silently; a missing explicit file is reported. A broken
// plugin never stops the others. Throws bp::Error only for options.require_device.
std::vector<PluginLoadReport> discover_plugins(const DiscoveryOptions& options = {});

// Throws bp::Error (ErrorCode::Device) listing every candidate in `tried` with its status
// and reason when no loaded backend other than the built-in reference has a device. The
// reference backend is always there, so it does not count: it is the oracle, not a device
// to run a model on.
void require_usable_backend(const std::vector<PluginLoadReport>& tried);

// The install's plugin folder compiled into this build.
std::filesystem::path install_plugin_dir();

// This runtime: its version (the project's), the plugin ABI it provides, and where its
// installed plugins live.
struct RuntimeInfo {
  std::string version;  // "0.1.0"
  uint32_t abi_major = BP_ABI_MAJOR;
  uint32_t abi_minor = BP_ABI_MINOR;
  std::filesystem::path install_plugin_dir;
};
RuntimeInfo runtime_info();

// Removes a plugin's kernels and backends and calls its shutdown; the same library may then
// be loaded again. Calls on its devices fail with bp::Error (the device's backend is not
// loaded); tensors still allocated on them must not be used afterwards. Throws bp::Error
// for an unknown name.
void unregister_plugin(std::string_view plugin_name);

// Every report since start-up, in order (the built-in reference first).
std::vector<PluginLoadReport> plugin_reports();
std::vector<BackendInfo> backends();
std::vector<DeviceInfo> devices();
DeviceInfo device_info(Device device);  // throws bp::Error for an unknown device

// What decides a device's results beyond its DeviceInfo, as its plugin reports it
// (bp_device_api::device_attributes, ABI 1.2), in the plugin's order: for cpu:0 the ISA
// level in force, the cap, and the code Highway and oneDNN chose ({"isa", "avx2"},
// {"highway", "AVX2"}, ...). Empty when the plugin says nothing (ABI 1.0/1.1 plugins).
// Asked on demand, not cached: the plugin may do real work to answer. Throws bp::Error for
// an unknown device or a failing plugin call (with the plugin's message).
struct DeviceAttribute {
  std::string key;
  std::string value;
};
std::vector<DeviceAttribute> device_attributes(Device device);
// "isa=avx2 highway=AVX2": the attributes as one line, as the plugin writes them, and back
// (a word without '=' is a key with an empty value).
std::string format_device_attributes(const std::vector<DeviceAttribute>& attributes);
std::vector<DeviceAttribute> parse_device_attributes(std::string_view line);
// The value of `key`, or "" when there is none.
std::string device_attribute(const std::vector<DeviceAttribute>& attributes, std::string_view key);
// The host's CPU model as /proc/cpuinfo names it ("AMD EPYC 9B14"), or "unknown CPU".
std::string host_cpu_model();

// The device interface of one device exactly as its plugin registered it: the raw C
// function table, the plugin's context and the device index. For the conformance suite's
// device-API checks and for tools; calls go straight to the plugin, with no validation and
// no caching allocator in between. Valid until the plugin is unregistered. Throws
// bp::Error(Device) for an unknown device.
struct RawDeviceApi {
  const bp_device_api* api = nullptr;
  void* ctx = nullptr;
  int32_t index = 0;
  std::string backend;
};
RawDeviceApi raw_device_api(Device device);

// The computed dispatch table of one op, one line per backend: whether it runs a kernel
// (and from which plugin, for which dtypes), its composite decomposition, or is missing.
std::string dump_op_table(std::string_view op_name);

enum class EntryKind { Kernel, Composite, Missing };
struct OpTableEntry {
  std::string backend;
  EntryKind kind = EntryKind::Missing;
  std::string plugin;   // for Kernel
  uint32_t dtypes = 0;  // for Kernel: bp_dtype_mask
};
std::vector<OpTableEntry> op_table(std::string_view op_name);

}  // namespace bp
