// The plugin entry point for plugin authors: sdk::Host wraps the host API a plugin's init
// receives (register a backend over an sdk::Device, register kernels, log), and
// BP_SDK_PLUGIN(...) defines the one exported symbol, bp_plugin_query, with an init whose
// exceptions are caught at the boundary and reported to the runtime:
//
//   void init(bp::sdk::Host& host, std::string_view options) {
//     static bp::sdk::HostMemoryDevice device("My device", "Acme");
//     const uint32_t backend = host.register_backend("acme", device);
//     host.kernels(backend).kernel<add_f32>("add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32));
//   }
//   BP_SDK_PLUGIN("acme", "1.0.0", "Acme Corp", init, nullptr)
//
// Header-only; the plugin is built against BP_ABI_MAJOR/MINOR of the headers it includes.
#pragma once

#include <backplane/plugin.h>
#include <backplane/sdk/device.hpp>
#include <backplane/sdk/error.hpp>
#include <backplane/sdk/kernel.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace bp::sdk {

class Host {
 public:
  explicit Host(const bp_host_api* api) : api_(api) {}
  const bp_host_api* api() const { return api_; }

  // Registers `device` as backend `name` and returns its id for kernel registration.
  // `device` must live until shutdown (make it a static or a member of a static).
  uint32_t register_backend(const char* name, Device& device) {
    device.host = api_;
    uint32_t id = 0;
    const bp_status s = api_->register_backend(api_->host, name, &device_api(device), &device, &id);
    if (s != BP_OK)
      throw Error::reported_by_host(s, std::string("register_backend(") + name + ") failed");
    return id;
  }
  Registrar kernels(uint32_t backend_id) const { return Registrar(api_, backend_id); }

  // level: 0 debug, 1 info, 2 warning, 3 error.
  void log(int32_t level, const std::string& message) const {
    if (api_->log) api_->log(api_->host, level, message.c_str());
  }

 private:
  const bp_host_api* api_;
};

namespace detail {
// Runs a plugin's `void init(Host&, std::string_view)` at the C boundary.
template <typename InitFn>
bp_status run_init(const bp_host_api* api, const char* options, InitFn init) noexcept {
  return guard(api, [&] {
    Host host(api);
    init(host, std::string_view(options ? options : ""));
  });
}
}  // namespace detail

}  // namespace bp::sdk

// Defines the plugin's descriptor, bp_sdk_plugin_entry::descriptor: NAME, VERSION, VENDOR
// are string literals; INIT is `void (bp::sdk::Host&, std::string_view options)`; SHUTDOWN
// is `void()` or nullptr. A plugin exports it with BP_SDK_PLUGIN below; use this alone for
// a plugin linked into a program, which hands its descriptor over by another name.
#define BP_SDK_PLUGIN_DESCRIPTOR(NAME, VERSION, VENDOR, INIT, SHUTDOWN)         \
  namespace bp_sdk_plugin_entry {                                               \
  static bp_status init_entry(const bp_host_api* api, const char* options) {    \
    return ::bp::sdk::detail::run_init(api, options, INIT);                     \
  }                                                                             \
  static const bp_plugin_descriptor descriptor = {sizeof(bp_plugin_descriptor), \
                                                  BP_ABI_MAJOR,                 \
                                                  BP_ABI_MINOR,                 \
                                                  NAME,                         \
                                                  VERSION,                      \
                                                  VENDOR,                       \
                                                  init_entry,                   \
                                                  SHUTDOWN};                    \
  }

// Defines bp_plugin_query, the one exported symbol, over BP_SDK_PLUGIN_DESCRIPTOR's
// descriptor (same arguments). Use once per plugin, at namespace scope in one source file.
#define BP_SDK_PLUGIN(NAME, VERSION, VENDOR, INIT, SHUTDOWN)               \
  BP_SDK_PLUGIN_DESCRIPTOR(NAME, VERSION, VENDOR, INIT, SHUTDOWN)          \
  extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) { \
    return &bp_sdk_plugin_entry::descriptor;                               \
  }
