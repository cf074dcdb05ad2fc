/* A plugin that leaks, for the leak-check test (tests/plugins/check_leaks.cmake): its init
 * builds a scratch table on the heap and drops it, and its device's free() allocates a
 * record for every block it frees and drops that too. Otherwise it is a working plugin
 * (one host-memory device). Built twice: with BP_LEAKS=1 as plugin "leaks", and with
 * BP_LEAKS=0 as "no_leaks", the same code minus the two leaks, the control that shows the
 * check reports the plugin's leaks and nothing of the runtime's. The leaking functions are
 * noinline so that the leak report names them in a Release build too. */
#include "broken_plugin.h"

#ifndef BP_LEAKS
#error "define BP_LEAKS as 1 (leak) or 0 (the control)"
#endif

#if BP_LEAKS
#define PLUGIN_NAME "leaks"
#else
#define PLUGIN_NAME "no_leaks"
#endif

/* Fills a lookup table the way a driver might at start-up and returns a checksum. With
 * BP_LEAKS the table is never freed: 4096 bytes definitely lost, allocated here. */
__attribute__((noinline)) static unsigned leaky_init_scratch(void) {
  unsigned* table = malloc(1024 * sizeof *table);
  if (!table) return 0;
  unsigned sum = 0;
  for (unsigned i = 0; i < 1024; ++i) {
    table[i] = i * 2654435761u;
    sum ^= table[i];
  }
#if !BP_LEAKS
  free(table);
#endif
  return sum;
}

/* Frees a device block, first logging it in a record that is never freed with BP_LEAKS:
 * 64 bytes definitely lost per block freed, allocated here. */
__attribute__((noinline)) static bp_status leaky_free(void* ctx, int32_t index, void* ptr) {
  char* record = malloc(64);
  if (record) {
    memset(record, 0, 64);
    memcpy(record, &ptr, sizeof ptr);
    /* The record escapes (as if handed to a logger), so the compiler keeps the malloc: an
     * allocation nobody reads would otherwise be removed at -O2. */
    __asm__ volatile("" : : "r"(record) : "memory");
#if !BP_LEAKS
    free(record);
#endif
  }
  return fixture_free(ctx, index, ptr);
}

static volatile unsigned checksum; /* keeps the scratch work from being optimised out */

static bp_device_api api = FIXTURE_DEVICE_API;

static bp_status init(const bp_host_api* host, const char* options) {
  (void)options;
  checksum = leaky_init_scratch();
  api.free = leaky_free;
  uint32_t id = 0;
  return host->register_backend(host->host, PLUGIN_NAME "_dev", &api, NULL, &id);
}

FIXTURE_PLUGIN(PLUGIN_NAME, init)
