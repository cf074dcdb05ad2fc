/* Registers a kernel for an op the runtime's catalog does not have and returns the
 * BP_ERR_NOT_FOUND it gets: the plugin fails with the message naming the op. (A plugin may
 * instead ignore that status, to run on an older runtime without the op.) */
#include "broken_plugin.h"

static const bp_device_api api = FIXTURE_DEVICE_API;

static bp_status kernel(const bp_call* call) {
  (void)call;
  return BP_OK;
}

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  uint32_t id = 0;
  bp_status s = host->register_backend(host->host, "unknown_op_dev", &api, NULL, &id);
  if (s != BP_OK) return s;
  return host->register_kernel(host->host, id, "frobnicate.Tensor", BP_DTYPES_ALL, kernel, NULL);
}

FIXTURE_PLUGIN("unknown_op", init)
