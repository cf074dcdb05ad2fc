/* A plugin with two backends and no device on either: one reports 0 devices with a reason,
 * the other's device_count fails with a set_error message (no driver, say). The plugin is
 * `no-devices`, its message naming each backend with its reason. */
#include "broken_plugin.h"

static const bp_host_api* g_host = NULL;

static bp_status zero_devices(void* ctx, int32_t* out_count, const char** out_reason) {
  (void)ctx;
  *out_count = 0;
  *out_reason = "device_count_fails: nothing on the bus";
  return BP_OK;
}

static bp_status failing_count(void* ctx, int32_t* out_count, const char** out_reason) {
  (void)ctx;
  (void)out_count;
  (void)out_reason;
  g_host->set_error(g_host->host, BP_ERR_DEVICE, "device_count_fails: the driver is missing");
  return BP_ERR_DEVICE;
}

static bp_device_api zero_api = FIXTURE_DEVICE_API;
static bp_device_api failing_api = FIXTURE_DEVICE_API;

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  g_host = host;
  zero_api.device_count = zero_devices;
  failing_api.device_count = failing_count;
  uint32_t id = 0;
  bp_status s = host->register_backend(host->host, "dcf_zero", &zero_api, NULL, &id);
  if (s != BP_OK) return s;
  return host->register_backend(host->host, "dcf_error", &failing_api, NULL, &id);
}

FIXTURE_PLUGIN("device_count_fails", init)
