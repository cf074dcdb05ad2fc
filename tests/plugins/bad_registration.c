/* A plugin whose init registers its backend and one good kernel, then makes one bad
 * host-API call and returns its status (as a plugin that checks every call does):
 * BP_BAD_REGISTRATION (a compile definition) names the mistake and the plugin, and
 * BP_BAD_<mistake> selects it. The runtime must refuse
 * the call with a message that says what is wrong, and the failed load must leave nothing
 * of the plugin registered (tests/dispatch/test_hostile_plugins.cpp). */
#include "broken_plugin.h"

#ifndef BP_BAD_REGISTRATION
#error "define BP_BAD_REGISTRATION as one of the cases below"
#endif
#define FIXTURE_STR2(x) #x
#define FIXTURE_STR(x) FIXTURE_STR2(x)
#define NAME FIXTURE_STR(BP_BAD_REGISTRATION)

/* The mistakes:
 *   foreign_backend     a kernel for the built-in reference backend (slot 0)
 *   unknown_backend     a kernel for a backend id nobody registered
 *   backend_twice       its own backend name registered a second time
 *   null_kernel         a kernel function that is NULL
 *   empty_mask          a dtype mask of 0
 *   unknown_dtype_bits  a dtype mask with a bit past BP_DTYPE_COUNT */

static bp_device_api api = FIXTURE_DEVICE_API;

static bp_status noop_kernel(const bp_call* call) {
  (void)call;
  return BP_OK;
}

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  uint32_t id = 0;
  bp_status s = host->register_backend(host->host, NAME "_dev", &api, NULL, &id);
  if (s != BP_OK) return s;
  /* A good registration first: the failed load must remove it again. */
  s = host->register_kernel(host->host, id, "mul.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32), noop_kernel,
                            NULL);
  if (s != BP_OK) return s;
#if defined(BP_BAD_foreign_backend)
  return host->register_kernel(host->host, 0, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32), noop_kernel,
                               NULL);
#elif defined(BP_BAD_unknown_backend)
  return host->register_kernel(host->host, 63, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32),
                               noop_kernel, NULL);
#elif defined(BP_BAD_backend_twice)
  return host->register_backend(host->host, NAME "_dev", &api, NULL, &id);
#elif defined(BP_BAD_null_kernel)
  return host->register_kernel(host->host, id, "add.Tensor", BP_DTYPE_BIT(BP_DTYPE_F32), NULL,
                               NULL);
#elif defined(BP_BAD_empty_mask)
  return host->register_kernel(host->host, id, "add.Tensor", 0, noop_kernel, NULL);
#elif defined(BP_BAD_unknown_dtype_bits)
  return host->register_kernel(host->host, id, "add.Tensor",
                               BP_DTYPE_BIT(BP_DTYPE_F32) | (1u << BP_DTYPE_COUNT), noop_kernel,
                               NULL);
#else
#error "unknown BP_BAD_REGISTRATION case"
#endif
}

FIXTURE_PLUGIN(NAME, init)
