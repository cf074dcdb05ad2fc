// The runtime's configuration: the TOML config file (found by find_config_file()), the
// BACKPLANE_* environment overrides, and for every setting where its value came from (a
// file and line, or an environment variable) so `backplane info` can show it.
// docs/config.md describes every key, the search order and the variables.
//
// Reading a config checks everything that can be checked before plugins load: unknown keys,
// wrong types, bad selectors, an unknown fallback policy, unknown operator names. Backend
// and plugin names are checked afterwards by validate_backends(), given the names the
// loaded plugins registered. Every error is a bp::Error(ErrorCode::Parse) worded
// "<file>:<line>: <key>: <what>". A Config is a plain value: parsing and reading are
// thread-safe; the runtime's own copy changes only inside bp::init (serialised).
#pragma once

#include "backplane/dispatch/fallback.hpp"  // FallbackPolicy
#include "backplane/dispatch/memory.hpp"    // AllocatorMode
#include "backplane/dispatch/selector.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bp {

// One effective value and where it came from: "backplane.toml:7" (file and line), an
// environment variable's name ("BACKPLANE_DEVICE"), both joined by ", " when an environment
// variable added to a file's value (BACKPLANE_PLUGIN_PATH), or "" for the built-in default.
template <class T>
struct Setting {
  T value{};
  std::string origin;
  bool is_default() const { return origin.empty(); }
};

struct Config {
  struct Plugins {
    // Directories searched for libbackplane_plugin_*.so, in order (before the install's
    // plugin folder). Relative paths in a file are relative to the file's directory.
    Setting<std::vector<std::filesystem::path>> search_path;
    // Plugin files loaded before the search path is scanned.
    Setting<std::vector<std::filesystem::path>> load;
    // Plugins never opened: a plugin name ("opencl", matching libbackplane_plugin_opencl.so
    // and a descriptor named "opencl") or a file name ("libbackplane_plugin_opencl.so").
    Setting<std::vector<std::string>> deny;
  } plugins;

  struct Devices {
    // Which backends may be used, in which order; the plugins of excluded backends are
    // not opened (skip_reason). Default: every backend, in
    // DeviceSelector::default_priority().
    Setting<DeviceSelector> priority;
    // The default device: the first device this selector matches. Unset: `priority` decides.
    Setting<std::optional<DeviceSelector>> default_device;
  } devices;

  struct Fallback {
    Setting<FallbackPolicy> policy{FallbackPolicy::Error, ""};
    // backend -> ops that run on the CPU backend on that backend even when it has a kernel
    // (a kernel known to be wrong or slow). Entries are full names ("add.Tensor") or base
    // names ("add": every overload), as written.
    std::map<std::string, Setting<std::vector<std::string>>, std::less<>> ops;
  } fallback;

  struct Memory {
    // "caching" (the default) or "direct": whether freed device memory is cached for reuse
    // or every allocation goes to the plugin (memory.hpp, docs/allocator.md).
    Setting<AllocatorMode> allocator{AllocatorMode::Caching, ""};
  } memory;

  // [backends.<name>] options: the text passed to the init of the plugin named <name> (the
  // plugin's descriptor name; the in-tree plugins are named after their backend). A TOML
  // table in the file is passed as its TOML text.
  std::map<std::string, Setting<std::string>, std::less<>> backend_options;

  // BACKPLANE_TRACE: the file the tracing layer writes at exit; empty = tracing off.
  Setting<std::filesystem::path> trace_file;

  // The config file read ("" when none was: defaults only).
  std::filesystem::path source;

  // Parses config text; `source_name` names it in errors and origins; relative paths are
  // resolved against `base_dir` (left as written when it is empty). Throws bp::Error(Parse).
  static Config parse(std::string_view text, std::string_view source_name,
                      const std::filesystem::path& base_dir = {});
  // Reads and parses a file (relative paths in it are relative to its directory). A file
  // that cannot be read is a bp::Error(InvalidArgument) naming it.
  static Config load(const std::filesystem::path& path);

  // The selector that picks the default device: devices.default when set, else
  // devices.priority.
  const DeviceSelector& default_selector() const;

  // Why the plugin file `file` must not be opened, or nullopt when it may be: it is in
  // plugins.deny, or devices.priority excludes the backend its file name names
  // (libbackplane_plugin_<backend>.so) by negating it, or by listing others when it is a
  // backend Backplane ships (an out-of-tree file may hold a backend of another name, so
  // only a negation rules it out). The reason names the setting and its origin, e.g.
  //   denied by plugins.deny (backplane.toml:4)
  //   backend 'opencl' excluded by devices.priority 'cuda:*' (BACKPLANE_DEVICE)
  std::optional<std::string> skip_reason(const std::filesystem::path& file) const;
  // True when plugins.deny names `plugin_name` (a descriptor name, checked after opening a
  // library whose file name did not say it).
  bool denies_plugin(std::string_view plugin_name) const;

  // True when fallback.ops forces `op_full_name` ("add.Tensor") to the CPU on `backend`.
  bool forces_fallback(std::string_view backend, std::string_view op_full_name) const;
  // The full op names fallback.ops lists for `backend`, base names expanded to every
  // overload, in catalog order (what bp::force_fallback takes, one call per name).
  std::vector<std::string> forced_ops(std::string_view backend) const;

  // Checks the backend and plugin names against what loaded: devices.priority,
  // devices.default, fallback.ops.<backend> against `backends`; backends.<name> against
  // `backends` and `plugins`. Throws bp::Error(InvalidArgument) for the first unknown name,
  // naming the origin and the key:
  //   backplane.toml:12: fallback.ops.cdua: unknown backend 'cdua' (known: cpu, cuda,
  //   reference); did you mean 'cuda'?
  void validate_backends(std::span<const std::string> backends,
                         std::span<const std::string> plugins = {}) const;

  // Every effective setting, one per key ("devices.priority", "fallback.ops.cuda", ...),
  // its value as text and its origin ("" = default), for `backplane info`.
  struct Entry {
    std::string key;
    std::string value;
    std::string origin;
  };
  std::vector<Entry> entries() const;
};

// The plugin name a plugin file's name says: "opencl" for libbackplane_plugin_opencl.so;
// nullopt for other names.
std::optional<std::string> plugin_name_from_file(const std::filesystem::path& file);

// The config file to read, first found of: $BACKPLANE_CONFIG, ./backplane.toml,
// $XDG_CONFIG_HOME/backplane/config.toml (XDG_CONFIG_HOME defaults to ~/.config),
// /etc/backplane/config.toml. nullopt when there is none. A $BACKPLANE_CONFIG naming a file
// that does not exist is a bp::Error(InvalidArgument) (a typo there must not silently mean
// "defaults").
std::optional<std::filesystem::path> find_config_file();

// Applies the environment overrides to `config`, recording each as the origin:
//   BACKPLANE_DEVICE       a selector; replaces devices.priority and devices.default
//   BACKPLANE_PLUGIN_PATH  directories separated by ':', put before plugins.search_path
//   BACKPLANE_FALLBACK     "error" or "cpu"; replaces fallback.policy
//   BACKPLANE_TRACE        a file path; sets trace_file
//   BACKPLANE_ALLOCATOR    "caching" or "direct"; replaces memory.allocator
// An unset or empty variable changes nothing. A bad value is a bp::Error(Parse) naming the
// variable, e.g. "BACKPLANE_FALLBACK: expected "error" or "cpu", got "gpu"".
void apply_environment(Config& config);

// The configuration a runtime starts with: the file find_config_file() finds (or the
// defaults), then apply_environment().
Config load_config();

}  // namespace bp
