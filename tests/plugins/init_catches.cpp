// A plugin written in C++ whose init fails with an exception and does what the ABI asks:
// catches it at the C boundary and reports it through set_error. The plugin fails with the
// exception's text as its message.
#include <backplane/plugin.h>

#include <exception>
#include <stdexcept>

namespace {

void open_device() {
  throw std::runtime_error("init_catches: the driver threw while opening the device");
}

bp_status init(const bp_host_api* host, const char*) {
  try {
    open_device();
    return BP_OK;
  } catch (const std::exception& e) {
    host->set_error(host->host, BP_ERR_DEVICE, e.what());
    return BP_ERR_DEVICE;
  } catch (...) {
    host->set_error(host->host, BP_ERR_INTERNAL, "init_catches: unknown exception");
    return BP_ERR_INTERNAL;
  }
}

const bp_plugin_descriptor descriptor = {sizeof(bp_plugin_descriptor),
                                         BP_ABI_MAJOR,
                                         BP_ABI_MINOR,
                                         "init_catches",
                                         "0.0.1",
                                         "Backplane tests",
                                         init,
                                         nullptr};

}  // namespace

extern "C" BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &descriptor;
}
