// The host side of the plugin C ABI, shared by the runtime's files (internal to dispatch/):
// how the host reads a plugin's strings (always with a bound), status codes in words, the
// smallest structs a plugin of this ABI major may pass, and the bp_host_api its init gets.
#pragma once

#include "runtime_impl.hpp"

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace bp::detail {

// A plugin's strings are read with a bound: a broken plugin may hand out text without a
// NUL (found by fuzzing, tests/fuzz/corpus/plugin/regress-*). Names (of plugins, backends
// and ops) and reasons are read up to kMaxPluginName bytes; error and log messages up to
// kMaxPluginMessage bytes, cut there. The host never reads more of any plugin string.
constexpr size_t kMaxPluginName = 256;
constexpr size_t kMaxPluginMessage = 4096;

inline std::string_view plugin_text(const char* text, size_t limit) {
  return text ? std::string_view(text, strnlen(text, limit)) : std::string_view();
}

// A C string from a plugin, read with a bound (a broken plugin may hand out garbage).
inline std::string bounded(const char* text) {
  return std::string(plugin_text(text, kMaxPluginName));
}

// "invalid argument", "no device", ... for a bp_status.
std::string_view status_name(bp_status status);

// The sizes of the ABI 1.0 structs: the smallest a plugin of this major may pass. Pinned to
// the last 1.0 member, not to sizeof, so that appending members in a later minor keeps
// accepting plugins built against 1.0 (they pass the smaller struct_size).
constexpr size_t kDescriptorSizeV1_0 =
    offsetof(bp_plugin_descriptor, shutdown) + sizeof(bp_plugin_descriptor::shutdown);
constexpr size_t kDeviceApiSizeV1_0 =
    offsetof(bp_device_api, synchronize) + sizeof(bp_device_api::synchronize);

// The host API a plugin's init receives: the runtime's entry points, with `context` as
// bp_host_api::host.
bp_host_api make_host_api(HostContext* context);

}  // namespace bp::detail
