/* A working plugin (backend "kernel_error_dev", one host-memory device) whose kernels fail:
 * add.Tensor reports a message through set_error, mul.Tensor returns a status without one.
 * The caller's bp::Error must carry the op, the device and the plugin's message. */
#include "broken_plugin.h"

static const bp_host_api* g_host = NULL;
static const bp_device_api api = FIXTURE_DEVICE_API;

static bp_status add_kernel(const bp_call* call) {
  (void)call;
  g_host->set_error(g_host->host, BP_ERR_DEVICE, "kernel_error: the device refused to add");
  return BP_ERR_DEVICE;
}

static bp_status mul_kernel(const bp_call* call) {
  (void)call;
  return BP_ERR_UNSUPPORTED;
}

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  g_host = host;
  uint32_t id = 0;
  bp_status s = host->register_backend(host->host, "kernel_error_dev", &api, NULL, &id);
  if (s != BP_OK) return s;
  s = host->register_kernel(host->host, id, "add.Tensor", BP_DTYPES_ALL, add_kernel, NULL);
  if (s != BP_OK) return s;
  return host->register_kernel(host->host, id, "mul.Tensor", BP_DTYPES_ALL, mul_kernel, NULL);
}

FIXTURE_PLUGIN("kernel_error", init)
