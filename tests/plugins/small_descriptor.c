/* A descriptor whose struct_size covers only struct_size and the ABI version (16 bytes):
 * the runtime must not read the members past it, and fails the plugin. */
#include "broken_plugin.h"

static const bp_plugin_descriptor descriptor = {offsetof(bp_plugin_descriptor, name),
                                                BP_ABI_MAJOR,
                                                BP_ABI_MINOR,
                                                "small_descriptor",
                                                "0.0.1",
                                                "Backplane tests",
                                                NULL,
                                                NULL};

BP_EXPORT const bp_plugin_descriptor* bp_plugin_query(void) {
  return &descriptor;
}
