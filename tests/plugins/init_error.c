/* An init that registers its backend, then reports an error through set_error: the plugin
 * fails with its status and message, and what it registered is removed. */
#include "broken_plugin.h"

static const bp_device_api api = FIXTURE_DEVICE_API;

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  uint32_t id = 0;
  bp_status s = host->register_backend(host->host, "init_error_dev", &api, NULL, &id);
  if (s != BP_OK) return s;
  host->set_error(host->host, BP_ERR_DEVICE, "init_error: the firmware did not answer");
  return BP_ERR_DEVICE;
}

FIXTURE_PLUGIN("init_error", init)
