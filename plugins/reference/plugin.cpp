// The reference backend's entry point: one device whose memory is ordinary host memory
// (sdk::HostMemoryDevice) and the registration of every kernel file's kernels. Built into
// the runtime, it is still a plugin: the runtime reaches it only through
// bp_reference_plugin_query() and the C ABI (module_entry.cpp exports the same descriptor
// from the loadable build).
#include "reference.hpp"

#include <backplane/sdk/device.hpp>
#include <backplane/sdk/plugin.hpp>

#include <string_view>

namespace bp::reference {
namespace {

// Lives until the program exits: the runtime may call it until then.
sdk::HostMemoryDevice& device() {
  static sdk::HostMemoryDevice d = [] {
    sdk::HostMemoryDevice host_memory("Backplane reference (host, double-precision oracle)",
                                      "Backplane");
    host_memory.named_in_messages("reference");
    return host_memory;
  }();
  return d;
}

void init(sdk::Host& host, std::string_view /*options*/) {
  sdk::Registrar kernels = host.kernels(host.register_backend("reference", device()));
  for (auto register_file :
       {register_data_movement_copy_kernels, register_unary_kernels, register_binary_kernels,
        register_reduction_kernels, register_data_movement_index_kernels, register_linalg_kernels,
        register_activation_backward_kernels, register_indexed_write_kernels, register_scan_kernels,
        register_convolution_kernels, register_pooling_kernels, register_random_kernels,
        register_sort_kernels, register_scatter_kernels, register_nonzero_kernels})
    register_file(kernels);
}

}  // namespace
}  // namespace bp::reference

BP_SDK_PLUGIN_DESCRIPTOR("reference", "0.1.0", "Backplane", bp::reference::init, nullptr)

// Built into the runtime under this name; the module build exports it as bp_plugin_query.
extern "C" const bp_plugin_descriptor* bp_reference_plugin_query(void) {
  return &bp_sdk_plugin_entry::descriptor;
}
