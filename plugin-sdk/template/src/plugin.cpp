// The template device plugin's entry point: the descriptor the runtime reads through the
// one exported symbol (bp_plugin_query, defined by BP_SDK_PLUGIN), and an init that
// registers the backend "template_device" with one device backed by host memory, then its
// kernels. Exceptions thrown in init are caught by the SDK and reported as a failed load.
#include "kernels.hpp"

#include <backplane/sdk/sdk.hpp>

#include <string_view>

namespace template_device {
namespace {

// The device object must outlive the registration: a function-local static lives until
// the library is unloaded, which the runtime never does before exit.
bp::sdk::HostMemoryDevice& device() {
  static bp::sdk::HostMemoryDevice d("Template device (host memory)", "Example Vendor");
  return d;
}

void init(bp::sdk::Host& host, std::string_view /*options: the plugin's config as TOML*/) {
  const uint32_t backend = host.register_backend("template_device", device());
  register_kernels(host, backend);
}

}  // namespace
}  // namespace template_device

// Name (unique among loaded plugins), version, vendor, init, shutdown (nothing to release:
// the static device frees nothing it still owns).
BP_SDK_PLUGIN("template_device", "0.1.0", "Example Vendor", template_device::init, nullptr)
