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
  uint32_t dtypes = 0;  // bp_dtype_mask
};

enum class LoadStatus { Loaded, Refused, Failed, NoDevices };
std::string_view to_string(LoadStatus s);

struct PluginLoadReport {
  std::string plugin;  // descriptor name, or the path when the descriptor is unusable
  LoadStatus status = LoadStatus::Failed;
  std::string message;  // why it was refused / failed / has no devices
};

// Registers a plugin from its descriptor (what bp_plugin_query returned): checks the
// descriptor, negotiates the ABI version and calls init. Never throws for a broken plugin:
// the report says what happened, and a failed plugin leaves nothing registered.
PluginLoadReport register_plugin(const bp_plugin_descriptor* descriptor,
                                 std::string_view origin = "built-in");
// Opens the shared library at `path` (made absolute; never searched for), finds its
// bp_plugin_query entry and registers the descriptor it returns. Never throws for a broken
// library: "not a shared library" and "no entry symbol" are `failed` reports carrying the
// loader's (dlerror) text. The library stays loaded until exit, even after
// unregister_plugin, so tensors and function pointers it handed out stay valid.
PluginLoadReport load_plugin(const std::filesystem::path& path);

// Where discover_plugins looks, in this order. In a directory, the plugins are the files
// named libbackplane_plugin_*.so, loaded in name order.
struct DiscoveryOptions {
  std::vector<std::filesystem::path> plugins;       // explicit plugin files
  std::vector<std::filesystem::path> search_paths;  // directories
  bool use_environment = true;  // BACKPLANE_PLUGIN_PATH: directories separated by ':'
  bool use_install_dir = true;  // <prefix>/lib/backplane/plugins of this build's install
  bool warn = true;             // one line on stderr for each plugin that failed
};

// Loads every plugin found (each file once, by canonical path) and returns one report per
// candidate. A missing directory is skipped silently; a missing explicit file is reported.
std::vector<PluginLoadReport> discover_plugins(const DiscoveryOptions& options = {});

// The install's plugin folder compiled into this build.
std::filesystem::path install_plugin_dir();

// Removes a plugin's kernels and backends and calls its shutdown. Tensors still allocated
// on its devices must not be used afterwards. Throws bp::Error for an unknown name.
void unregister_plugin(std::string_view plugin_name);

std::vector<PluginLoadReport> plugin_reports();
std::vector<BackendInfo> backends();
std::vector<DeviceInfo> devices();
DeviceInfo device_info(Device device);  // throws bp::Error for an unknown device

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
