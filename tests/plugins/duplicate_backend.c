/* A plugin with a name of its own that registers the backend "test_dev", which the testdev
 * fixture also registers: whichever loads second is refused and rolled back. */
#include "broken_plugin.h"

static const bp_device_api api = FIXTURE_DEVICE_API;

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  uint32_t id = 0;
  return host->register_backend(host->host, "test_dev", &api, NULL, &id);
}

FIXTURE_PLUGIN("duplicate_backend", init)
