/* Built against a newer ABI minor than the runtime provides: refused before init runs
 * (it may use functions this runtime does not have), naming both versions. */
#include "broken_plugin.h"

static bp_status init(const bp_host_api* host, const char* options) {
  (void)host;
  (void)options;
  abort(); /* never called: the runtime must refuse the plugin first */
}

static const bp_plugin_descriptor descriptor = {sizeof(bp_plugin_descriptor),
                                                BP_ABI_MAJOR,
                                                BP_ABI_MINOR + 1,
                                                "abi_minor",
                                                "0.0.1",
                                                "Backplane tests",
                                                init,
                                                NULL};

BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &descriptor;
}
