/* A working plugin whose backend finds no device and says why: `no-devices` with that
 * reason, the backend stays registered and calls on it name the reason. */
#include "broken_plugin.h"

static bp_status device_count(void* ctx, int32_t* out_count, const char** out_reason) {
  (void)ctx;
  *out_count = 0;
  *out_reason = "no_devices: no accelerator is attached";
  return BP_OK;
}

static bp_device_api api = FIXTURE_DEVICE_API;

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  api.device_count = device_count;
  uint32_t id = 0;
  return host->register_backend(host->host, "no_devices_dev", &api, NULL, &id);
}

FIXTURE_PLUGIN("no_devices", init)
