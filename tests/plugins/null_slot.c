/* A device API with one required function left NULL: BP_NULL_SLOT (a compile definition)
 * names it. register_backend rejects the API naming the slot, and the plugin fails. */
#include "broken_plugin.h"

#ifndef BP_NULL_SLOT
#error "define BP_NULL_SLOT as the bp_device_api member to leave NULL"
#endif
#define FIXTURE_STR2(x) #x
#define FIXTURE_STR(x) FIXTURE_STR2(x)

static bp_device_api api = FIXTURE_DEVICE_API;

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  api.BP_NULL_SLOT = NULL;
  uint32_t id = 0;
  return host->register_backend(host->host, "null_" FIXTURE_STR(BP_NULL_SLOT) "_dev", &api, NULL,
                                &id);
}

FIXTURE_PLUGIN("null_" FIXTURE_STR(BP_NULL_SLOT), init)
